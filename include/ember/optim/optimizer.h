// torch.optim.Optimizer: parameter groups, per-parameter state, zero_grad, step, state_dict.
//
//   auto w = ember::zeros({3}).requires_grad_();
//   ember::optim::SGD opt({w}, {.lr = 0.1, .momentum = 0.9});
//   loss(w).backward();
//   opt.step();                                   // w -= 0.1 * momentum_buffer
//   opt.zero_grad();                              // w.grad() is undefined again
//   opt.param_groups()[0].params()[0].is_same(w); // true: groups hold the very handles
//   opt.param_groups()[0].set_lr(0.01);           // options are PyTorch's group dict entries
//
// Note [Optimizer state layout]: a group's options and a parameter's state are ValueDicts laid
// out as PyTorch's dicts ("lr", "momentum", "betas", ...; "step", "exp_avg", ...), in the same
// key order, so that state_dict() has PyTorch's shape and the Python front end can hand the
// dicts out as they are. State is keyed by the parameter's TensorImpl: the groups hold every
// parameter, so the key stays alive and unique, and a swap_tensors on a parameter (which swaps
// the impls' contents, not the impls) keeps its state attached.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/tensor.h"
#include "ember/value.h"

namespace ember::optim {

/// An insertion-ordered map from names to Values (a Python dict with str keys): a parameter
/// group's options, one parameter's state, a scheduler's state.
///   ValueDict d{{"lr", 0.1}, {"nesterov", true}};
///   d.set("lr", 0.05);  d.at("lr").to_double();  d.contains("momentum");  // false
class ValueDict {
 public:
  using Item = std::pair<std::string, Value>;

  ValueDict() = default;
  /// A later duplicate key replaces the earlier value (as in a Python dict display).
  ValueDict(std::initializer_list<Item> items);  // NOLINT: {{"lr", 0.1}} reads as a dict

  bool contains(std::string_view key) const { return find(key) != nullptr; }
  const Value* find(std::string_view key) const;
  Value* find(std::string_view key);
  /// The value of `key`; a KeyError naming it when absent.
  const Value& at(std::string_view key) const;
  Value& at(std::string_view key);
  /// d[key] = value: replaces in place (keeping the key's position) or appends.
  void set(std::string key, Value value);
  /// d.setdefault(key, value): appends when absent; returns the stored value.
  Value& setdefault(std::string key, Value value);
  /// Removes `key`; false when it was absent.
  bool erase(std::string_view key);

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  std::vector<std::string> keys() const;
  std::vector<Item>::const_iterator begin() const { return items_.begin(); }
  std::vector<Item>::const_iterator end() const { return items_.end(); }
  std::vector<Item>::iterator begin() { return items_.begin(); }
  std::vector<Item>::iterator end() { return items_.end(); }

 private:
  std::vector<Item> items_;
};

/// One parameter group: the Tensor handles it optimizes (the very handles given, so identity
/// holds) and its options. Options a group leaves out are filled from the optimizer's defaults
/// when the group is added.
///   ParamGroup({w1, w2}, {{"lr", 0.01}})        // this group's lr; the rest from defaults
class ParamGroup {
 public:
  ParamGroup(std::vector<Tensor> params, ValueDict options = {})  // NOLINT
      : params_(std::move(params)), options_(std::move(options)) {}

  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }
  ValueDict& options() { return options_; }
  const ValueDict& options() const { return options_; }

  /// group['lr'] (the option every optimizer has; schedulers read and write it).
  double lr() const;
  void set_lr(double lr) { options_.set("lr", lr); }

 private:
  std::vector<Tensor> params_;
  ValueDict options_;
};

/// Optimizer.state_dict() in PyTorch's layout:
///   {"state": {param index: {name: value}}, "param_groups": [{options..., "params": [indices]}]}.
/// Indices number the parameters group after group, in order. The state's tensors alias the
/// optimizer's (as PyTorch's do); load_state_dict copies them.
struct OptimizerStateDict {
  std::map<int64_t, ValueDict> state;
  std::vector<ValueDict> param_groups;
};

