// nn::functional's losses of issue 16: F's Python checks and steps (PyTorch 1.13) over the loss
// ops of loss_more.cpp; multilabel_soft_margin_loss, multi_margin_loss, multilabel_margin_loss
// and gaussian_nll_loss are written with tensor ops here (as F writes the first and the last).
#include <cmath>
#include <numbers>

#include "ember/grad_mode.h"
#include "ember/nn/functional.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/view.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/warning.h"
#include "loss_common.h"
#include "../../dispatch/autocast_region.h"

namespace ember::nn::functional {

namespace {
int64_t enum_of(const std::string& reduction) {
  return static_cast<int64_t>(reduction_from_string(reduction));
}
void warn_size(const Tensor& input, const Tensor& target) {
  if (input.sizes() == target.sizes()) return;
  warn("Using a target size (" + size_str(target.sizes()) + ") that is different to the input size (" +
       size_str(input.sizes()) + "). This will likely lead to incorrect results due to broadcasting. "
       "Please ensure they have the same size.");
}
Tensor reduce_by(const Tensor& loss, const std::string& reduction) {
  if (reduction == "none") return loss;
  if (reduction == "mean") return loss.mean();
  if (reduction == "sum") return loss.sum();
  EMBER_FAIL_KIND(ErrorKind::Value, reduction, " is not valid");
}
}  // namespace

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const std::optional<Tensor>& weight, const std::string& reduction) {
  const int64_t r = enum_of(reduction);
  EMBER_CHECK_VALUE(target.sizes() == input.sizes(), "Using a target size (", size_str(target.sizes()),
                    ") that is different to the input size (", size_str(input.sizes()),
                    ") is deprecated. Please ensure they have the same size.");
  std::optional<Tensor> w = weight;
  if (w && w->defined()) w = w->expand(broadcast_shapes(target.sizes(), w->sizes()));
  return ember::binary_cross_entropy(input, target, w, r);
}

Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction, bool log_target) {
  int64_t r;
  if (reduction == "mean") {
    warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
         "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
         "'mean' will be changed to behave the same as 'batchmean' in the next major release.");
  }
  r = reduction == "batchmean" ? enum_of("sum") : enum_of(reduction);
  Tensor reduced = ember::kl_div(input, target, r, log_target);
  if (reduction == "batchmean" && input.dim() != 0) reduced = reduced / static_cast<double>(input.size(0));
  return reduced;
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction, double delta) {
  warn_size(input, target);
  const auto shape = broadcast_shapes(input.sizes(), target.sizes());
  return ember::huber_loss(input.expand(shape), target.expand(shape), enum_of(reduction), delta);
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  return ember::soft_margin_loss(input, target, enum_of(reduction));
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const std::optional<Tensor>& weight, const std::string& reduction) {
  Tensor loss = -(target * ember::log_sigmoid(input) + (1 - target) * ember::log_sigmoid(-input));
  if (weight && weight->defined()) loss = loss * *weight;
  const int64_t class_dim = input.dim() - 1;
  const int64_t C = input.size(class_dim);
  loss = loss.sum(std::vector<int64_t>{class_dim}) / static_cast<double>(C);
  return reduce_by(loss, reduction);
}

// PyTorch's multi_margin_loss kernel: sum over j != y of max(0, margin - x[y] + x[j])^p
// (times weight[y]), divided by the number of classes.
// multi_margin_loss and multilabel_margin_loss are on PyTorch's CPU autocast fp32 list.
Tensor multi_margin_loss(const Tensor& input_, const Tensor& target, int64_t p, double margin,
                         const std::optional<Tensor>& weight_, const std::string& reduction) {
  autocast::Fp32Region fp32;
  const Tensor input = fp32.cast(input_);
  const std::optional<Tensor> weight = fp32.cast(weight_);
  EMBER_CHECK_VALUE(p == 1 || p == 2, "only p == 1 and p == 2 supported");
  if (weight && weight->defined()) {
    EMBER_CHECK_VALUE(weight->dim() == 1, "weight must be one-dimensional");
  }
  const int64_t r = enum_of(reduction);
  EMBER_CHECK(input.dim() <= 2 && input.numel() > 0 && (input.dim() != 0),
              "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ",
              input.sizes());
  const bool single = input.dim() <= 1;
  const Tensor x = single ? input.reshape({1, -1}) : input;
  const Tensor y = target.reshape({-1});
  const int64_t N = x.size(0), C = x.size(1);
  EMBER_CHECK(y.numel() == N, "inconsistent target size, expected ", N, " but got ", target.sizes());
  const Tensor xy = x.gather(1, y.unsqueeze(1));
  Tensor z = clamp(x - xy + margin, Scalar(0), std::nullopt);
  if (p == 2) z = z * z;
  if (weight && weight->defined()) z = z * weight->index_select(0, y).unsqueeze(1);
  const Tensor not_y = ones_like(z).scatter(1, y.unsqueeze(1), Scalar(0));
  Tensor loss = (z * not_y).sum(std::vector<int64_t>{1}) / static_cast<double>(C);
  if (single) loss = loss.reshape(target.sizes());
  return nn::functional::detail::apply_loss_reduction(loss, r);
}

