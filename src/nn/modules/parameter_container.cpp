// nn::ParameterList / ParameterDict: parameters registered under "0", "1", ... or their keys.
#include "ember/nn/modules/parameter_container.h"

#include <algorithm>
#include <sstream>

#include "ember/autograd/saved_variable.h"
#include "ember/nn/module_clone.h"

namespace ember::nn {

namespace {
Tensor as_parameter(const Tensor& t) {
  if (!t.defined() || t.is_parameter()) return t;
  return Parameter(t);
}
std::string size_x(const Tensor& t) {
  std::ostringstream os;
  for (int64_t i = 0; i < t.dim(); ++i) os << (i ? "x" : "") << t.size(i);
  return os.str();
}
}  // namespace

ParameterList::ParameterList(const std::vector<Tensor>& values) : Module("ParameterList") {
  extend(values);
}

void ParameterList::append(const Tensor& value) {
  register_parameter(std::to_string(count_), as_parameter(value), value.defined() ? value.requires_grad() : true);
  ++count_;
}

void ParameterList::extend(const std::vector<Tensor>& values) {
  for (const Tensor& v : values) append(v);
}

int64_t ParameterList::wrap(int64_t index) const {
  const auto n = static_cast<int64_t>(count_);
  EMBER_CHECK_INDEX(index >= -n && index < n, "index ", index, " is out of range");
  return index < 0 ? index + n : index;
}

Tensor& ParameterList::at(int64_t index) { return parameter(std::to_string(wrap(index))); }

void ParameterList::set(int64_t index, const Tensor& value) {
  parameter(std::to_string(wrap(index))) = as_parameter(value);
}

// PyTorch's ParameterList.extra_repr: one "(k): Parameter containing: [dtype of size AxB]" line each.
std::string ParameterList::extra_repr() const {
  std::string out;
  auto& self = const_cast<ParameterList&>(*this);
  for (size_t k = 0; k < count_; ++k) {
    const Tensor& p = self.parameter(std::to_string(k));
    if (k) out += "\n";
    out += "  (" + std::to_string(k) + "): " + (p.is_parameter() ? "Parameter" : "Tensor") +
           " containing: [" + dtype_repr(p.dtype()) + " of size " + size_x(p) + "]";
  }
  return out;
}

ParameterDict::ParameterDict(const std::vector<std::pair<std::string, Tensor>>& values)
    : Module("ParameterDict") {
  for (const auto& [k, v] : values) set(k, v);
}

void ParameterDict::set(const std::string& key, const Tensor& value) {
  if (has_parameter(key)) {
    parameter(key) = as_parameter(value);
    return;
  }
  register_parameter(key, as_parameter(value), value.defined() ? value.requires_grad() : true);
}

Tensor& ParameterDict::get(const std::string& key) {
  EMBER_CHECK_KIND(ErrorKind::Key, has_parameter(key), "'", key, "'");
  return parameter(key);
}

Tensor ParameterDict::pop(const std::string& key) {
  Tensor v = get(key);
  auto& slots = parameter_slots();
  slots.erase(std::find_if(slots.begin(), slots.end(), [&](const auto& s) { return s.name == key; }));
  return v;
}

void ParameterDict::clear() { parameter_slots().clear(); }

std::vector<std::string> ParameterDict::keys() const {
  std::vector<std::string> out;
  for (const auto& [name, t] : named_parameters("", false, false)) out.push_back(name);
  return out;
}

// PyTorch 1.13's ParameterDict.extra_repr: "(key): Parameter containing: [ember.FloatTensor of
// size 3]" (the legacy type name, unlike ParameterList's dtype).
std::string ParameterDict::extra_repr() const {
  std::string out;
  auto& self = const_cast<ParameterDict&>(*this);
  bool first = true;
  for (const std::string& k : keys()) {
    const Tensor& p = self.parameter(k);
    std::string type = autograd::legacy_type_name(p);
    if (type.rfind("torch.", 0) == 0) type = "ember." + type.substr(6);
    out += (first ? "" : "\n");
    first = false;
    out += "  (" + k + "): " + (p.is_parameter() ? "Parameter" : "Tensor") + " containing: [" + type +
           " of size " + size_x(p) + "]";
  }
  return out;
}

namespace {
const bool registered = [] {
  register_cloneable<ParameterList>();
  register_cloneable<ParameterDict>();
  return true;
}();
}  // namespace

}  // namespace ember::nn
