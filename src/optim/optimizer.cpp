#include "ember/optim/optimizer.h"

#include <algorithm>
#include <ostream>
#include <unordered_set>

#include "ember/grad_mode.h"
#include "ember/warning.h"
#include "optim_util.h"

namespace ember::optim {

// ---- ValueDict ----

ValueDict::ValueDict(std::initializer_list<Item> items) {
  for (const auto& [k, v] : items) set(k, v);
}

const Value* ValueDict::find(std::string_view key) const {
  for (const auto& item : items_)
    if (item.first == key) return &item.second;
  return nullptr;
}

Value* ValueDict::find(std::string_view key) {
  return const_cast<Value*>(static_cast<const ValueDict*>(this)->find(key));
}

const Value& ValueDict::at(std::string_view key) const {
  const Value* v = find(key);
  EMBER_CHECK_KIND(ErrorKind::Key, v != nullptr, "'", key, "'");
  return *v;
}

Value& ValueDict::at(std::string_view key) {
  return const_cast<Value&>(static_cast<const ValueDict*>(this)->at(key));
}

void ValueDict::set(std::string key, Value value) {
  if (Value* v = find(key)) {
    *v = std::move(value);
  } else {
    items_.emplace_back(std::move(key), std::move(value));
  }
}

Value& ValueDict::setdefault(std::string key, Value value) {
  if (Value* v = find(key)) return *v;
  items_.emplace_back(std::move(key), std::move(value));
  return items_.back().second;
}

bool ValueDict::erase(std::string_view key) {
  auto it =
      std::find_if(items_.begin(), items_.end(), [&](const Item& i) { return i.first == key; });
  if (it == items_.end()) return false;
  items_.erase(it);
  return true;
}

std::vector<std::string> ValueDict::keys() const {
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const auto& item : items_) out.push_back(item.first);
  return out;
}

double ParamGroup::lr() const { return detail::option_double(options_, "lr"); }

// ---- Optimizer ----

Optimizer::Optimizer(ValueDict defaults, std::vector<std::string> required)
    : defaults_(std::move(defaults)), required_(std::move(required)) {}

std::vector<ParamGroup> Optimizer::single_group(std::vector<Tensor> params) {
  std::vector<ParamGroup> groups;
  if (!params.empty()) groups.emplace_back(std::move(params));
  return groups;
}

void Optimizer::init_param_groups(std::vector<ParamGroup> groups) {
  EMBER_CHECK_VALUE(!groups.empty(), "optimizer got an empty parameter list");
  for (auto& g : groups) add_param_group(std::move(g));
}

void Optimizer::add_param_group(ParamGroup group) {
  for (const Tensor& p : group.params()) {
    EMBER_CHECK_TYPE(p.defined(),
                     "optimizer can only optimize Tensors, but one of the params is NoneType");
    EMBER_CHECK_VALUE(p.is_leaf() || p.retains_grad(), "can't optimize a non-leaf Tensor");
  }
  ValueDict& options = group.options();
  EMBER_CHECK_VALUE(!options.contains("params"),
                    "a param group's options must not contain 'params': its tensors are the "
                    "group's params");
  for (const std::string& name : required_) {
    EMBER_CHECK_VALUE(options.contains(name) || defaults_.contains(name),
                      "parameter group didn't specify a value of required optimization parameter ",
                      name);
  }
  for (const auto& [name, value] : defaults_) options.setdefault(name, value);

  std::unordered_set<const TensorImpl*> mine;
  for (const Tensor& p : group.params()) mine.insert(p.impl());
  if (mine.size() != group.params().size()) {
    warn(
        "optimizer contains a parameter group with duplicate parameters; in future, this will "
        "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information");
  }
  for (const ParamGroup& g : groups_) {
    for (const Tensor& p : g.params()) {
      EMBER_CHECK_VALUE(!mine.count(p.impl()),
                        "some parameters appear in more than one parameter group");
    }
  }
  check_options(options);
  groups_.push_back(std::move(group));
}

void Optimizer::zero_grad(bool set_to_none) {
  for (ParamGroup& g : groups_) {
    for (const Tensor& p : g.params()) {
      Tensor grad = p.grad();
      if (!grad.defined()) continue;
      if (set_to_none) {
        p.set_grad(Tensor());
        continue;
      }
      if (grad.grad_fn()) {
        grad.detach_();
      } else {
        grad.requires_grad_(false);
      }
      grad.zero_();
    }
  }
}

Tensor Optimizer::step(const LossClosure& closure) {
  Tensor loss;
  if (closure) {
    AutoGradMode enable(true);
    loss = closure();
  }
  NoGradGuard no_grad;
  // Everything a step reads is checked first, so that a bad option or state in a later group
  // cannot leave earlier groups stepped and later ones not.
  for (const ParamGroup& g : groups_) {
    check_options(g.options());
    for (const Tensor& p : g.params()) {
      if (!p.grad().defined()) continue;
      auto it = state_.find(p.impl());
      if (it != state_.end()) check_state(g, p, it->second);
    }
  }
  for (ParamGroup& g : groups_) update(g);
  ++step_count_;
  return loss;
}

