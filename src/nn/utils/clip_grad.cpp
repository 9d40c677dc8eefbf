// Gradient clipping: torch 1.13's torch/nn/utils/clip_grad.py, step for step (norms of the
// detached gradients, one stacked total norm, an in-place multiply by the clamped coefficient).
#include "ember/nn/utils/clip_grad.h"

#include <cmath>

#include "ember/grad_mode.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "../modules/module_util.h"

namespace ember::nn::utils {

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  std::vector<Tensor> grads;
  for (const auto& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return zeros({});
  NoGradGuard no_grad;
  const Device device = grads[0].device();
  Tensor total;
  if (std::isinf(norm_type)) {
    std::vector<Tensor> norms;
    for (const auto& g : grads) norms.push_back(g.detach().abs().max().to(device));
    total = norms.size() == 1 ? norms[0] : stack(norms).max();
  } else {
    std::vector<Tensor> norms;
    for (const auto& g : grads) norms.push_back(g.detach().norm(norm_type).to(device));
    total = stack(norms).norm(norm_type);
  }
  if (error_if_nonfinite) {
    const double v = total.item<double>();
    EMBER_CHECK(std::isfinite(v), "The total norm of order ", detail::py_float(norm_type),
                " for gradients from `parameters` is non-finite, so it cannot be clipped. To "
                "disable this error and scale the gradients by the non-finite norm anyway, set "
                "`error_if_nonfinite=False`");
  }
  const Tensor coef = clamp(max_norm / (total + 1e-6), std::nullopt, 1.0);
  for (auto& g : grads) {
    Tensor d = g.detach();
    d.mul_(coef.to(g.device()));
  }
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const auto& p : parameters) {
    if (!p.grad().defined()) continue;
    Tensor g = p.grad().detach();
    clamp_(g, -clip_value, clip_value);
  }
}

}  // namespace ember::nn::utils
