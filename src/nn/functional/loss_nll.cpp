// Class-index losses: nll_loss (1-d / 2-d input), nll_loss2d (4-d), nll_loss_nd (any rank, what
// F.nll_loss calls) and cross_entropy_loss (class indices or class probabilities, label
// smoothing), as Composite rows of ops.def, over the primitives nll_loss_forward /
// nll_loss2d_forward and their backward ops, as PyTorch's (Note [Losses are composites] in
// loss.cpp).
//
// Note [nll_loss as gather]: PyTorch's kernels loop over the batch picking
// input[i, target[i]]; here one gather along the class dim picks every element at once (ignored
// targets pick class 0 and are then zeroed by where(), so an infinite log-probability at an
// ignored position neither shows in the loss nor turns its gradient into NaN), weights come
// from index_select, and the mean divides by the summed weights of the targets kept, as
// PyTorch's total_weight. The checks, their order and their texts are PyTorch 1.13's.
#include <limits>
#include <optional>

#include "../../autograd/record.h"
#include "../../dispatch/boxing.h"
#include "../../ops/reduce_common.h"
#include "ember/nn/functional.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"
#include "loss_common.h"

namespace ember {

using dispatch::OpId;

namespace {

using nn::functional::Reduction;
using nn::functional::detail::check_floating;

constexpr int64_t kNone = static_cast<int64_t>(Reduction::None);
constexpr int64_t kMean = static_cast<int64_t>(Reduction::Mean);
constexpr int64_t kSum = static_cast<int64_t>(Reduction::Sum);

Tensor defined_or_empty(const std::optional<Tensor>& t) { return t.value_or(Tensor()); }

// PyTorch's kernels read weight (and then target) as the input's element type; a mismatch is
// the accessor's error.
void check_weight_dtype(const Tensor& self, const Tensor& weight) {
  EMBER_CHECK(!weight.defined() || weight.dtype() == self.dtype(), "expected scalar type ",
              scalar_type_name(self.dtype()), " but found ", scalar_type_name(weight.dtype()));
}

void check_target_dtype(const Tensor& target, bool allow_byte) {
  EMBER_CHECK(target.dtype() == kInt64 || (allow_byte && target.dtype() == kUInt8),
              "expected scalar type Long but found ", scalar_type_name(target.dtype()));
}

// Every target that is not ignore_index must name a class. The values are read where they lie
// (strided), without running ops; meta tensors and wrapper subclasses have no values to read
// (a wrapper's gather goes to its own handler).
void check_target_bounds(const Tensor& target, int64_t n_classes, int64_t ignore_index) {
  if (target.is_meta() || target.numel() == 0 || target.data_ptr() == nullptr) return;
  const IntArrayRef sizes = target.sizes(), strides = target.strides();
  const int64_t nd = target.dim();
  DimVector index(static_cast<size_t>(nd), 0);
  const bool is_byte = target.dtype() == kUInt8;
  const char* base = static_cast<const char*>(target.data_ptr());
  const int64_t itemsize = static_cast<int64_t>(target.element_size());
  int64_t offset = 0;
  for (int64_t n = 0; n < target.numel(); ++n) {
    const char* p = base + offset * itemsize;
    const int64_t v = is_byte ? *reinterpret_cast<const uint8_t*>(p) : *reinterpret_cast<const int64_t*>(p);
    EMBER_CHECK_INDEX(v == ignore_index || (v >= 0 && v < n_classes), "Target ", v,
                      " is out of bounds.");
    for (int64_t d = nd - 1; d >= 0; --d) {  // next index in row-major order
      offset += strides[d];
      if (++index[d] < sizes[d]) break;
      offset -= strides[d] * sizes[d];
      index[d] = 0;
    }
  }
}

// Note [nll_loss as gather]. `self` is [C] with a 0-d target, or [N, C, d1, ...] with a target
// [N, d1, ...]; weight is undefined or holds C values.
std::tuple<Tensor, Tensor> nll_core(const Tensor& self, const Tensor& target, const Tensor& weight,
                                    int64_t reduction, int64_t ignore_index) {
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  // Compare as int64, as the kernels do (a uint8 target must not wrap ignore_index around).
  const Tensor t = target.dtype() == kInt64 ? target : target.to(kInt64);
  const Tensor keep = t != ignore_index;
  const Tensor safe = t.masked_fill(keep.logical_not(), 0);
  // 16-bit inputs: the picked values and weights (exact) are summed and divided in float32 and
  // rounded once, where PyTorch's bfloat16 kernel accumulates in bfloat16.
  const bool reduced = self.dtype() == kFloat16 || self.dtype() == kBFloat16;
  const auto up = [&](const Tensor& v) { return reduced ? v.to(kFloat32) : v; };
  const Tensor picked = up(self.gather(class_dim, safe.unsqueeze(class_dim)).squeeze(class_dim));
  const Tensor zero = zeros({}, TensorOptions(picked.dtype()).device(self.device()));
  Tensor losses, total_weight;
  if (weight.defined()) {
    const Tensor w = up(weight.reshape({-1}).index_select(0, safe.reshape({-1})).view(t.sizes()));
    losses = where(keep, (picked * w).neg(), zero);
    total_weight = where(keep, w, zero).sum();
  } else {
    losses = where(keep, picked.neg(), zero);
    total_weight = keep.sum();
  }
  // As PyTorch's kernels: any reduction but none and mean sums; total_weight is 0 for none.
  Tensor out = losses;
  if (reduction != kNone) out = reduction == kMean ? losses.sum() / total_weight : losses.sum();
  if (reduction == kNone) total_weight = zeros({}, TensorOptions(self.dtype()).device(self.device()));
  return {reduced ? out.to(self.dtype()) : out, total_weight.to(self.dtype())};
}

// The gradient of nll_core for self: -weight[target] * grad_output (/ total_weight for the
// mean) at each kept target's class, 0 elsewhere.
Tensor nll_backward_core(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const Tensor& weight, int64_t reduction, int64_t ignore_index,
                         const Tensor& total_weight) {
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const Tensor t = target.dtype() == kInt64 ? target : target.to(kInt64);
  const Tensor keep = t != ignore_index;
  const Tensor safe = t.masked_fill(keep.logical_not(), 0);
  Tensor g = reduction == kMean ? grad_output / total_weight : grad_output;
  Tensor coef = weight.defined()
                    ? -(weight.reshape({-1}).index_select(0, safe.reshape({-1})).view(t.sizes()) * g)
                    : -g.expand(t.sizes());
  coef = where(keep, coef, zeros({}, TensorOptions(coef.dtype()).device(coef.device())));
  return zeros_like(self).scatter(class_dim, safe.unsqueeze(class_dim),
                                  coef.to(self.dtype()).unsqueeze(class_dim));
}

// The checks of nll_loss_forward; the target nll_core reads.
Tensor nll_loss_checked_target(const Tensor& self, const Tensor& target, const Tensor& weight) {
  EMBER_CHECK(self.dim() > 0 && self.dim() <= 2, "input tensor should be 1D or 2D");
  EMBER_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
  const bool no_batch_dim = self.dim() == 1 && target.dim() == 0;
  EMBER_CHECK(no_batch_dim || self.size(0) == target.size(0), "size mismatch (got input: ",
              self.sizes(), ", target: ", target.sizes(), ")");
  const int64_t n_classes = self.size(-1);
  EMBER_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == n_classes),
              "weight tensor should be defined either for all ", n_classes,
              " classes or no classes but got weight tensor of shape: ", weight.sizes());
  check_floating("nll_loss_out_frame", self.dtype());
  check_weight_dtype(self, weight);
  check_target_dtype(target, /*allow_byte=*/true);
  // A 1-d input with a 1-d target of C elements passes the checks above; PyTorch 1.13's kernel
  // then reads target[0] alone, and so does ember.
  return self.dim() == 1 && target.dim() == 1 ? target.select(0, 0) : target;
}