OptimizerStateDict Optimizer::state_dict() const {
  OptimizerStateDict sd;
  // Numbered as PyTorch's pack_group: group after group, a repeated tensor keeping its first index.
  std::unordered_map<const TensorImpl*, int64_t> index;
  int64_t start = 0;
  for (const ParamGroup& g : groups_) {
    ValueDict packed = g.options();
    std::vector<int64_t> ids;
    for (size_t j = 0; j < g.params().size(); ++j) {
      const TensorImpl* impl = g.params()[j].impl();
      index.try_emplace(impl, start + static_cast<int64_t>(j));
      ids.push_back(index.at(impl));
    }
    start += static_cast<int64_t>(ids.size());
    packed.set("params", std::move(ids));
    sd.param_groups.push_back(std::move(packed));
  }
  // State of a tensor that is in no group (a group edited by hand) has no index: it is left out.
  for (const auto& [impl, st] : state_) {
    auto it = index.find(impl);
    if (it != index.end()) sd.state.emplace(it->second, st);
  }
  return sd;
}

ValueDict Optimizer::load_param_state(const Tensor& param, const ValueDict& saved) const {
  // PyTorch deep-copies the state dict, then casts floating tensors to the parameter's dtype and
  // every tensor to its device, except "step".
  ValueDict out;
  for (const auto& [key, value] : saved) {
    if (value.is_tensor() && value.to_tensor().defined()) {
      const Tensor& t = value.to_tensor();
      Tensor copy;
      if (key == "step") {
        copy = t.clone();
      } else {
        ScalarType dt = param.is_floating_point() ? param.dtype() : t.dtype();
        copy = t.to(param.device(), dt, /*copy=*/true);
      }
      out.set(key, std::move(copy));
    } else {
      out.set(key, value);
    }
  }
  return out;
}

void Optimizer::load_state_dict(const OptimizerStateDict& sd) {
  EMBER_CHECK_VALUE(groups_.size() == sd.param_groups.size(),
                    "loaded state dict has a different number of parameter groups");
  std::vector<const std::vector<int64_t>*> saved_ids;
  for (size_t i = 0; i < sd.param_groups.size(); ++i) {
    const Value* ids = sd.param_groups[i].find("params");
    EMBER_CHECK_VALUE(ids != nullptr && ids->is_int_list(), "loaded state dict's param_groups[", i,
                      "] has no 'params' list of parameter indices");
    saved_ids.push_back(&ids->to_int_list());
  }
  for (size_t i = 0; i < groups_.size(); ++i) {
    EMBER_CHECK_VALUE(saved_ids[i]->size() == groups_[i].params().size(),
                      "loaded state dict contains a parameter group that doesn't match the size "
                      "of optimizer's group");
  }
  std::unordered_map<int64_t, Tensor> id_map;
  for (size_t i = 0; i < groups_.size(); ++i) {
    for (size_t j = 0; j < groups_[i].params().size(); ++j) {
      id_map[(*saved_ids[i])[j]] = groups_[i].params()[j];
    }
  }

  NoGradGuard no_grad;
  std::vector<ValueDict> options;
  for (const ValueDict& saved : sd.param_groups) {
    ValueDict o;
    for (const auto& [k, v] : saved)
      if (k != "params") o.set(k, v);
    // Options an older checkpoint lacks take their defaults (PyTorch's __setstate__ setdefaults).
    for (const auto& [k, v] : defaults_) o.setdefault(k, v);
    check_options(o);
    options.push_back(std::move(o));
  }
  State state;
  for (const auto& [idx, saved] : sd.state) {
    auto it = id_map.find(idx);
    EMBER_CHECK_VALUE(it != id_map.end(), "loaded state dict has state for parameter ", idx,
                      ", which none of its param_groups lists");
    state[it->second.impl()] = load_param_state(it->second, saved);
  }

  for (size_t i = 0; i < groups_.size(); ++i) groups_[i].options() = std::move(options[i]);
  state_ = std::move(state);
}

std::string Optimizer::repr() const {
  std::string s = std::string(name()) + " (";
  for (size_t i = 0; i < groups_.size(); ++i) {
    s += "\nParameter Group " + std::to_string(i) + "\n";
    std::vector<std::string> keys = groups_[i].options().keys();
    std::sort(keys.begin(), keys.end());
    for (const std::string& k : keys) {
      s += "    " + k + ": " + detail::py_str(groups_[i].options().at(k)) + "\n";
    }
  }
  return s + ")";
}

std::ostream& operator<<(std::ostream& os, const Optimizer& opt) { return os << opt.repr(); }

}  // namespace ember::optim
