// nn::Sequential, ModuleList, ModuleDict: PyTorch 1.13's container semantics on top of
// Module's registration.
//
// Note [One list of children]
// A container's children are its Module's child list, exactly as PyTorch's containers read
// `self._modules`: len, indexing, iteration, forward, repr, state_dict and named_children all
// read that one list, so a child added by any route (the container's own methods,
// Module::register_module, Python's add_module / setattr / _modules[...]) is seen by every
// path. An earlier version kept the container's names in a second list: a child added through
// Module's registration showed in repr but was skipped by forward, a silent wrong result.
// The list keeps duplicates (one module at two indices); Module's traversals remove them.
#include "ember/nn/modules/container.h"

#include <algorithm>
#include <typeinfo>

#include "conv_bn_eval.h"
#include "ember/nn/modules/linear.h"
#include "module_util.h"

namespace ember::nn {

// ---- ModuleContainer ----

std::vector<std::string> ModuleContainer::keys() const {
  std::vector<std::string> out;
  out.reserve(size());
  for (const auto& [k, m] : child_slots()) out.push_back(k);
  return out;
}

std::vector<std::shared_ptr<Module>> ModuleContainer::values() const {
  std::vector<std::shared_ptr<Module>> out;
  out.reserve(size());
  for (const auto& [k, m] : child_slots()) out.push_back(m);
  return out;
}

std::vector<NamedModule> ModuleContainer::items() const { return child_slots(); }

void ModuleContainer::add_module(const std::string& name, std::shared_ptr<Module> module) {
  for (const auto& [k, m] : child_slots()) {
    if (k == name) {
      replace_module(name, std::move(module));
      return;
    }
  }
  register_module_impl(name, std::move(module));  // checks the name first
}

void ModuleContainer::unregister_module(const std::string& name) {
  Module::unregister_module(name);  // errors when `name` is not a child
}

void ModuleContainer::renumber(const std::vector<std::shared_ptr<Module>>& modules) {
  for (const auto& k : keys()) Module::unregister_module(k);
  for (size_t i = 0; i < modules.size(); ++i) add_module(std::to_string(i), modules[i]);
}

size_t ModuleContainer::checked_index(int64_t idx) const {
  const auto n = static_cast<int64_t>(size());
  EMBER_CHECK_INDEX(idx >= -n && idx < n, "index ", idx, " is out of range");
  return static_cast<size_t>(idx < 0 ? idx + n : idx);
}

std::string ModuleContainer::index_label(int64_t idx) {
  std::string s("[");
  s.append(std::to_string(idx)).append("]");
  return s;
}
std::string ModuleContainer::key_label(const std::string& key) {
  std::string s("['");
  s.append(key).append("']");
  return s;
}

// Python's slice.indices(len) followed by range().
std::vector<size_t> ModuleContainer::slice_positions(std::optional<int64_t> start,
                                                     std::optional<int64_t> stop,
                                                     int64_t step) const {
  EMBER_CHECK_VALUE(step != 0, "slice step cannot be zero");
  const auto n = static_cast<int64_t>(size());
  auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v < 0 ? *v + n : *v;
    if (step > 0) return std::clamp<int64_t>(x, 0, n);
    return std::clamp<int64_t>(x, -1, n - 1);
  };
  const int64_t b = clamp(start, step > 0 ? 0 : n - 1);
  const int64_t e = clamp(stop, step > 0 ? n : -1);
  std::vector<size_t> out;
  for (int64_t i = b; step > 0 ? i < e : i > e; i += step) out.push_back(static_cast<size_t>(i));
  return out;
}

// ---- ModuleSequence ----

std::shared_ptr<Module> ModuleSequence::operator[](int64_t idx) const {
  return child_slots()[checked_index(idx)].second;
}

ModuleSequence& ModuleSequence::append(std::shared_ptr<Module> module) {
  add_module(std::to_string(size()), std::move(module));
  return *this;
}

ModuleSequence& ModuleSequence::extend(const std::vector<std::shared_ptr<Module>>& modules) {
  for (const auto& m : modules) append(m);
  return *this;
}

ModuleSequence& ModuleSequence::insert(int64_t index, std::shared_ptr<Module> module) {
  const auto n = static_cast<int64_t>(size());
  EMBER_CHECK_INDEX(index >= -n && index <= n, "Index out of range: ", index);
  if (index < 0) index += n;
  std::vector<std::shared_ptr<Module>> modules = values();
  modules.insert(modules.begin() + index, std::move(module));
  renumber(modules);
  return *this;
}

void ModuleSequence::set(int64_t idx, std::shared_ptr<Module> module) {
  replace_module(key_at(checked_index(idx)), std::move(module));
}

void ModuleSequence::erase(int64_t idx) {
  std::vector<std::shared_ptr<Module>> modules = values();
  modules.erase(modules.begin() + static_cast<std::ptrdiff_t>(checked_index(idx)));
  renumber(modules);
}

