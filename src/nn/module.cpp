// nn::Module: registration, traversal, modes, hooks, forward and repr. state_dict / loading are in
// module_state.cpp, conversion in module_apply.cpp.
#include "ember/nn/module.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <sstream>
#include <typeindex>
#include <unordered_map>
#include <unordered_set>

#include "../autograd/autograd_meta.h"
#include "module_depth.h"
#include "modules/module_util.h"
#include "ember/autograd/function.h"
#include "ember/grad_mode.h"

namespace ember::nn {

// ---- Parameter ----

Tensor Parameter(const Tensor& data, bool requires_grad) {
  EMBER_CHECK(data.defined(), "Parameter: the data tensor is undefined");
  Tensor p = data.detach();  // a new leaf over the same storage and version counter
  if (requires_grad) p.requires_grad_(true);
  autograd::materialize_meta(p).is_parameter_ = true;
  return p;
}

bool is_parameter(const Tensor& t) { return t.defined() && t.is_parameter(); }

// ---- __future__ flags ----

namespace {
std::atomic<bool> g_overwrite_on_conversion{false};
std::atomic<bool> g_swap_on_conversion{false};
std::atomic<unsigned> g_next_hook_id{1};
}  // namespace

void set_overwrite_module_params_on_conversion(bool v) { g_overwrite_on_conversion = v; }
bool get_overwrite_module_params_on_conversion() { return g_overwrite_on_conversion; }
void set_swap_module_params_on_conversion(bool v) { g_swap_on_conversion = v; }
bool get_swap_module_params_on_conversion() { return g_swap_on_conversion; }

std::string IncompatibleKeys::to_string() const {
  if (missing_keys.empty() && unexpected_keys.empty()) return "<All keys matched successfully>";
  auto list = [](const std::vector<std::string>& keys) {
    std::string s = "[";
    for (size_t i = 0; i < keys.size(); ++i) s += (i ? ", '" : "'") + keys[i] + "'";
    return s + "]";
  };
  return "_IncompatibleKeys(missing_keys=" + list(missing_keys) +
         ", unexpected_keys=" + list(unexpected_keys) + ")";
}

// ---- Module ----

Module::Module(std::string type_name) : type_name_(std::move(type_name)) {}

// Note [Module type names]
// A module prints as its class name. Ember's layers pass PyTorch's ("Linear") and Python
// subclasses their Python class name; a C++ module that passes none is named by its C++ type,
// as Function<T> names its node: typeid(*this) demangled, namespaces dropped ("MyNet",
// "Block<float>"). The constructor cannot see the derived type (typeid is the class being
// constructed), so the name is looked up on first use and cached as a pointer to an interned
// (type, name) entry; the cache is checked against typeid, which a base class's constructor may
// see differently, and written atomically, so concurrent readers are safe.
namespace detail {
struct TypeNameEntry {
  const std::type_info* type;
  std::string name;
};
}  // namespace detail

const std::string& Module::class_type_name() const {
  const std::type_info& type = typeid(*this);
  const detail::TypeNameEntry* entry = class_name_.load(std::memory_order_acquire);
  if (entry && *entry->type == type) return entry->name;
  // Never destroyed: a module may still be named while the process exits.
  static auto* mu = new std::mutex;
  static auto* interned =
      new std::unordered_map<std::type_index, std::unique_ptr<detail::TypeNameEntry>>;
  {
    std::lock_guard<std::mutex> lock(*mu);
    auto& slot = (*interned)[std::type_index(type)];
    if (!slot) {
      slot = std::make_unique<detail::TypeNameEntry>(
          detail::TypeNameEntry{&type, autograd::detail::demangled_short_name(type.name())});
    }
    entry = slot.get();
  }
  class_name_.store(entry, std::memory_order_release);
  return entry->name;
}

// Note [Slot handles] (module.h): the module copy under construction on this thread, and the
// module it copies.
namespace {
thread_local const Module* t_copy_source = nullptr;
thread_local Module* t_copy_target = nullptr;
}  // namespace

namespace detail {
void set_module_copy(const Module* source, Module* target) {
  t_copy_source = source;
  t_copy_target = target;
}

Module* rebind_slot_owner(Module* owner, const void* copy, const void* original) {
  if (!owner || owner != t_copy_source || !t_copy_target) return owner;
  // A member of the copy sits as far from it as the original member from the original module.
  const auto offset = reinterpret_cast<std::uintptr_t>(original) - reinterpret_cast<std::uintptr_t>(owner);
  const auto at = reinterpret_cast<std::uintptr_t>(copy) - reinterpret_cast<std::uintptr_t>(t_copy_target);
  return offset == at ? t_copy_target : owner;
}
}  // namespace detail

Module::~Module() {
  if (t_copy_target == this) detail::set_module_copy(nullptr, nullptr);
}

Value Module::forward(const std::vector<Value>&) {
  EMBER_FAIL_KIND(ErrorKind::NotImplemented, "Module [", type_name(),
                  "] is missing the required \"forward\" function");
}

// Note [Module hooks across the boundary]
// PyTorch's hooks fire on every call of a module, whoever calls it; quantization's observers
// depend on it. C++ hooks live in this module's lists and run in call_native. A front end's
// hooks (Python's forward / pre / backward hooks, with kwargs, always_call, the module-global
// ones) live in the front end, which has the arguments as its users wrote them; a module that
// has (had) such hooks is marked (front_end_hooks_), and `call` — what C++ parents use — hands
// the whole call to the front end, which runs its hooks, the C++ hooks (run_forward_*_hooks)
// and forward. Calls made from the front end go straight to its own call path. With no hook
// anywhere, `call` costs two flag tests; fast paths that bypass `call` (eval-mode conv-bn
// fusion) test has_forward_hooks(), which counts both kinds.
namespace {
Module::FrontEndCall g_front_end_call = nullptr;
std::atomic<bool> g_front_end_global_hooks{false};
}  // namespace

void Module::set_front_end_call(FrontEndCall fn) { g_front_end_call = fn; }
void Module::set_front_end_global_hooks(bool on) { g_front_end_global_hooks = on; }
bool Module::front_end_global_hooks() { return g_front_end_global_hooks.load(std::memory_order_relaxed); }

Value Module::call(std::vector<Value> inputs) {
  if ((front_end_hooks_ || front_end_global_hooks()) && g_front_end_call) {
    return g_front_end_call(*this, inputs);
  }
  return call_native(std::move(inputs));
}

Value Module::call_native(std::vector<Value> inputs) {
  if (!forward_pre_hooks_.empty()) {
    if (auto replaced = run_forward_pre_hooks(inputs)) inputs = std::move(*replaced);
  }
  Value out = forward(inputs);
  if (!forward_hooks_.empty()) {
    if (auto replaced = run_forward_hooks(inputs, out)) out = std::move(*replaced);
  }
  return out;
}

std::optional<std::vector<Value>> Module::run_forward_pre_hooks(const std::vector<Value>& inputs) {
  std::optional<std::vector<Value>> current;
  const auto pre = forward_pre_hooks_;  // a hook may add or remove hooks
  for (const auto& [id, hook] : pre) {
    if (auto replaced = hook(*this, current ? *current : inputs)) current = std::move(*replaced);
  }
  return current;
}

std::optional<Value> Module::run_forward_hooks(const std::vector<Value>& inputs, const Value& output) {
  std::optional<Value> current;
  const auto post = forward_hooks_;
  for (const auto& [id, hook] : post) {
    if (auto replaced = hook(*this, inputs, current ? *current : output)) current = std::move(*replaced);
  }
  return current;
}

Module::Slot* Module::find_slot(std::deque<Slot>& slots, const std::string& name) {
  for (auto& s : slots)
    if (s.name == name) return &s;
  return nullptr;
}
const Module::Slot* Module::find_slot(const std::deque<Slot>& slots, const std::string& name) const {
  for (const auto& s : slots)
    if (s.name == name) return &s;
  return nullptr;
}

// libtorch's checks and messages ("Parameter name must not contain a dot (got 'a.b')"), and a
// name may not be taken by another kind of member either (Python's "attribute 'x' already exists").
void Module::check_new_name(const std::string& kind, const std::string& name) const {
  EMBER_CHECK(!name.empty(), kind, " name must not be empty");
  EMBER_CHECK(name.find('.') == std::string::npos, kind, " name must not contain a dot (got '",
              name, "')");
  const bool as_param = find_slot(parameters_, name) != nullptr;
  const bool as_buffer = find_slot(buffers_, name) != nullptr;
  bool as_child = false;
  for (const auto& [n, m] : children_) as_child |= n == name;
  const bool same_kind = (kind == "Parameter" && as_param) || (kind == "Buffer" && as_buffer) ||
                         (kind == "Submodule" && as_child);
  EMBER_CHECK(!same_kind, kind, " '", name, "' already defined");
  EMBER_CHECK_KIND(ErrorKind::Key, !(as_param || as_buffer || as_child), "attribute '", name,
                   "' already exists");
}

Tensor& Module::register_parameter(const std::string& name, const Tensor& t, bool requires_grad) {
  check_new_name("Parameter", name);
  Tensor value;
  if (t.defined()) {
    EMBER_CHECK_VALUE(t.is_leaf(), "Cannot assign non-leaf Tensor to parameter '", name,
                      "'. Model parameters must be created explicitly. To express '", name,
                      "' as a function of another Tensor, compute the value in the forward() method.");
    EMBER_CHECK(!requires_grad || is_floating(t.dtype()) || is_complex(t.dtype()),
                "only Tensors of floating point dtype can require gradients");
    value = is_parameter(t) ? t : Parameter(t, requires_grad);
    if (is_parameter(t)) value.requires_grad_(requires_grad);
  }
  parameters_.push_back({name, value, true});
  return parameters_.back().value;
}

Tensor& Module::register_buffer(const std::string& name, const Tensor& t, bool persistent) {
  check_new_name("Buffer", name);
  buffers_.push_back({name, t, persistent});
  return buffers_.back().value;
}

void Module::register_module_impl(const std::string& name, std::shared_ptr<Module> module) {
  check_new_name("Submodule", name);
  children_.emplace_back(name, std::move(module));
}

void Module::replace_module(const std::string& name, std::shared_ptr<Module> module) {
  for (auto& [n, m] : children_) {
    if (n == name) {
      m = std::move(module);
      return;
    }
  }
  EMBER_FAIL("No Module with name `", name, "` is registered");
}

void Module::unregister_module(const std::string& name) {
  for (auto it = children_.begin(); it != children_.end(); ++it) {
    if (it->first == name) {
      children_.erase(it);
      return;
    }
  }
  EMBER_FAIL("No Module with name `", name, "` is registered");
}

bool Module::has_parameter(const std::string& name) const { return find_slot(parameters_, name); }
bool Module::has_buffer(const std::string& name) const { return find_slot(buffers_, name); }

Tensor& Module::parameter(const std::string& name) {
  Slot* s = find_slot(parameters_, name);
  if (!s && has_tensor_attribute(name)) return tensor_attribute(name);
  EMBER_CHECK_KIND(ErrorKind::Attribute, s, "'", type_name(), "' object has no parameter '", name, "'");
  return s->value;
}
ParameterRef Module::register_parameter_ref(const std::string& name, const Tensor& t,
                                            bool requires_grad) {
  register_parameter(name, t, requires_grad);
  return ParameterRef(this, name);
}
BufferRef Module::register_buffer_ref(const std::string& name, const Tensor& t, bool persistent) {
  register_buffer(name, t, persistent);
  return BufferRef(this, name);
}
ParameterRef Module::parameter_ref(const std::string& name) {
  parameter(name);  // AttributeError when absent
  return ParameterRef(this, name);
}
BufferRef Module::buffer_ref(const std::string& name) {
  buffer(name);
  return BufferRef(this, name);
}

Tensor& Module::buffer(const std::string& name) {
  Slot* s = find_slot(buffers_, name);
  EMBER_CHECK_KIND(ErrorKind::Attribute, s, "'", type_name(), "' object has no buffer '", name, "'");
  return s->value;
}
std::shared_ptr<Module> Module::child(const std::string& name) const {
  for (const auto& [n, m] : children_)
    if (n == name) return m;
  EMBER_FAIL_KIND(ErrorKind::Attribute, "'", type_name(), "' object has no submodule '", name, "'");
}
bool Module::is_buffer_persistent(const std::string& name) const {
  const Slot* s = find_slot(buffers_, name);
  EMBER_CHECK_KIND(ErrorKind::Attribute, s, "'", type_name(), "' object has no buffer '", name, "'");
  return s->persistent;
}

// ---- tensor attributes ----
//
// Note [Tensor attributes]: a C++ layer reads its weight through `parameter("weight")`. torch's
// weight_norm / spectral_norm hooks delete the parameter and set a plain attribute of the same
// name before each forward, and parametrize replaces it by a property; here both are a tensor
// attribute of the C++ module, which parameter() falls back to, so the layers' own forwards see
// the reparametrized tensor whichever front end calls them. A getter receives the module it
// belongs to (not a captured pointer), so a clone's copy computes from the clone.

bool Module::has_tensor_attribute(const std::string& name) const {
  for (const auto& a : tensor_attributes_)
    if (a.name == name) return true;
  return false;
}

bool Module::tensor_attribute_is_computed(const std::string& name) const {
  for (const auto& a : tensor_attributes_)
    if (a.name == name) return static_cast<bool>(a.getter);
  return false;
}

void Module::set_tensor_attribute(const std::string& name, const Tensor& value) {
  for (auto& a : tensor_attributes_) {
    if (a.name == name) {
      a.value = value;
      a.getter = nullptr;
      return;
    }
  }
  tensor_attributes_.push_back({name, value, nullptr});
}

void Module::set_tensor_attribute_getter(const std::string& name, TensorGetter getter) {
  for (auto& a : tensor_attributes_) {
    if (a.name == name) {
      a.value = Tensor();
      a.getter = std::move(getter);
      return;
    }
  }
  tensor_attributes_.push_back({name, Tensor(), std::move(getter)});
}

Tensor& Module::tensor_attribute(const std::string& name) {
  for (auto& a : tensor_attributes_) {
    if (a.name != name) continue;
    if (a.getter) {
      // Copy the getter first: it may run front-end code that changes the attribute list.
      TensorGetter getter = a.getter;
      Tensor v = getter(*this);
      for (auto& b : tensor_attributes_)
        if (b.name == name) return b.value = v;
      EMBER_FAIL_KIND(ErrorKind::Attribute, "'", type_name(), "' object has no attribute '", name,
                      "'");
    }
    return a.value;
  }
  EMBER_FAIL_KIND(ErrorKind::Attribute, "'", type_name(), "' object has no attribute '", name, "'");
}

bool Module::remove_tensor_attribute(const std::string& name) {
  return std::erase_if(tensor_attributes_, [&](const auto& a) { return a.name == name; }) > 0;
}

// ---- traversal ----

namespace {
std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}
}  // namespace