std::tuple<Tensor, Tensor> nll_loss_forward_impl(const Tensor& self, const Tensor& target,
                                                 const std::optional<Tensor>& weight_opt,
                                                 int64_t reduction, int64_t ignore_index) {
  const Tensor weight = defined_or_empty(weight_opt);
  const Tensor t = nll_loss_checked_target(self, target, weight);
  check_target_bounds(t, self.size(-1), ignore_index);
  return nll_core(self, t, weight, reduction, ignore_index);
}

Tensor nll_loss_backward_impl(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                              const std::optional<Tensor>& weight_opt, int64_t reduction,
                              int64_t ignore_index, const Tensor& total_weight) {
  const Tensor weight = defined_or_empty(weight_opt);
  const Tensor t = nll_loss_checked_target(self, target, weight);
  return nll_backward_core(grad_output, self, t, weight, reduction, ignore_index, total_weight);
}

Tensor nll_loss_impl(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                     int64_t reduction, int64_t ignore_index) {
  return std::get<0>(nll_loss_forward(self, target, weight, reduction, ignore_index));
}

void nll_loss2d_check(const Tensor& self, const Tensor& target, const Tensor& weight) {
  EMBER_CHECK(target.dim() == 3,
              "only batches of spatial targets supported (3D tensors) but got targets of dimension: ",
              target.dim());
  EMBER_CHECK(self.dim() == 4,
              "only batches of spatial inputs supported (4D tensors), but got input of dimension: ",
              self.dim());
  EMBER_CHECK(!weight.defined() || weight.numel() == self.size(1),
              "weight tensor should be defined either for all or no classes");
  // (sic: PyTorch's message has no closing parenthesis)
  EMBER_CHECK(self.size(0) == target.size(0) && self.size(2) == target.size(1) &&
                  self.size(3) == target.size(2),
              "size mismatch (got input: ", self.sizes(), " , target: ", target.sizes());
  check_floating("nll_loss2d_forward_out_frame", self.dtype());
  check_weight_dtype(self, weight);
  check_target_dtype(target, /*allow_byte=*/false);
}

