// The loss modules of issue 16: buffers as PyTorch registers them, then nn::functional.
#include "ember/nn/modules/loss_more.h"

#include "ember/nn/functional.h"
#include "ember/nn/module_clone.h"
#include "module_util.h"

namespace ember::nn {

namespace F = functional;

Tensor BCELoss::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy(input, target, detail::optional_tensor(weight()), reduction);
}
Tensor KLDivLoss::forward(const Tensor& input, const Tensor& target) {
  return F::kl_div(input, target, reduction, log_target);
}
Tensor HuberLoss::forward(const Tensor& input, const Tensor& target) {
  return F::huber_loss(input, target, reduction, delta);
}
Tensor SmoothL1Loss::forward(const Tensor& input, const Tensor& target) {
  return F::smooth_l1_loss(input, target, F::reduction_from_string(reduction), beta);
}
Tensor SoftMarginLoss::forward(const Tensor& input, const Tensor& target) {
  return F::soft_margin_loss(input, target, reduction);
}
Tensor MultiLabelSoftMarginLoss::forward(const Tensor& input, const Tensor& target) {
  return F::multilabel_soft_margin_loss(input, target, detail::optional_tensor(weight()), reduction);
}

MultiMarginLoss::MultiMarginLoss(int64_t p_, double margin_, const std::optional<Tensor>& weight,
                                 std::string reduction)
    : WeightedLoss("MultiMarginLoss", weight, std::move(reduction)), p(p_), margin(margin_) {
  EMBER_CHECK_VALUE(p == 1 || p == 2, "only p == 1 and p == 2 supported");
  EMBER_CHECK_VALUE(!weight || !weight->defined() || weight->dim() == 1, "weight must be one-dimensional");
}
Tensor MultiMarginLoss::forward(const Tensor& input, const Tensor& target) {
  return F::multi_margin_loss(input, target, p, margin, detail::optional_tensor(weight()), reduction);
}
Tensor MultiLabelMarginLoss::forward(const Tensor& input, const Tensor& target) {
  return F::multilabel_margin_loss(input, target, reduction);
}
Tensor HingeEmbeddingLoss::forward(const Tensor& input, const Tensor& target) {
  return F::hinge_embedding_loss(input, target, margin, reduction);
}
Tensor PoissonNLLLoss::forward(const Tensor& log_input_, const Tensor& target) {
  return F::poisson_nll_loss(log_input_, target, log_input, full, eps, reduction);
}

Tensor Loss3::forward(const Tensor&, const Tensor&) {
  EMBER_FAIL_KIND(ErrorKind::Type, type_name(), ".forward() missing 1 required positional argument: '",
                  names_[2], "'");
}
Value Loss3::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {names_[0], names_[1], names_[2]});
  return forward(inputs[0].to_tensor(), inputs[1].to_tensor(), inputs[2].to_tensor());
}

Tensor CosineEmbeddingLoss::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return F::cosine_embedding_loss(input1, input2, target, margin, reduction);
}
Tensor MarginRankingLoss::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return F::margin_ranking_loss(input1, input2, target, margin, reduction);
}
Tensor TripletMarginLoss::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
  return F::triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction);
}
Tensor GaussianNLLLoss::forward(const Tensor& input, const Tensor& target, const Tensor& var) {
  return F::gaussian_nll_loss(input, target, var, full, eps, reduction);
}

namespace {
const bool registered = [] {
  register_cloneable<BCELoss>();
  register_cloneable<KLDivLoss>();
  register_cloneable<HuberLoss>();
  register_cloneable<SmoothL1Loss>();
  register_cloneable<SoftMarginLoss>();
  register_cloneable<MultiLabelSoftMarginLoss>();
  register_cloneable<MultiMarginLoss>();
  register_cloneable<MultiLabelMarginLoss>();
  register_cloneable<HingeEmbeddingLoss>();
  register_cloneable<PoissonNLLLoss>();
  register_cloneable<CosineEmbeddingLoss>();
  register_cloneable<MarginRankingLoss>();
  register_cloneable<TripletMarginLoss>();
  register_cloneable<GaussianNLLLoss>();
  return true;
}();
}  // namespace

}  // namespace ember::nn