void ModuleSequence::erase(std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) {
  const std::vector<size_t> drop = slice_positions(start, stop, step);
  std::vector<std::shared_ptr<Module>> modules;
  for (size_t i = 0; i < size(); ++i)
    if (std::find(drop.begin(), drop.end(), i) == drop.end()) modules.push_back(child_slots()[i].second);
  renumber(modules);
}

std::shared_ptr<Module> ModuleSequence::pop(int64_t idx) {
  std::shared_ptr<Module> m = (*this)[idx];
  erase(idx);
  return m;
}

// ---- Sequential ----

Sequential::Sequential(const std::vector<std::shared_ptr<Module>>& modules) : Sequential() {
  extend(modules);
}

Sequential::Sequential(const std::vector<NamedModule>& named_modules) : Sequential() {
  for (const auto& [name, m] : named_modules) add_module(name, m);
}

std::shared_ptr<Sequential> Sequential::slice(std::optional<int64_t> start,
                                              std::optional<int64_t> stop, int64_t step) const {
  std::vector<NamedModule> picked;
  for (size_t i : slice_positions(start, stop, step)) picked.push_back(child_slots()[i]);
  return std::make_shared<Sequential>(picked);
}

Tensor Sequential::forward(const Tensor& input) {
  return forward(std::vector<Value>{input}).to_tensor();
}

Value Sequential::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  Value x = inputs[0];
  // The child list itself, read by index (no copy per call: ~1% of a quantized model's time).
  // A hook may change the list while a child runs: the size is read anew each step, and `m`
  // keeps the running child alive.
  const auto& slots = child_slots();
  auto at = [&slots](size_t j) -> Module* {
    return j < slots.size() ? slots[j].second.get() : nullptr;
  };
  for (size_t i = 0; i < slots.size(); ++i) {
    std::shared_ptr<Module> m = slots[i].second;
    EMBER_CHECK_TYPE(m, "'NoneType' object is not callable");  // a child registered as None
    // Identity itself (not a subclass) with no hook returns its input: skipped. Fusion leaves
    // one in place of each folded BatchNorm / activation (~100 in an int8 MobileNetV2).
    if (typeid(*m) == typeid(Identity) && !m->has_forward_hooks()) continue;
    // Conv2d -> BatchNorm2d [-> activation] in eval mode, as one convolution where nothing can
    // tell (Note [Eval-mode conv-bn-activation fusion]).
    if (Module* next = at(i + 1); next && x.is_tensor()) {
      const Module* act = at(i + 2);
      if (act && !detail::is_fusable_activation(*act)) act = nullptr;
      if (auto y = detail::conv_bn_act_eval(*m, *next, act, x.to_tensor())) {
        x = *y;
        i += act ? 2 : 1;
        continue;
      }
    }
    x = m->call({std::move(x)});
  }
  return x;
}

Sequential& Sequential::extend(const Sequential& other) {
  ModuleSequence::extend(other.values());
  return *this;
}

// ---- ModuleList ----

ModuleList::ModuleList(const std::vector<std::shared_ptr<Module>>& modules) : ModuleList() {
  extend(modules);
}

std::shared_ptr<ModuleList> ModuleList::slice(std::optional<int64_t> start,
                                              std::optional<int64_t> stop, int64_t step) const {
  std::vector<std::shared_ptr<Module>> picked;
  for (size_t i : slice_positions(start, stop, step)) picked.push_back(child_slots()[i].second);
  return std::make_shared<ModuleList>(picked);
}

ModuleList& ModuleList::extend(const ModuleList& other) {
  ModuleSequence::extend(other.values());
  return *this;
}

// ---- ModuleDict ----

ModuleDict::ModuleDict(const std::vector<NamedModule>& modules) : ModuleDict() { update(modules); }

bool ModuleDict::contains(const std::string& key) const {
  for (const auto& [k, m] : child_slots()) {
    if (k == key) return true;
  }
  return false;
}

std::shared_ptr<Module> ModuleDict::operator[](const std::string& key) const {
  EMBER_CHECK_KIND(ErrorKind::Key, contains(key), "'", key, "'");
  return child(key);
}

void ModuleDict::erase(const std::string& key) {
  EMBER_CHECK_KIND(ErrorKind::Key, contains(key), "'", key, "'");
  unregister_module(key);
}

std::shared_ptr<Module> ModuleDict::pop(const std::string& key) {
  std::shared_ptr<Module> m = (*this)[key];
  erase(key);
  return m;
}

void ModuleDict::clear() {
  for (const auto& k : keys()) unregister_module(k);
}

void ModuleDict::update(const std::vector<NamedModule>& modules) {
  for (const auto& [k, m] : modules) set(k, m);
}

}  // namespace ember::nn
