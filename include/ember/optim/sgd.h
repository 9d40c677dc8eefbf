// torch.optim.SGD: stochastic gradient descent with momentum, dampening, Nesterov, weight decay.
//
//   ember::optim::SGD opt(model_params, {.lr = 0.1, .momentum = 0.9, .nesterov = true});
//   ember::optim::SGD two({ember::optim::ParamGroup({w}),
//                          ember::optim::ParamGroup({b}, {{"lr", 0.01}})},
//                         {.lr = 0.1});
//
// The update is torch 1.13's single-tensor algorithm, op for op:
//   g = maximize ? -grad : grad;   g += weight_decay * p
//   buf = (first step) g  |  momentum * buf + (1 - dampening) * g
//   g = nesterov ? g + momentum * buf : buf;   p -= lr * g
#pragma once

#include <optional>

#include "ember/optim/optimizer.h"

namespace ember::optim {

/// The group options of SGD, as PyTorch's keyword arguments. lr has no default: give it here or
/// in every group.
struct SGDOptions {
  std::optional<double> lr = std::nullopt;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
  bool maximize = false;

  /// PyTorch's group dict: lr, momentum, dampening, weight_decay, nesterov, maximize,
  /// foreach (None), differentiable (False) — lr absent when unset.
  ValueDict to_dict() const;
  /// Reads a group's options (TypeError naming a mistyped one; foreach and differentiable must
  /// be None/False, as ember runs only the single-tensor algorithm).
  static SGDOptions from_dict(const ValueDict& options);
};

class SGD : public Optimizer {
 public:
  /// ValueErrors as PyTorch: "Invalid learning rate: -0.1", "Invalid momentum value: ...",
  /// "Invalid weight_decay value: ...", "Nesterov momentum requires a momentum and zero dampening".
  SGD(std::vector<Tensor> params, const SGDOptions& defaults);
  SGD(std::vector<ParamGroup> groups, const SGDOptions& defaults);

  const char* name() const override { return "SGD"; }

 protected:
  void check_options(const ValueDict& options) const override;
  void check_state(const ParamGroup& group, const Tensor& param,
                   const ValueDict& state) const override;
  void update(ParamGroup& group) override;
  ValueDict load_param_state(const Tensor& param, const ValueDict& saved) const override;

 private:
  static ValueDict checked_defaults(const SGDOptions& defaults);
};

}  // namespace ember::optim