// PyTorch's multilabel_margin_loss: targets are class indices up to the first -1; the loss sums
// max(0, 1 - (x[j] - x[k])) over target classes j and non-target classes k, over C.
Tensor multilabel_margin_loss(const Tensor& input_, const Tensor& target, const std::string& reduction) {
  autocast::Fp32Region fp32;
  const Tensor input = fp32.cast(input_);
  const int64_t r = enum_of(reduction);
  EMBER_CHECK(input.dim() <= 2 && (input.dim() == 0 || input.numel() > 0) ,
              "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ", input.sizes());
  EMBER_CHECK(target.sizes() == input.sizes(), "inconsistent target size: ", target.sizes(),
              " for input of size: ", input.sizes());
  const bool single = input.dim() <= 1;
  const Tensor x = single ? input.reshape({1, -1}) : input;
  const Tensor t = single ? target.reshape({1, -1}) : target;
  const int64_t C = x.size(1);
  const Tensor valid = eq(cumsum(lt(t, zeros_like(t)).to(kInt64), 1), zeros_like(t));
  const Tensor idx = where(valid, t, zeros_like(t));
  const Tensor is_target =
      gt(zeros(x.sizes(), TensorOptions(x.dtype()).device(x.device())).scatter_add(1, idx, valid.to(x.dtype())),
         zeros_like(x));
  const Tensor xj = x.gather(1, idx);  // [N, C] target scores (valid entries only count)
  const Tensor term = clamp(1 - (xj.unsqueeze(2) - x.unsqueeze(1)), Scalar(0), std::nullopt);
  const Tensor mask = valid.to(x.dtype()).unsqueeze(2) * logical_not(is_target).to(x.dtype()).unsqueeze(1);
  Tensor loss = (term * mask).sum(std::vector<int64_t>{1, 2}) / static_cast<double>(C);
  if (single) loss = loss.reshape({});
  return nn::functional::detail::apply_loss_reduction(loss, r);
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           double margin, const std::string& reduction) {
  const int64_t r = enum_of(reduction);
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(),
              "margin_ranking_loss : All input tensors should have same dimension but got sizes: ",
              "input1: ", size_str(input1.sizes()), ", input2: ", size_str(input2.sizes()),
              ", target: ", size_str(target.sizes()), " ");
  return ember::margin_ranking_loss(input1, input2, target, margin, r);
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin,
                            const std::string& reduction) {
  return ember::hinge_embedding_loss(input, target, margin, enum_of(reduction));
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             double margin, const std::string& reduction) {
  return ember::cosine_embedding_loss(input1, input2, target, margin, enum_of(reduction));
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           double margin, double p, double eps, bool swap, const std::string& reduction) {
  return ember::triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, enum_of(reduction));
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full,
                        double eps, const std::string& reduction) {
  EMBER_CHECK_VALUE(reduction == "none" || reduction == "mean" || reduction == "sum", reduction,
                    " is not a valid value for reduction");
  return ember::poisson_nll_loss(input, target, log_input, full, eps, enum_of(reduction));
}

// F.gaussian_nll_loss: 0.5 (log var + (input - target)^2 / var), var clamped to eps without
// a gradient of the clamp.
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var_in, bool full,
                         double eps, const std::string& reduction) {
  Tensor var = var_in;
  if (var.sizes() != input.sizes()) {
    const auto in = input.sizes();
    const bool lead = in.size() >= 1 && var.dim() == static_cast<int64_t>(in.size()) - 1 &&
                      in.slice(0, in.size() - 1) == var.sizes();
    const bool last_one = in.size() >= 1 && var.dim() == static_cast<int64_t>(in.size()) &&
                          in.slice(0, in.size() - 1) == var.sizes().slice(0, in.size() - 1) &&
                          var.size(-1) == 1;
    if (lead) {
      var = var.unsqueeze(-1);
    } else {
      EMBER_CHECK_VALUE(last_one, "var is of incorrect size");
    }
  }
  EMBER_CHECK_VALUE(reduction == "none" || reduction == "mean" || reduction == "sum", reduction,
                    " is not valid");
  EMBER_CHECK_VALUE(!lt(var, zeros_like(var)).any().item().to_bool(), "var has negative entry/entries");
  var = var.clone();
  {
    NoGradGuard guard;
    var.clamp_(Scalar(eps), std::nullopt);
  }
  Tensor loss = (log(var) + (input - target).pow(2) / var) * 0.5;
  if (full) loss = loss + 0.5 * std::log(2 * std::numbers::pi);
  if (reduction == "mean") return loss.mean();
  if (reduction == "sum") return loss.sum();
  return loss;
}

}  // namespace ember::nn::functional