std::tuple<Tensor, Tensor> nll_loss2d_forward_impl(const Tensor& self, const Tensor& target,
                                                   const std::optional<Tensor>& weight_opt,
                                                   int64_t reduction, int64_t ignore_index) {
  const Tensor weight = defined_or_empty(weight_opt);
  nll_loss2d_check(self, target, weight);
  check_target_bounds(target, self.size(1), ignore_index);
  return nll_core(self, target, weight, reduction, ignore_index);
}

Tensor nll_loss2d_backward_impl(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                const std::optional<Tensor>& weight_opt, int64_t reduction,
                                int64_t ignore_index, const Tensor& total_weight) {
  const Tensor weight = defined_or_empty(weight_opt);
  nll_loss2d_check(self, target, weight);
  return nll_backward_core(grad_output, self, target, weight, reduction, ignore_index, total_weight);
}

Tensor nll_loss2d_impl(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                       int64_t reduction, int64_t ignore_index) {
  return std::get<0>(nll_loss2d_forward(self, target, weight, reduction, ignore_index));
}

// ---- autograd: nll_loss_forward / nll_loss2d_forward and their backward ops ----
using autograd::OpNode;
using autograd::tensor_list;

// PyTorch's check for inputs its derivative formulas leave out (weight, total_weight): an
// error rather than a gradient silently missing.
void check_not_differentiable(const char* fn, const char* arg, const std::optional<Tensor>& t) {
  EMBER_CHECK(!GradMode::is_enabled() || !t || !t->defined() || !t->requires_grad(), "The function '",
              fn, "' is not differentiable with respect to argument '", arg,
              "'. This input cannot have requires_grad True.");
}

