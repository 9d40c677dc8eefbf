// torch.optim's adaptive optimizers beyond Adam: RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam.
//
//   ember::optim::RMSprop opt(params, {.lr = 1e-2, .momentum = 0.9, .centered = true});
//   ember::optim::Adagrad ada(params, {.lr_decay = 1e-4});
//
// Each update is torch 1.13's single-tensor algorithm, op for op and in the same order, so that
// float32 / float64 trajectories equal torch's; options, state keys and their order, and error
// texts are torch's (state_dict() has torch's layout):
//   RMSprop   group: lr, momentum, alpha, eps, centered, weight_decay, foreach, maximize,
//                    differentiable          state: step (int), square_avg, momentum_buffer
//                                            (momentum > 0), grad_avg (centered)
//   Adagrad   group: lr, lr_decay, eps, weight_decay, initial_accumulator_value, foreach,
//                    maximize                state (made at construction, as torch's): step
//                                            (0-d float32 tensor), sum
//   Adadelta  group: lr, rho, eps, weight_decay, maximize, foreach
//                                            state: step (int), square_avg, acc_delta
//   Adamax    group: lr, betas, eps, weight_decay, foreach, maximize
//                                            state: step (tensor), exp_avg, exp_inf
//   NAdam     group: lr, betas, eps, weight_decay, momentum_decay, foreach
//                                            state: step, mu_product (tensors), exp_avg, exp_avg_sq
//   RAdam     group: lr, betas, eps, weight_decay, foreach
//                                            state: step (tensor), exp_avg, exp_avg_sq
// foreach is accepted (None, True or False) and kept in the group; ember runs the single-tensor
// algorithm whatever it says. differentiable must be False.
#pragma once

#include <array>
#include <optional>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct RMSpropOptions {
  double lr = 1e-2;
  double alpha = 0.99;
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum = 0;
  bool centered = false;
  std::optional<bool> foreach = std::nullopt;
  bool maximize = false;
  ValueDict to_dict() const;
};

struct AdagradOptions {
  double lr = 1e-2;
  double lr_decay = 0;
  double weight_decay = 0;
  double initial_accumulator_value = 0;
  double eps = 1e-10;
  std::optional<bool> foreach = std::nullopt;
  bool maximize = false;
  ValueDict to_dict() const;
};

struct AdadeltaOptions {
  double lr = 1.0;
  double rho = 0.9;
  double eps = 1e-6;
  double weight_decay = 0;
  std::optional<bool> foreach = std::nullopt;
  bool maximize = false;
  ValueDict to_dict() const;
};

struct AdamaxOptions {
  double lr = 2e-3;
  std::array<double, 2> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  std::optional<bool> foreach = std::nullopt;
  bool maximize = false;
  ValueDict to_dict() const;
};

struct NAdamOptions {
  double lr = 2e-3;
  std::array<double, 2> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum_decay = 4e-3;
  std::optional<bool> foreach = std::nullopt;
  ValueDict to_dict() const;
};

struct RAdamOptions {
  double lr = 1e-3;
  std::array<double, 2> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  std::optional<bool> foreach = std::nullopt;
  ValueDict to_dict() const;
};

/// What the six share: state checks (each named tensor fits its parameter), loading older
/// layouts (a number "step" / "mu_product" becomes the tensor torch 1.13 keeps), option checks.
class AdaptiveOptimizer : public Optimizer {
 protected:
  /// tensor_keys: the state's moment tensors (checked against the parameter's shape and device
  /// when present); tensor_scalars: the state's 0-d tensors ("step", "mu_product") that older
  /// checkpoints hold as numbers.
  AdaptiveOptimizer(ValueDict defaults, std::vector<std::string> tensor_keys,
                    std::vector<std::string> tensor_scalars);
  void check_state(const ParamGroup& group, const Tensor& param,
                   const ValueDict& state) const override;
  ValueDict load_param_state(const Tensor& param, const ValueDict& saved) const override;
  /// Checks every option's type (floats, bools, betas) and foreach / differentiable.
  void check_common(const ValueDict& options) const;

 private:
  void check_param_state(const Tensor& param, const ValueDict& state) const;
  std::vector<std::string> tensor_keys_, tensor_scalars_;
};

class RMSprop : public AdaptiveOptimizer {
 public:
  /// ValueErrors as torch: "Invalid learning rate: ...", "Invalid epsilon value: ...",
  /// "Invalid momentum value: ...", "Invalid weight_decay value: ...", "Invalid alpha value: ...".
  RMSprop(std::vector<Tensor> params, const RMSpropOptions& defaults = {});
  RMSprop(std::vector<ParamGroup> groups, const RMSpropOptions& defaults = {});
  const char* name() const override { return "RMSprop"; }

 protected:
  void check_options(const ValueDict& options) const override;
  void update(ParamGroup& group) override;
};

class Adagrad : public AdaptiveOptimizer {
 public:
  Adagrad(std::vector<Tensor> params, const AdagradOptions& defaults = {});
  Adagrad(std::vector<ParamGroup> groups, const AdagradOptions& defaults = {});
  const char* name() const override { return "Adagrad"; }

 protected:
  void check_options(const ValueDict& options) const override;
  void update(ParamGroup& group) override;

 private:
  void init_state(const ParamGroup& group, const Tensor& param);
};

class Adadelta : public AdaptiveOptimizer {
 public:
  Adadelta(std::vector<Tensor> params, const AdadeltaOptions& defaults = {});
  Adadelta(std::vector<ParamGroup> groups, const AdadeltaOptions& defaults = {});
  const char* name() const override { return "Adadelta"; }

 protected:
  void check_options(const ValueDict& options) const override;
  void update(ParamGroup& group) override;
};

class Adamax : public AdaptiveOptimizer {
 public:
  Adamax(std::vector<Tensor> params, const AdamaxOptions& defaults = {});
  Adamax(std::vector<ParamGroup> groups, const AdamaxOptions& defaults = {});
  const char* name() const override { return "Adamax"; }

 protected:
  void check_options(const ValueDict& options) const override;
  void update(ParamGroup& group) override;
};

class NAdam : public AdaptiveOptimizer {
 public:
  NAdam(std::vector<Tensor> params, const NAdamOptions& defaults = {});
  NAdam(std::vector<ParamGroup> groups, const NAdamOptions& defaults = {});
  const char* name() const override { return "NAdam"; }

 protected:
  void check_options(const ValueDict& options) const override;
  void update(ParamGroup& group) override;
};

class RAdam : public AdaptiveOptimizer {
 public:
  RAdam(std::vector<Tensor> params, const RAdamOptions& defaults = {});
  RAdam(std::vector<ParamGroup> groups, const RAdamOptions& defaults = {});
  const char* name() const override { return "RAdam"; }

 protected:
  void check_options(const ValueDict& options) const override;
  void update(ParamGroup& group) override;
};

}  // namespace ember::optim