Module::NamedModules Module::named_children() const {
  NamedModules out("Module");
  std::unordered_set<const Module*> seen;  // a module under two names is listed once
  for (const auto& [n, m] : children_)
    if (m && seen.insert(m.get()).second) out.insert(n, m);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> out;
  std::unordered_set<const Module*> seen;
  for (const auto& [n, m] : children_)
    if (m && seen.insert(m.get()).second) out.push_back(m);
  return out;
}

Module::NamedModules Module::named_modules(const std::string& prefix, bool remove_duplicate) {
  std::shared_ptr<Module> self = weak_from_this().lock();
  EMBER_CHECK(self,
              "It looks like you attempted to retrieve your top-level module as a shared_ptr, but "
              "it is not stored in a shared_ptr. Use .ptr() instead to get a shared_ptr to your "
              "top-level module.");
  NamedModules out("Module");
  std::unordered_set<const Module*> seen;
  std::function<void(const std::string&, const std::shared_ptr<Module>&)> visit =
      [&](const std::string& p, const std::shared_ptr<Module>& m) {
        if (remove_duplicate && !seen.insert(m.get()).second) return;
        detail::ModuleDepthGuard depth;
        out.insert(p, m);
        for (const auto& [n, c] : m->children_)
          if (c) visit(join(p, n), c);
      };
  visit(prefix, self);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules() { return named_modules().values(); }

void Module::visit(const std::string& prefix, bool recurse, bool remove_duplicate,
                   std::unordered_set<const Module*>& seen,
                   const std::function<void(const Module&, const std::string&)>& fn) const {
  if (remove_duplicate && !seen.insert(this).second) return;
  detail::ModuleDepthGuard depth;
  fn(*this, prefix);
  if (!recurse) return;
  for (const auto& [n, c] : children_) {
    if (c) c->visit(join(prefix, n), true, remove_duplicate, seen, fn);
  }
}

void Module::named_members(std::deque<Slot> Module::*slots, const std::string& prefix,
                           bool recurse, bool remove_duplicate,
                           const std::function<void(std::string, const Tensor&)>& out) const {
  std::unordered_set<const TensorImpl*> seen_tensors;
  std::unordered_set<const Module*> seen_modules;
  visit(prefix, recurse, remove_duplicate, seen_modules, [&](const Module& m, const std::string& p) {
    for (const auto& s : m.*slots) {
      if (!s.value.defined()) continue;
      if (remove_duplicate && !seen_tensors.insert(s.value.impl()).second) continue;
      out(join(p, s.name), s.value);
    }
  });
}

Module::NamedTensors Module::named_parameters(const std::string& prefix, bool recurse,
                                              bool remove_duplicate) const {
  NamedTensors out("Parameter");
  named_members(&Module::parameters_, prefix, recurse, remove_duplicate,
                [&](std::string name, const Tensor& t) { out.insert(std::move(name), t); });
  return out;
}

// parameters() / buffers() skip the dict's index: optimizers and zero_grad call them often.
std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> out;
  named_members(&Module::parameters_, "", recurse, true,
                [&](std::string, const Tensor& t) { out.push_back(t); });
  return out;
}