/// Re-evaluates the model and returns the loss (run with grad mode on).
using LossClosure = std::function<Tensor()>;

class Optimizer {
 public:
  using State = std::unordered_map<const TensorImpl*, ValueDict>;

  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// PyTorch's class name: "SGD", "Adam", "AdamW".
  virtual const char* name() const = 0;

  std::vector<ParamGroup>& param_groups() { return groups_; }
  const std::vector<ParamGroup>& param_groups() const { return groups_; }
  /// The options a new group starts from (a required option without a default is absent).
  const ValueDict& defaults() const { return defaults_; }

  /// Optimizer.add_param_group: checks the params (defined leaves, in no other group), fills
  /// the options the group leaves out from defaults(), and checks their types. On error nothing
  /// changes.
  void add_param_group(ParamGroup group);

  /// All per-parameter state, keyed by each parameter's TensorImpl.
  const State& state() const { return state_; }
  State& state() { return state_; }
  /// The state of `param` (created empty when absent, like PyTorch's defaultdict).
  ValueDict& state(const Tensor& param) { return state_[param.impl()]; }

  /// Clears every parameter's .grad: set_to_none drops it, otherwise it is detached and zeroed.
  /// (PyTorch 1.13's default is set_to_none=False; ember takes later PyTorch's True.)
  void zero_grad(bool set_to_none = true);

  /// One optimization step over every group, with grad mode off. With a closure, runs it first
  /// (grad mode on) and returns its loss; otherwise returns an undefined Tensor. Options and
  /// state are checked for every group before any parameter changes.
  Tensor step(const LossClosure& closure = nullptr);

  /// How many times step() ran since the last set_step_count (schedulers reset it to 0, as
  /// PyTorch's optimizer._step_count, to warn when they are stepped first).
  int64_t step_count() const { return step_count_; }
  void set_step_count(int64_t n) { step_count_ = n; }

  OptimizerStateDict state_dict() const;
  /// Optimizer.load_state_dict: the group count and sizes must match ("loaded state dict has a
  /// different number of parameter groups", "loaded state dict contains a parameter group that
  /// doesn't match the size of optimizer's group"); each group takes the saved options (keeping
  /// its params); state tensors are copied, floating ones cast to their parameter's dtype
  /// (except "step"). Everything is checked before anything changes.
  void load_state_dict(const OptimizerStateDict& state_dict);

  /// PyTorch's repr: "SGD (\nParameter Group 0\n    dampening: 0\n ...)".
  std::string repr() const;

 protected:
  /// `defaults` in PyTorch's key order; `required` names options that have no default and that
  /// every group must then give (SGD's lr).
  Optimizer(ValueDict defaults, std::vector<std::string> required = {});

  /// Adds the constructor's groups ("optimizer got an empty parameter list" when none). Derived
  /// constructors call it once their checks of the defaults passed.
  void init_param_groups(std::vector<ParamGroup> groups);
  static std::vector<ParamGroup> single_group(std::vector<Tensor> params);

  /// Checks a complete options dict (types and PyTorch's fixed flags); throws naming the option.
  virtual void check_options(const ValueDict& options) const = 0;
  /// Checks the state of `param` before a step may change anything (throws if unusable).
  virtual void check_state(const ParamGroup& group, const Tensor& param,
                           const ValueDict& state) const = 0;
  /// Updates one group's parameters (grad mode is off).
  virtual void update(ParamGroup& group) = 0;
  /// Turns a loaded state entry into the one to keep for `param` (copies made, dtypes cast);
  /// optimizers override it to accept older layouts and to check shapes.
  virtual ValueDict load_param_state(const Tensor& param, const ValueDict& saved) const;

 private:
  ValueDict defaults_;
  std::vector<std::string> required_;
  std::vector<ParamGroup> groups_;
  State state_;
  int64_t step_count_ = 0;
};

std::ostream& operator<<(std::ostream& os, const Optimizer& opt);

}  // namespace ember::optim
