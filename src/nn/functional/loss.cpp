// Pointwise losses: mse_loss (a primitive with mse_loss_backward), l1_loss, smooth_l1_loss,
// binary_cross_entropy_with_logits (Composite rows of ops.def), their nn::functional forms, and
// the reduction helpers.
//
// Note [Losses are composites]: PyTorch has fused kernels and hand-written backward formulas
// for most losses; ember writes most with differentiable primitives, so autograd,
// gradgradcheck and meta tensors work without rules of their own. The checks, their order and
// their texts, the result dtypes and the numbers are PyTorch 1.13's; the grad_fn of such a loss
// is that of its last primitive (SumBackward0, ...) rather than PyTorch's. The two losses of
// everyday training, mse_loss and nll_loss (under cross_entropy), are PyTorch's primitives
// instead, with its backward ops (mse_loss_backward, nll_loss_backward), so that a
// __torch_dispatch__ handler sees backward as in PyTorch (Note [Backward formulas call ops]);
// their bodies are still Tensor ops, run on plain tensors below every layer.
#include <cmath>

#include "../../autograd/record.h"
#include "../../dispatch/boxing.h"
#include "ember/nn/functional.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"
#include "ember/warning.h"
#include "loss_common.h"

namespace ember {

using dispatch::OpId;

namespace nn::functional::detail {

Tensor apply_loss_reduction(const Tensor& loss, int64_t reduction) {
  if (reduction == static_cast<int64_t>(Reduction::Mean)) return loss.mean();
  if (reduction == static_cast<int64_t>(Reduction::Sum)) return loss.sum();
  return loss;
}

void check_reduction(const char* op, int64_t reduction) {
  EMBER_CHECK(reduction >= 0 && reduction <= 2, op,
              ": reduction must be 0 (none), 1 (mean) or 2 (sum), but got ", reduction);
}

void check_floating(const char* kernel, ScalarType dtype) {
  EMBER_CHECK(is_floating(dtype), "\"", kernel, "\" not implemented for '", scalar_type_name(dtype),
              "'");
}

}  // namespace nn::functional::detail

namespace {

using nn::functional::detail::apply_loss_reduction;
using nn::functional::detail::check_floating;
using nn::functional::detail::check_reduction;

// PyTorch's mse and smooth_l1 kernels are binary TensorIterator ops: broadcast first (its
// message), then the dtype switch on the promoted type.
void check_pointwise_loss(const char* kernel, const Tensor& self, const Tensor& target) {
  broadcast_shapes(self.sizes(), target.sizes());
  check_floating(kernel, result_type(self, target));
}

Tensor mse_loss_impl(const Tensor& self, const Tensor& target, int64_t reduction) {
  check_pointwise_loss("mse_cpu", self, target);
  check_reduction("mse_loss", reduction);
  return apply_loss_reduction((self - target).pow(2), reduction);
}

// PyTorch's kernel: norm * (self - target) * grad_output, norm = 2 / self.numel() for the mean.
Tensor mse_loss_backward_impl(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                              int64_t reduction) {
  broadcast_shapes(broadcast_shapes(self.sizes(), target.sizes()), grad_output.sizes());
  const double norm = reduction == static_cast<int64_t>(nn::functional::Reduction::Mean)
                          ? 2.0 / static_cast<double>(self.numel())
                          : 2.0;
  return mul(self - target, norm) * grad_output;
}

// PyTorch 1.13's l1_loss is itself a composite: whatever sub, abs, mean and sum say goes.
Tensor l1_loss_impl(const Tensor& self, const Tensor& target, int64_t reduction) {
  return apply_loss_reduction((self - target).abs(), reduction);
}

Tensor smooth_l1_loss_impl(const Tensor& self, const Tensor& target, int64_t reduction,
                           double beta) {
  EMBER_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  // As PyTorch: beta 0 is exactly the l1 loss (and avoids dividing by it).
  if (beta == 0) return l1_loss_impl(self, target, reduction);
  check_pointwise_loss("smooth_l1_cpu", self, target);
  check_reduction("smooth_l1_loss", reduction);
  const Tensor z = (self - target).abs();
  // Both branches are computed; where() sends each element's gradient through its own branch.
  const Tensor loss = where(z < beta, z.pow(2) * 0.5 / beta, z - 0.5 * beta);
  return apply_loss_reduction(loss, reduction);
}

// loss = (1 - t) x + pw' * (log(exp(-m) + exp(-x - m)) + m),  m = max(-x, 0), pw' = 1 + (pw - 1) t
// which is -[pw t log σ(x) + (1 - t) log(1 - σ(x))] without overflow for large |x|. As in
// PyTorch 1.13, the per-element loss accumulates in place into (1 - target): the result has
// target's dtype and shape, and input, weight and pos_weight broadcast into it (PyTorch's
// "output with shape ... doesn't match the broadcast shape ..." otherwise). The exp / log terms
// are computed out of place: an in-place add_ after exp_ would overwrite the result exp's
// backward needs (PyTorch has a fused backward instead).
Tensor binary_cross_entropy_with_logits_impl(const Tensor& self, const Tensor& target,
                                             const std::optional<Tensor>& weight,
                                             const std::optional<Tensor>& pos_weight,
                                             int64_t reduction) {
  Tensor max_val = -self;
  max_val.clamp_(Scalar(0), std::nullopt);
  // log(exp(-m) + exp(-x - m)) + m = log(1 + exp(-x)), with both exponents <= 0.
  Tensor softplus_neg = ((-max_val).exp() + (-self - max_val).exp()).log();
  Tensor loss = 1 - target;
  loss.mul_(self);
  if (pos_weight.has_value() && pos_weight->defined()) {
    // pos_weight broadcasts against target here (out of place), as in PyTorch.
    Tensor log_weight = (*pos_weight - 1).mul(target);
    log_weight.add_(1);
    log_weight.mul_(softplus_neg + max_val);
    loss.add_(log_weight);
  } else {
    loss.add_(max_val);
    loss.add_(softplus_neg);
  }
  if (weight.has_value() && weight->defined()) loss.mul_(*weight);
  return apply_loss_reduction(loss, reduction);
}

// ---- autograd: mse_loss and its backward op ----
using autograd::OpNode;
using autograd::tensor_list;

// d mse_loss = mse_loss_backward(grad, self, target) for self, mse_loss_backward(grad, target,
// self) for target, as PyTorch's. Its mean divides by the operand's own numel, wrong when the
// operands broadcast (PyTorch's F.mse_loss broadcasts them first, with a warning); ember
// expands them there, so the gradient is the mean's.
Tensor mse_loss_autograd(const Tensor& self, const Tensor& target, const int64_t& reduction) {
  autograd::Recorder r("MseLossBackward0", self, target);
  Tensor out = r.forward(
      [&] { return dispatch::call<mse_loss_impl>(OpId::mse_loss, self, target, reduction); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self"), target_ = r.save(target, "target");
  r.values("reduction", reduction);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    Tensor x = n.saved(self_), t = n.saved(target_);
    if (x.sizes() != t.sizes()) {
      const DimVector shape = broadcast_shapes(x.sizes(), t.sizes());
      x = x.expand(shape);
      t = t.expand(shape);
    }
    return tensor_list{n.needs(0) ? mse_loss_backward(g[0], x, t, reduction) : Tensor(),
                       n.needs(1) ? mse_loss_backward(g[0], t, x, reduction) : Tensor()};
  });
}

// mse_loss_backward(go, x, t) = c (x - t) go: d go = c (x - t) grad (the engine sums it to
// go's shape), d x = c go grad, d t = -c go grad.
Tensor mse_loss_backward_autograd(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                  const int64_t& reduction) {
  autograd::Recorder r("MseLossBackwardBackward0", grad_output, self, target);
  Tensor out = r.forward([&] {
    return dispatch::call<mse_loss_backward_impl>(OpId::mse_loss_backward, grad_output, self,
                                                  target, reduction);
  });
  if (!r) return out;
  const double c = reduction == static_cast<int64_t>(nn::functional::Reduction::Mean)
                       ? 2.0 / static_cast<double>(self.numel())
                       : 2.0;
  const bool xt = r.needs(1) || r.needs(2);
  const size_t go_ = r.save_if(xt, grad_output, "grad_output"), self_ = r.save_if(r.needs(0), self, "self"),
               target_ = r.save_if(r.needs(0), target, "target");
  r.values("reduction", reduction);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor dx = n.needs(1) || n.needs(2) ? mul(n.saved(go_) * g[0], c) : Tensor();
    return tensor_list{
        n.needs(0) ? mul(n.saved(self_) - n.saved(target_), c) * g[0] : Tensor(),
        n.needs(1) ? dx : Tensor(), n.needs(2) ? -dx : Tensor()};
  });
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(mse_loss, &mse_loss_autograd);
EMBER_REGISTER_AUTOGRAD(mse_loss_backward, &mse_loss_backward_autograd);

Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         int64_t reduction) {
  return dispatch::call<mse_loss_backward_impl>(OpId::mse_loss_backward, grad_output, self, target,
                                                reduction);
}
EMBER_REGISTER_OP(mse_loss_backward, &mse_loss_backward);

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return dispatch::call<mse_loss_impl>(OpId::mse_loss, self, target, reduction);
}
Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return dispatch::call<l1_loss_impl>(OpId::l1_loss, self, target, reduction);
}
Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  return dispatch::call<smooth_l1_loss_impl>(OpId::smooth_l1_loss, self, target, reduction, beta);
}
Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target,
                                        const std::optional<Tensor>& weight,
                                        const std::optional<Tensor>& pos_weight,
                                        int64_t reduction) {
  return dispatch::call<binary_cross_entropy_with_logits_impl>(
      OpId::binary_cross_entropy_with_logits, self, target, weight, pos_weight, reduction);
}