Module::NamedTensors Module::named_buffers(const std::string& prefix, bool recurse,
                                           bool remove_duplicate) const {
  NamedTensors out("Buffer");
  named_members(&Module::buffers_, prefix, recurse, remove_duplicate,
                [&](std::string name, const Tensor& t) { out.insert(std::move(name), t); });
  return out;
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  std::vector<Tensor> out;
  named_members(&Module::buffers_, "", recurse, true,
                [&](std::string, const Tensor& t) { out.push_back(t); });
  return out;
}

// ---- modes and bulk operations ----

Module& Module::apply(const std::function<void(Module&)>& fn) {
  detail::ModuleDepthGuard depth;
  for (const auto& c : children()) c->apply(fn);
  fn(*this);
  return *this;
}

Module& Module::train(bool mode) {
  detail::ModuleDepthGuard depth;
  training_ = mode;
  for (const auto& c : children()) c->train(mode);
  return *this;
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& p : parameters()) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    if (set_to_none) {
      p.set_grad(Tensor());
      continue;
    }
    if (g.grad_fn()) {
      g.detach_();
    } else {
      g.requires_grad_(false);
    }
    NoGradGuard no_grad;
    g.zero_();
  }
}

Module& Module::requires_grad_(bool requires_grad) {
  for (Tensor& p : parameters()) p.requires_grad_(requires_grad);
  return *this;
}