using NllForward = std::tuple<Tensor, Tensor> (*)(const Tensor&, const Tensor&,
                                                  const std::optional<Tensor>&, int64_t, int64_t);
using NllBackward = Tensor (*)(const Tensor&, const Tensor&, const Tensor&,
                               const std::optional<Tensor>&, int64_t, int64_t, const Tensor&);

// NllLossBackward0 / NllLoss2DBackward0: d self = nll_loss_backward(grad, ...); target and
// weight get none (as PyTorch's), total_weight is not differentiable.
template <OpId id, auto impl, NllBackward backward>
std::tuple<Tensor, Tensor> nll_forward_autograd(const Tensor& self, const Tensor& target,
                                                const std::optional<Tensor>& weight,
                                                const int64_t& reduction, const int64_t& ignore_index) {
  const char* fn = id == OpId::nll_loss_forward ? "nll_loss_forward" : "nll_loss2d_forward";
  check_not_differentiable(fn, "weight", weight);
  autograd::Recorder r(id == OpId::nll_loss_forward ? "NllLossBackward0" : "NllLoss2DBackward0", self);
  auto outs = r.forward(
      [&] { return dispatch::call<impl>(id, self, target, weight, reduction, ignore_index); });
  if (!r) return outs;
  const size_t self_ = r.save(self, "self"), target_ = r.save(target, "target");
  const size_t weight_ = r.save_if(weight.has_value() && weight->defined(), weight, "weight");
  r.values("ignore_index", ignore_index, "reduction", reduction);
  const bool has_w = weight.has_value() && weight->defined();
  const size_t total_ = weight_ + 1;
  auto list = r.finish(std::vector<Tensor>{std::get<0>(outs), std::get<1>(outs)},
                       [=](OpNode& n, const tensor_list& g) -> tensor_list {
    if (!g[0].defined()) return {Tensor()};
    const std::optional<Tensor> w = has_w ? std::optional<Tensor>(n.saved(weight_)) : std::nullopt;
    return {backward(g[0], n.saved(self_), n.saved(target_), w, reduction, ignore_index,
                     n.saved(total_))};
  }, {true, false});
  ops::save_output_at(r, list[1], total_, "total_weight");
  return {list[0], list[1]};
}

// NllLossBackwardBackward0: nll_loss_backward is linear in grad_output; its gradient for
// grad_output is the forward loss of the incoming grad (PyTorch's), none for self.
template <OpId id, auto impl, NllForward forward>
Tensor nll_backward_autograd(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                             const std::optional<Tensor>& weight, const int64_t& reduction,
                             const int64_t& ignore_index, const Tensor& total_weight) {
  const char* fn = id == OpId::nll_loss_backward ? "nll_loss_backward" : "nll_loss2d_backward";
  check_not_differentiable(fn, "weight", weight);
  check_not_differentiable(fn, "total_weight", total_weight);
  autograd::Recorder r(id == OpId::nll_loss_backward ? "NllLossBackwardBackward0"
                                                     : "NllLoss2DBackwardBackward0",
                       grad_output, self);
  Tensor out = r.forward([&] {
    return dispatch::call<impl>(id, grad_output, self, target, weight, reduction, ignore_index,
                                total_weight);
  });
  if (!r) return out;
  const bool has_w = weight.has_value() && weight->defined();
  const size_t target_ = r.save(target, "target"), weight_ = r.save_if(has_w, weight, "weight");
  r.values("ignore_index", ignore_index, "reduction", reduction);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const std::optional<Tensor> w = has_w ? std::optional<Tensor>(n.saved(weight_)) : std::nullopt;
    return tensor_list{
        n.needs(0) ? std::get<0>(forward(g[0], n.saved(target_), w, reduction, ignore_index)) : Tensor(),
        n.needs(1) ? zeros_like(g[0]) : Tensor()};
  });
}

