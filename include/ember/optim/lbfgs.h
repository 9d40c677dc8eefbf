// torch.optim.LBFGS: limited-memory BFGS with an optional strong-Wolfe line search, as torch
// 1.13's algorithm (one parameter group; the step needs a closure that re-evaluates the loss).
//
//   ember::optim::LBFGS opt({x}, {.lr = 1, .history_size = 10, .line_search_fn = "strong_wolfe"});
//   auto closure = [&] { opt.zero_grad(); auto l = rosenbrock(x); l.backward(); return l; };
//   for (int i = 0; i < 10; ++i) opt.step(closure);
//
// Note [LBFGS scalars]: torch keeps some scalars of the algorithm as 0-d tensors of the
// parameters' dtype (y.s, 1 / y.s, H_diag, the alphas, the line search's directional
// derivatives) and others as Python floats (the losses, the steps); mixed arithmetic rounds to
// the tensor's dtype. ember follows the same split, so float32 runs take torch's steps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct LBFGSOptions {
  double lr = 1;
  int64_t max_iter = 20;
  /// Default max_iter * 5 / 4 (integer division, as torch's).
  std::optional<int64_t> max_eval = std::nullopt;
  double tolerance_grad = 1e-7;
  double tolerance_change = 1e-9;
  int64_t history_size = 100;
  /// nullopt or "strong_wolfe".
  std::optional<std::string> line_search_fn = std::nullopt;
  /// torch's group dict: lr, max_iter, max_eval, tolerance_grad, tolerance_change, history_size,
  /// line_search_fn. An integral lr is kept an int (torch's default lr=1 prints "lr: 1").
  ValueDict to_dict() const;
};

class LBFGS : public Optimizer {
 public:
  /// ValueError "LBFGS doesn't support per-parameter options (parameter groups)" for more than
  /// one group.
  LBFGS(std::vector<Tensor> params, const LBFGSOptions& defaults = {});
  LBFGS(std::vector<ParamGroup> groups, const LBFGSOptions& defaults = {});
  const char* name() const override { return "LBFGS"; }
  /// One LBFGS step: up to max_iter iterations, each re-evaluating `closure` (with grad on);
  /// returns the loss of the first evaluation. The state (directions, steps, history) is kept
  /// on the first parameter, as torch's.
  Tensor step(const LossClosure& closure);

 protected:
  void check_options(const ValueDict& options) const override;
  void check_state(const ParamGroup& group, const Tensor& param,
                   const ValueDict& state) const override;
  void update(ParamGroup& group) override;

 private:
  const LossClosure* closure_ = nullptr;
  Tensor first_loss_;
};

}  // namespace ember::optim