// ---- hooks ----

namespace {
// Every hook list holds (id, hook) pairs; ids are unique across lists so remove_hook needs one.
template <class List, class Hook>
unsigned add_hook(List& list, Hook hook) {
  const unsigned id = g_next_hook_id++;
  list.emplace_back(id, std::move(hook));
  return id;
}
}  // namespace

unsigned Module::register_forward_pre_hook(ForwardPreHook hook) {
  return add_hook(forward_pre_hooks_, std::move(hook));
}
unsigned Module::register_forward_hook(ForwardHook hook) {
  return add_hook(forward_hooks_, std::move(hook));
}
unsigned Module::register_state_dict_pre_hook(StateDictPreHook hook) {
  return add_hook(state_dict_pre_hooks_, std::move(hook));
}
unsigned Module::register_state_dict_post_hook(StateDictPostHook hook) {
  return add_hook(state_dict_post_hooks_, std::move(hook));
}
unsigned Module::register_load_state_dict_pre_hook(LoadPreHook hook) {
  return add_hook(load_pre_hooks_, std::move(hook));
}
unsigned Module::register_load_state_dict_post_hook(LoadPostHook hook) {
  return add_hook(load_post_hooks_, std::move(hook));
}
bool Module::has_state_dict_pre_hook(void (*fn)(Module&, const std::string&, bool)) const {
  for (const auto& [id, hook] : state_dict_pre_hooks_) {
    auto* target = hook.target<void (*)(Module&, const std::string&, bool)>();
    if (target && *target == fn) return true;
  }
  return false;
}

void Module::remove_hook(unsigned id) {
  auto match = [id](const auto& h) { return h.first == id; };
  std::erase_if(forward_pre_hooks_, match);
  std::erase_if(forward_hooks_, match);
  std::erase_if(state_dict_pre_hooks_, match);
  std::erase_if(state_dict_post_hooks_, match);
  std::erase_if(load_pre_hooks_, match);
  std::erase_if(load_post_hooks_, match);
}

// ---- repr ----

std::string Module::repr() const {
  detail::ModuleDepthGuard depth;
  std::vector<std::pair<std::string, const Module*>> children;
  for (const auto& [n, m] : children_) children.emplace_back(n, m.get());
  return detail::format_repr(type_name(), extra_repr(), children);
}

std::ostream& operator<<(std::ostream& os, const Module& m) { return os << m.repr(); }

}  // namespace ember::nn