Tensor nll_loss_nd_impl(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                        int64_t reduction, int64_t ignore_index) {
  EMBER_CHECK_VALUE(self.dim() >= 1, "Expected 1 or more dimensions (got ", self.dim(), ")");
  // PyTorch 1.13 reads a 0-d target's batch size past the end of its (empty) shape and reports
  // 0; ember reports 0 by design.
  const int64_t target_batch = target.dim() > 0 ? target.size(0) : 0;
  EMBER_CHECK_VALUE(self.dim() == 1 || self.size(0) == target_batch, "Expected input batch_size (",
                    self.size(0), ") to match target batch_size (", target_batch, ").");
  if (self.dim() <= 2) return nll_loss(self, target, weight, reduction, ignore_index);
  if (self.dim() == 4) return nll_loss2d(self, target, weight, reduction, ignore_index);
  // 3 or more than 4 dims: as a [N, C, 1, d1 * d2 * ...] image.
  const int64_t n = self.size(0), c = self.size(1);
  DimVector out_size{n};
  for (int64_t d = 2; d < self.dim(); ++d) out_size.push_back(self.size(d));
  const bool target_fits =
      target.dim() >= 1 && target.sizes().slice(1) == IntArrayRef(out_size).slice(1);
  EMBER_CHECK(target_fits, "Expected target size ", IntArrayRef(out_size), ", got ", target.sizes());
  const Tensor input4 = self.numel() > 0 ? self.contiguous().view({n, c, 1, -1})
                                         : self.contiguous().view({n, c, 0, 0});
  const Tensor target3 = target.numel() > 0 ? target.contiguous().view({n, 1, -1})
                                            : target.contiguous().view({n, 0, 0});
  Tensor out = nll_loss2d(input4, target3, weight, reduction, ignore_index);
  return reduction == kNone ? out.view(out_size) : out;
}

// ---- cross entropy ----

int64_t class_dim_of(const Tensor& self) { return self.dim() == 1 ? 0 : 1; }

// weight as [1, C, 1, ...], to broadcast along the class dim of a >= 2-d input.
Tensor weight_along_classes(const Tensor& weight, int64_t ndim, int64_t class_dim) {
  if (ndim <= 1) return weight;
  DimVector shape(static_cast<size_t>(ndim), 1);
  shape[static_cast<size_t>(class_dim)] = weight.size(0);
  return weight.view(shape);
}

[[noreturn]] void invalid_reduction(int64_t reduction) {
  EMBER_FAIL("Invalid reduction type encountered in cross_entropy: ", reduction);
}

void check_label_smoothing(double label_smoothing) {
  EMBER_CHECK(label_smoothing <= 1.0, "label_smoothing must be between 0.0 and 1.0. Got: ",
              label_smoothing);
}

// Class probabilities: -sum_c target_c * log_softmax(self)_c (* weight_c), smoothed toward the
// uniform distribution; the mean divides by the number of samples (weights do not enter it).
Tensor cross_entropy_prob_target(const Tensor& self, const Tensor& target_probs, const Tensor& weight,
                                 int64_t reduction, double label_smoothing) {
  const int64_t class_dim = class_dim_of(self);
  const int64_t n_classes = self.size(class_dim);
  EMBER_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == n_classes),
              "cross_entropy: weight tensor should be defined either for all ", n_classes,
              " classes or no classes but got weight tensor of shape: ", weight.sizes());
  const Tensor input = log_softmax(self, class_dim, self.dtype());
  Tensor target = target_probs;
  if (label_smoothing > 0.0) {
    check_label_smoothing(label_smoothing);
    target = target_probs * (1 - label_smoothing) + label_smoothing / static_cast<double>(n_classes);
  }
  Tensor prod = input * target;
  if (weight.defined()) prod = prod * weight_along_classes(weight, input.dim(), class_dim);
  switch (reduction) {
    case kMean: {
      Tensor total = -prod.sum();
      // An empty input averages to NaN (and n_classes may be 0, so no division).
      if (input.numel() == 0) return total.fill_(std::numeric_limits<double>::quiet_NaN());
      return total / (input.numel() / n_classes);
    }
    case kSum: return -prod.sum();
    case kNone: return -prod.sum({class_dim});
    default: invalid_reduction(reduction);
  }
}

