// The losses of issue 16 as Composite rows of ops.def, each PyTorch 1.13's ATen composite (or,
// for binary_cross_entropy, its kernel's formula) over primitives: binary_cross_entropy, kl_div,
// huber_loss, soft_margin_loss, margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss,
// triplet_margin_loss, poisson_nll_loss; and one_hot.
#include <cmath>
#include <numbers>

#include "../../dispatch/boxing.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"
#include "loss_common.h"

namespace ember {

using dispatch::OpId;
using nn::functional::detail::apply_loss_reduction;
using nn::functional::detail::check_floating;

namespace {

// -w (t log x + (1 - t) log(1 - x)), each log clamped at -100 as PyTorch's kernel. The logs
// read a copy of their argument with 0 replaced by 1, so that x = 0 or 1 gives the clamped
// value without a NaN gradient.
Tensor binary_cross_entropy_impl(const Tensor& self, const Tensor& target,
                                 const std::optional<Tensor>& weight, int64_t reduction) {
  check_floating("binary_cross_entropy", self.dtype());
  if (!self.is_meta()) {
    EMBER_CHECK(logical_and(self >= 0, self <= 1).all().item().to_bool(),
                "all elements of input should be between 0 and 1");
  }
  auto clamped_log = [](const Tensor& v) {
    const Tensor pos = v > 0;
    const Tensor safe = where(pos, v, ones_like(v));
    return where(pos, clamp(log(safe), Scalar(-100.0), std::nullopt), full_like(v, -100.0));
  };
  Tensor loss = -(target * clamped_log(self) + (1 - target) * clamped_log(1 - self));
  if (weight && weight->defined()) loss = loss * *weight;
  return apply_loss_reduction(loss, reduction);
}

Tensor kl_div_impl(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  Tensor out;
  if (log_target) {
    out = exp(target) * (target - self);
  } else {
    // xlogy(t, t): 0 where t is 0 (NaN stays NaN).
    const Tensor safe = where(eq(target, zeros_like(target)), ones_like(target), target);
    out = target * log(safe) - target * self;
  }
  return apply_loss_reduction(out, reduction);
}

Tensor huber_loss_impl(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  EMBER_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  check_floating("huber_cpu", result_type(self, target));
  const Tensor z = abs(self - target);
  return apply_loss_reduction(where(z < delta, z.pow(2) * 0.5, (z - 0.5 * delta) * delta), reduction);
}

// PyTorch's kernel writes into a tensor of self's shape: target broadcasts into it, not beyond.
Tensor soft_margin_loss_impl(const Tensor& self, const Tensor& target, int64_t reduction) {
  const auto shape = broadcast_shapes(self.sizes(), target.sizes());
  EMBER_CHECK(IntArrayRef(shape) == self.sizes(), "output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", IntArrayRef(shape));
  return apply_loss_reduction(log1p(exp(-target * self)), reduction);
}

Tensor margin_ranking_loss_impl(const Tensor& input1, const Tensor& input2, const Tensor& target,
                                double margin, int64_t reduction) {
  const Tensor out = clamp(-target * (input1 - input2) + margin, Scalar(0), std::nullopt);
  return apply_loss_reduction(out, reduction);
}

Tensor hinge_embedding_loss_impl(const Tensor& self, const Tensor& target, double margin,
                                 int64_t reduction) {
  const Tensor zero = zeros_like(self);
  const Tensor margin_clamp = clamp(margin - self, Scalar(0), std::nullopt);
  const Tensor out = where(ne(target, ones_like(target)), margin_clamp, zero) +
                     where(ne(target, full_like(target, -1)), self, zero);
  return apply_loss_reduction(out, reduction);
}

Tensor cosine_embedding_loss_impl(const Tensor& input1, const Tensor& input2, const Tensor& target,
                                  double margin, int64_t reduction) {
  const int64_t td = target.dim();
  EMBER_CHECK(td == 1 || td == 0, "0D or 1D target tensor expected, multi-target not supported");
  if (td == 1) {
    EMBER_CHECK(input1.dim() == 2 && input2.dim() == 2, "1D target tensor expects 2D input tensors, ",
                "but found inputs with sizes ", input1.sizes(), " and ", input2.sizes(), ".");
  } else {
    EMBER_CHECK(input1.dim() == 1 && input2.dim() == 1, "0D target tensor expects 1D input tensors, ",
                "but found inputs with sizes ", input1.sizes(), " and ", input2.sizes(), ".");
  }
  const double kEps = 1e-12;
  const std::vector<int64_t> d{td};
  const Tensor prod_sum = (input1 * input2).sum(d);
  const Tensor mag1 = (input1 * input1).sum(d) + kEps, mag2 = (input2 * input2).sum(d) + kEps;
  const Tensor cos = prod_sum / (mag1 * mag2).sqrt();
  const Tensor zero = zeros_like(cos);
  const Tensor out = where(eq(target, ones_like(target)), 1 - cos, zero) +
                     where(eq(target, full_like(target, -1)), clamp(cos - margin, Scalar(0), std::nullopt), zero);
  return apply_loss_reduction(out, reduction);
}

Tensor triplet_margin_loss_impl(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                double margin, double p, double eps, bool swap, int64_t reduction) {
  EMBER_CHECK(anchor.dim() == positive.dim() && anchor.dim() == negative.dim(),
              "All inputs should have same dimension but got ", anchor.dim(), "D, ", positive.dim(),
              "D and ", negative.dim(), "D inputs.");
  const Tensor dist_pos = pairwise_distance(anchor, positive, p, eps);
  Tensor dist_neg = pairwise_distance(anchor, negative, p, eps);
  if (swap) dist_neg = minimum(dist_neg, pairwise_distance(positive, negative, p, eps));
  return apply_loss_reduction(clamp(dist_pos - dist_neg + margin, Scalar(0), std::nullopt), reduction);
}

Tensor poisson_nll_loss_impl(const Tensor& input, const Tensor& target, bool log_input, bool full,
                             double eps, int64_t reduction) {
  Tensor loss = log_input ? exp(input) - target * input : input - target * log(input + eps);
  if (full) {
    const Tensor stirling = target * log(target) - target + log(target * (2 * std::numbers::pi)) * 0.5;
    loss = loss + masked_fill(stirling, target <= 1, Scalar(0));
  }
  return apply_loss_reduction(loss, reduction);
}

Tensor one_hot_impl(const Tensor& self, int64_t num_classes) {
  EMBER_CHECK(self.dtype() == kInt64, "one_hot is only applicable to index tensor.");
  std::vector<int64_t> shape = self.sizes().vec();
  const TensorOptions opt = TensorOptions(kInt64).device(self.device());
  if (self.numel() == 0) {
    EMBER_CHECK(num_classes > 0, "Can not infer total number of classes from empty tensor.");
    shape.push_back(num_classes);
    return empty(shape, opt);
  }
  EMBER_CHECK(num_classes == -1 || num_classes > 0, "num_classes should be positive");
  if (!self.is_meta()) {
    EMBER_CHECK(self.min().item().to_int() >= 0, "Class values must be non-negative.");
    if (num_classes == -1) {
      num_classes = self.max().item().to_int() + 1;
    } else {
      EMBER_CHECK(self.max().item().to_int() < num_classes, "Class values must be smaller than num_classes.");
    }
  } else {
    EMBER_CHECK(num_classes != -1, "one_hot: a meta tensor needs num_classes");
  }
  shape.push_back(num_classes);
  return zeros(shape, opt).scatter(-1, self.unsqueeze(-1), Scalar(1));
}

}  // namespace

Tensor binary_cross_entropy(const Tensor& self, const Tensor& target,
                            const std::optional<Tensor>& weight, int64_t reduction) {
  return dispatch::call<binary_cross_entropy_impl>(OpId::binary_cross_entropy, self, target, weight,
                                                   reduction);
}
Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  return dispatch::call<kl_div_impl>(OpId::kl_div, self, target, reduction, log_target);
}
Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  return dispatch::call<huber_loss_impl>(OpId::huber_loss, self, target, reduction, delta);
}
Tensor soft_margin_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return dispatch::call<soft_margin_loss_impl>(OpId::soft_margin_loss, self, target, reduction);
}
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           double margin, int64_t reduction) {
  return dispatch::call<margin_ranking_loss_impl>(OpId::margin_ranking_loss, input1, input2, target,
                                                  margin, reduction);
}
Tensor hinge_embedding_loss(const Tensor& self, const Tensor& target, double margin,
                            int64_t reduction) {
  return dispatch::call<hinge_embedding_loss_impl>(OpId::hinge_embedding_loss, self, target, margin,
                                                   reduction);
}
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             double margin, int64_t reduction) {
  return dispatch::call<cosine_embedding_loss_impl>(OpId::cosine_embedding_loss, input1, input2,
                                                    target, margin, reduction);
}
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           double margin, double p, double eps, bool swap, int64_t reduction) {
  return dispatch::call<triplet_margin_loss_impl>(OpId::triplet_margin_loss, anchor, positive,
                                                  negative, margin, p, eps, swap, reduction);
}
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full,
                        double eps, int64_t reduction) {
  return dispatch::call<poisson_nll_loss_impl>(OpId::poisson_nll_loss, input, target, log_input,
                                               full, eps, reduction);
}
Tensor one_hot(const Tensor& self, int64_t num_classes) {
  return dispatch::call<one_hot_impl>(OpId::one_hot, self, num_classes);
}

EMBER_REGISTER_OP(binary_cross_entropy, &binary_cross_entropy);
EMBER_REGISTER_OP(kl_div, &kl_div);
EMBER_REGISTER_OP(huber_loss, &huber_loss);
EMBER_REGISTER_OP(soft_margin_loss, &soft_margin_loss);
EMBER_REGISTER_OP(margin_ranking_loss, &margin_ranking_loss);
EMBER_REGISTER_OP(hinge_embedding_loss, &hinge_embedding_loss);
EMBER_REGISTER_OP(cosine_embedding_loss, &cosine_embedding_loss);
EMBER_REGISTER_OP(triplet_margin_loss, &triplet_margin_loss);
EMBER_REGISTER_OP(poisson_nll_loss, &poisson_nll_loss);
EMBER_REGISTER_OP(one_hot, &one_hot);

}  // namespace ember