EMBER_REGISTER_OP(mse_loss, &mse_loss);
EMBER_REGISTER_OP(l1_loss, &l1_loss);
EMBER_REGISTER_OP(smooth_l1_loss, &smooth_l1_loss);
EMBER_REGISTER_OP(binary_cross_entropy_with_logits, &binary_cross_entropy_with_logits);

namespace nn::functional {

Reduction reduction_from_string(const std::string& reduction) {
  if (reduction == "none") return Reduction::None;
  if (reduction == "mean") return Reduction::Mean;
  if (reduction == "elementwise_mean") {
    EMBER_WARN("reduction='elementwise_mean' is deprecated, please use reduction='mean' instead.");
    return Reduction::Mean;
  }
  if (reduction == "sum") return Reduction::Sum;
  EMBER_FAIL_KIND(ErrorKind::Value, reduction, " is not a valid value for reduction");
}

const char* reduction_name(Reduction reduction) {
  switch (reduction) {
    case Reduction::None: return "none";
    case Reduction::Mean: return "mean";
    case Reduction::Sum: return "sum";
  }
  EMBER_FAIL_KIND(ErrorKind::Value, "invalid reduction ", static_cast<int64_t>(reduction));
}

namespace {

// F.mse_loss and friends: warn on a size mismatch, then hand the op operands of one shape.
std::pair<Tensor, Tensor> broadcast_pair(const Tensor& input, const Tensor& target) {
  if (input.sizes() != target.sizes()) {
    EMBER_WARN("Using a target size (", size_str(target.sizes()),
               ") that is different to the input size (", size_str(input.sizes()),
               "). This will likely lead to incorrect results due to broadcasting. Please ensure "
               "they have the same size.");
    const DimVector shape = broadcast_shapes(input.sizes(), target.sizes());
    return {input.expand(shape), target.expand(shape)};
  }
  return {input, target};
}

}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  auto [i, t] = broadcast_pair(input, target);
  return ember::mse_loss(i, t, static_cast<int64_t>(reduction));
}

Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  auto [i, t] = broadcast_pair(input, target);
  return ember::l1_loss(i, t, static_cast<int64_t>(reduction));
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction,
                      double beta) {
  auto [i, t] = broadcast_pair(input, target);
  return ember::smooth_l1_loss(i, t, static_cast<int64_t>(reduction), beta);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const std::optional<Tensor>& weight, Reduction reduction,
                                        const std::optional<Tensor>& pos_weight) {
  EMBER_CHECK_VALUE(target.sizes() == input.sizes(), "Target size (", size_str(target.sizes()),
                    ") must be the same as input size (", size_str(input.sizes()), ")");
  return ember::binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                                 static_cast<int64_t>(reduction));
}

}  // namespace nn::functional

}  // namespace ember