// Class indices with label smoothing: (1 - ε) nll + ε / C * the loss against the uniform
// distribution, whose mean divides by the weights of the targets kept, as nll_loss's does.
Tensor cross_entropy_label_smoothing(const Tensor& self, const Tensor& target, const Tensor& weight,
                                     int64_t reduction, int64_t ignore_index,
                                     double label_smoothing) {
  const int64_t class_dim = class_dim_of(self);
  const Tensor input = log_softmax(self, class_dim, self.dtype());
  const Tensor nllloss =
      nll_loss_nd(input, target, weight.defined() ? std::optional<Tensor>(weight) : std::nullopt,
                  reduction, ignore_index);
  const int64_t n_classes = input.size(class_dim);
  Tensor smooth_loss = weight.defined()
                           ? -(input * weight_along_classes(weight, input.dim(), class_dim)).sum({class_dim})
                           : -input.sum({class_dim});
  const Tensor ignore_mask = target == ignore_index;
  smooth_loss = smooth_loss.masked_fill(ignore_mask, 0.0);
  Tensor ret;
  switch (reduction) {
    case kMean:
      if (weight.defined()) {
        // The weights of the targets kept: PyTorch gathers weight[target[~ignore_mask]];
        // gathering at class 0 for ignored targets and zeroing those is the same sum.
        const Tensor kept = target.masked_fill(ignore_mask, 0).flatten();
        ret = smooth_loss.sum() / weight.gather(0, kept).masked_fill(ignore_mask.flatten(), 0).sum();
      } else {
        ret = smooth_loss.sum() / ignore_mask.logical_not().sum();
      }
      break;
    case kSum: ret = smooth_loss.sum(); break;
    case kNone: ret = smooth_loss; break;
    default: invalid_reduction(reduction);
  }
  return (1 - label_smoothing) * nllloss + ret * (label_smoothing / static_cast<double>(n_classes));
}

Tensor cross_entropy_loss_impl(const Tensor& self, const Tensor& target,
                               const std::optional<Tensor>& weight, int64_t reduction,
                               int64_t ignore_index, double label_smoothing) {
  if (self.sizes() == target.sizes()) {
    // Same shapes: the target holds class probabilities.
    EMBER_CHECK(is_floating(target.dtype()),
                "Expected floating point type for target with class probabilities, got ",
                scalar_type_name(target.dtype()));
    EMBER_CHECK(ignore_index < 0, "ignore_index is not supported for floating point target");
    return cross_entropy_prob_target(self, target, defined_or_empty(weight), reduction,
                                     label_smoothing);
  }
  if (label_smoothing > 0.0) {
    check_label_smoothing(label_smoothing);
    return cross_entropy_label_smoothing(self, target, defined_or_empty(weight), reduction,
                                         ignore_index, label_smoothing);
  }
  return nll_loss_nd(log_softmax(self, class_dim_of(self), self.dtype()), target, weight,
                     reduction, ignore_index);
}

}  // namespace

Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                int64_t reduction, int64_t ignore_index) {
  return dispatch::call<nll_loss_impl>(OpId::nll_loss, self, target, weight, reduction, ignore_index);
}
Tensor nll_loss2d(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                  int64_t reduction, int64_t ignore_index) {
  return dispatch::call<nll_loss2d_impl>(OpId::nll_loss2d, self, target, weight, reduction,
                                         ignore_index);
}
Tensor nll_loss_nd(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                   int64_t reduction, int64_t ignore_index) {
  return dispatch::call<nll_loss_nd_impl>(OpId::nll_loss_nd, self, target, weight, reduction,
                                          ignore_index);
}
Tensor cross_entropy_loss(const Tensor& self, const Tensor& target,
                          const std::optional<Tensor>& weight, int64_t reduction,
                          int64_t ignore_index, double label_smoothing) {
  return dispatch::call<cross_entropy_loss_impl>(OpId::cross_entropy_loss, self, target, weight,
                                                 reduction, ignore_index, label_smoothing);
}

