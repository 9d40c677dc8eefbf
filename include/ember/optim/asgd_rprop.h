// torch.optim.ASGD (averaged SGD) and torch.optim.Rprop (resilient backpropagation).
//
//   ember::optim::ASGD asgd(params, {.lr = 1e-2, .t0 = 100});
//   ember::optim::Rprop rprop(params, {.lr = 1e-2, .etas = {0.5, 1.2}});
//
// Each update is torch 1.13's single-tensor algorithm, op for op, so float32 / float64
// trajectories equal torch's; options, state keys and their order, and error texts are torch's:
//   ASGD   group: lr, lambd, alpha, t0, weight_decay, foreach, maximize
//                 state: step, eta, mu (0-d float32 tensors), ax (the running average of the
//                 parameter, from step t0 on)
//   Rprop  group: lr, etas, step_sizes, foreach, maximize
//                 state: step (int), prev (the last gradient used), step_size (per element)
// Complex parameters are updated as their real views, as torch's. foreach (None, True or
// False) is kept in the group; ember runs the single-tensor algorithm whatever it says.
// Known difference: PyTorch's default step_sizes is the tuple (1e-06, 50), with an int 50; the
// group here keeps two floats, so it prints (1e-06, 50.0).
#pragma once

#include <array>
#include <optional>

#include "ember/optim/adaptive.h"

namespace ember::optim {

struct ASGDOptions {
  double lr = 1e-2;
  double lambd = 1e-4;
  double alpha = 0.75;
  double t0 = 1e6;
  double weight_decay = 0;
  std::optional<bool> foreach = std::nullopt;
  bool maximize = false;
  ValueDict to_dict() const;
};

struct RpropOptions {
  double lr = 1e-2;
  std::array<double, 2> etas = {0.5, 1.2};
  std::array<double, 2> step_sizes = {1e-6, 50};
  std::optional<bool> foreach = std::nullopt;
  bool maximize = false;
  ValueDict to_dict() const;
};

class ASGD : public AdaptiveOptimizer {
 public:
  /// ValueErrors as torch: "Invalid learning rate: ...", "Invalid weight_decay value: ...".
  ASGD(std::vector<Tensor> params, const ASGDOptions& defaults = {});
  ASGD(std::vector<ParamGroup> groups, const ASGDOptions& defaults = {});
  const char* name() const override { return "ASGD"; }

 protected:
  void check_options(const ValueDict& options) const override;
  void update(ParamGroup& group) override;
};

class Rprop : public AdaptiveOptimizer {
 public:
  /// ValueErrors as torch: "Invalid learning rate: ...", "Invalid eta values: 0.5, 1.2" (unless
  /// 0 < etaminus < 1 < etaplus).
  Rprop(std::vector<Tensor> params, const RpropOptions& defaults = {});
  Rprop(std::vector<ParamGroup> groups, const RpropOptions& defaults = {});
  const char* name() const override { return "Rprop"; }

 protected:
  void check_options(const ValueDict& options) const override;
  void update(ParamGroup& group) override;
};

}  // namespace ember::optim
