// torch.optim.Adam and torch.optim.AdamW.
//
//   ember::optim::Adam adam(params, {.lr = 1e-3, .betas = {0.9, 0.999}, .amsgrad = true});
//   ember::optim::AdamW adamw(params, {.weight_decay = 0.05});
//
// The update is torch 1.13's single-tensor algorithm, op for op (t = ++state["step"]):
//   g = maximize ? -grad : grad
//   Adam: g += weight_decay * p            AdamW: p *= 1 - lr * weight_decay
//   m = beta1 * m + (1 - beta1) * g;        v = beta2 * v + (1 - beta2) * g * g
//   v_max = max(v_max, v) (amsgrad);        denom = sqrt(v_max or v) / sqrt(1 - beta2^t) + eps
//   p -= lr / (1 - beta1^t) * m / denom
// State per parameter: "step" (a 0-d float32 tensor, as PyTorch's), "exp_avg", "exp_avg_sq",
// and "max_exp_avg_sq" with amsgrad.
#pragma once

#include <array>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdamOptions {
  double lr = 1e-3;
  std::array<double, 2> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  bool amsgrad = false;
  bool maximize = false;

  /// PyTorch's group dict: lr, betas, eps, weight_decay, amsgrad, maximize, foreach (None),
  /// capturable, differentiable, fused (False).
  ValueDict to_dict() const;
  /// Reads a group's options (TypeError naming a mistyped one; foreach, capturable,
  /// differentiable and fused must be None/False: ember runs the single-tensor algorithm).
  static AdamOptions from_dict(const ValueDict& options);
};

/// AdamW's options: Adam's, with weight_decay defaulting to 1e-2 (decoupled decay).
struct AdamWOptions {
  double lr = 1e-3;
  std::array<double, 2> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 1e-2;
  bool amsgrad = false;
  bool maximize = false;

  /// PyTorch's group dict: lr, betas, eps, weight_decay, amsgrad, foreach (None), maximize,
  /// capturable (False).
  ValueDict to_dict() const;
  static AdamWOptions from_dict(const ValueDict& options);
};

/// Shared by Adam and AdamW: state creation, checks, loading.
class AdamBase : public Optimizer {
 protected:
  using Optimizer::Optimizer;
  void check_state(const ParamGroup& group, const Tensor& param,
                   const ValueDict& state) const override;
  ValueDict load_param_state(const Tensor& param, const ValueDict& saved) const override;
  /// The state of `param`, created (step 0, zero moments) on its first step.
  ValueDict& init_state(const Tensor& param, bool amsgrad);
  /// The update after the (weight) decay: moments, bias corrections, the parameter step.
  static void adam_update(Tensor param, const Tensor& grad, ValueDict& state, double lr,
                          double beta1, double beta2, double eps, bool amsgrad);
};

class Adam : public AdamBase {
 public:
  /// ValueErrors as PyTorch: "Invalid learning rate: ...", "Invalid epsilon value: ...",
  /// "Invalid beta parameter at index 0: ...", "Invalid weight_decay value: ...".
  Adam(std::vector<Tensor> params, const AdamOptions& defaults = {});
  Adam(std::vector<ParamGroup> groups, const AdamOptions& defaults = {});
  const char* name() const override { return "Adam"; }

 protected:
  void check_options(const ValueDict& options) const override;
  void update(ParamGroup& group) override;
};

class AdamW : public AdamBase {
 public:
  AdamW(std::vector<Tensor> params, const AdamWOptions& defaults = {});
  AdamW(std::vector<ParamGroup> groups, const AdamWOptions& defaults = {});
  const char* name() const override { return "AdamW"; }

 protected:
  void check_options(const ValueDict& options) const override;
  void update(ParamGroup& group) override;
};

}  // namespace ember::optim