std::tuple<Tensor, Tensor> nll_loss_forward(const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction,
                                            int64_t ignore_index) {
  return dispatch::call<nll_loss_forward_impl>(OpId::nll_loss_forward, self, target, weight,
                                               reduction, ignore_index);
}
Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const std::optional<Tensor>& weight, int64_t reduction,
                         int64_t ignore_index, const Tensor& total_weight) {
  return dispatch::call<nll_loss_backward_impl>(OpId::nll_loss_backward, grad_output, self, target,
                                                weight, reduction, ignore_index, total_weight);
}
std::tuple<Tensor, Tensor> nll_loss2d_forward(const Tensor& self, const Tensor& target,
                                              const std::optional<Tensor>& weight,
                                              int64_t reduction, int64_t ignore_index) {
  return dispatch::call<nll_loss2d_forward_impl>(OpId::nll_loss2d_forward, self, target, weight,
                                                 reduction, ignore_index);
}
Tensor nll_loss2d_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                           const std::optional<Tensor>& weight, int64_t reduction,
                           int64_t ignore_index, const Tensor& total_weight) {
  return dispatch::call<nll_loss2d_backward_impl>(OpId::nll_loss2d_backward, grad_output, self,
                                                  target, weight, reduction, ignore_index,
                                                  total_weight);
}

EMBER_REGISTER_OP(nll_loss_forward, &nll_loss_forward);
EMBER_REGISTER_OP(nll_loss_backward, &nll_loss_backward);
EMBER_REGISTER_OP(nll_loss2d_forward, &nll_loss2d_forward);
EMBER_REGISTER_OP(nll_loss2d_backward, &nll_loss2d_backward);
EMBER_REGISTER_AUTOGRAD(nll_loss_forward,
                        (&nll_forward_autograd<OpId::nll_loss_forward, nll_loss_forward_impl,
                                               nll_loss_backward>));
EMBER_REGISTER_AUTOGRAD(nll_loss2d_forward,
                        (&nll_forward_autograd<OpId::nll_loss2d_forward, nll_loss2d_forward_impl,
                                               nll_loss2d_backward>));
EMBER_REGISTER_AUTOGRAD(nll_loss_backward,
                        (&nll_backward_autograd<OpId::nll_loss_backward, nll_loss_backward_impl,
                                                nll_loss_forward>));
EMBER_REGISTER_AUTOGRAD(nll_loss2d_backward,
                        (&nll_backward_autograd<OpId::nll_loss2d_backward, nll_loss2d_backward_impl,
                                                nll_loss2d_forward>));
EMBER_REGISTER_OP(nll_loss, &nll_loss);
EMBER_REGISTER_OP(nll_loss2d, &nll_loss2d);
EMBER_REGISTER_OP(nll_loss_nd, &nll_loss_nd);
EMBER_REGISTER_OP(cross_entropy_loss, &cross_entropy_loss);

namespace nn::functional {

Tensor nll_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                int64_t ignore_index, Reduction reduction) {
  return ember::nll_loss_nd(input, target, weight, static_cast<int64_t>(reduction), ignore_index);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                     int64_t ignore_index, Reduction reduction, double label_smoothing) {
  return ember::cross_entropy_loss(input, target, weight, static_cast<int64_t>(reduction),
                                   ignore_index, label_smoothing);
}

}  // namespace nn::functional

}  // namespace ember
