// The layers of layers_more.h: PyTorch 1.13's attributes, forwards through nn::functional, reprs.
#include "ember/nn/modules/layers_more.h"

#include "ember/nn/functional.h"
#include "ember/nn/module_clone.h"
#include "module_util.h"

namespace ember::nn {

namespace F = functional;

#define EMBER_BOXED_UNARY_FORWARD(Cls)                                  \
  Value Cls::forward(const std::vector<Value>& inputs) {               \
    detail::check_forward_inputs(type_name(), inputs, {"input"});      \
    return forward(inputs[0].to_tensor());                             \
  }

// ---- InstanceNorm ----
InstanceNormBase::InstanceNormBase(std::string type_name, size_t no_batch_dim, int64_t num_features,
                                   double eps, std::optional<double> momentum, bool affine,
                                   bool track_running_stats, TensorOptions options)
    : BatchNormBase(std::move(type_name), num_features, eps, momentum, affine, track_running_stats,
                    options),
      no_batch_dim_(no_batch_dim) {}

void InstanceNormBase::check_input_dim(const Tensor& input) const {
  const auto lo = static_cast<int64_t>(no_batch_dim_);
  EMBER_CHECK_VALUE(input.dim() == lo || input.dim() == lo + 1, "expected ", lo, "D or ", lo + 1,
                    "D input (got ", input.dim(), "D input)");
}

Tensor InstanceNormBase::apply(const Tensor& input) {
  return F::instance_norm(input, detail::optional_tensor(running_mean()),
                          detail::optional_tensor(running_var()), detail::optional_tensor(weight()),
                          detail::optional_tensor(bias()), is_training() || !track_running_stats,
                          momentum.value_or(0.0), eps);
}

// PyTorch 1.13's _InstanceNorm.forward: the input's dims checked, an unbatched input gains the
// batch dim (a channel count other than num_features fails in batch_norm's weight check).
Tensor InstanceNormBase::forward(const Tensor& input) {
  check_input_dim(input);
  if (input.dim() == static_cast<int64_t>(no_batch_dim_)) return apply(input.unsqueeze(0)).squeeze(0);
  return apply(input);
}
EMBER_BOXED_UNARY_FORWARD(InstanceNormBase)

// ---- LocalResponseNorm ----
Tensor LocalResponseNorm::forward(const Tensor& input) {
  return F::local_response_norm(input, size, alpha, beta, k);
}
EMBER_BOXED_UNARY_FORWARD(LocalResponseNorm)
std::string LocalResponseNorm::extra_repr() const {
  return std::to_string(size) + ", alpha=" + alpha.repr() + ", beta=" + beta.repr() + ", k=" + k.repr();
}

// ---- shapes ----
Tensor Unflatten::forward(const Tensor& input) { return input.unflatten(dim, unflattened_size); }
EMBER_BOXED_UNARY_FORWARD(Unflatten)
std::string Unflatten::extra_repr() const {
  return "dim=" + std::to_string(dim) + ", unflattened_size=" + detail::py_int_tuple(unflattened_size);
}

Tensor ShuffleLayer::forward(const Tensor& input) {
  if (dynamic_cast<const PixelShuffle*>(this)) return F::pixel_shuffle(input, factor);
  if (dynamic_cast<const PixelUnshuffle*>(this)) return F::pixel_unshuffle(input, factor);
  return F::channel_shuffle(input, factor);
}
EMBER_BOXED_UNARY_FORWARD(ShuffleLayer)
std::string ShuffleLayer::extra_repr() const {
  const char* name = dynamic_cast<const PixelShuffle*>(this)     ? "upscale_factor="
                     : dynamic_cast<const PixelUnshuffle*>(this) ? "downscale_factor="
                                                                 : "groups=";
  return name + std::to_string(factor);
}

Tensor Fold::forward(const Tensor& input) {
  return F::fold(input, output_size.values(), kernel_size.values(), dilation.values(),
                 padding.values(), stride.values());
}
EMBER_BOXED_UNARY_FORWARD(Fold)
std::string Fold::extra_repr() const {
  return "output_size=" + output_size.repr() + ", kernel_size=" + kernel_size.repr() +
         ", dilation=" + dilation.repr() + ", padding=" + padding.repr() + ", stride=" + stride.repr();
}

Tensor Unfold::forward(const Tensor& input) {
  return F::unfold(input, kernel_size.values(), dilation.values(), padding.values(), stride.values());
}
EMBER_BOXED_UNARY_FORWARD(Unfold)
std::string Unfold::extra_repr() const {
  return "kernel_size=" + kernel_size.repr() + ", dilation=" + dilation.repr() +
         ", padding=" + padding.repr() + ", stride=" + stride.repr();
}

UpsamplingNearest2d::UpsamplingNearest2d(std::optional<IntOrTuple> size,
                                         std::optional<std::vector<double>> scale_factor)
    : Upsample("UpsamplingNearest2d", std::move(size), std::move(scale_factor), "nearest", std::nullopt) {}
UpsamplingBilinear2d::UpsamplingBilinear2d(std::optional<IntOrTuple> size,
                                           std::optional<std::vector<double>> scale_factor)
    : Upsample("UpsamplingBilinear2d", std::move(size), std::move(scale_factor), "bilinear", true) {}

// ---- distances ----
Tensor CosineSimilarity::forward(const Tensor& x1, const Tensor& x2) {
  return F::cosine_similarity(x1, x2, dim, eps);
}
Value CosineSimilarity::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"x1", "x2"});
  return forward(inputs[0].to_tensor(), inputs[1].to_tensor());
}
Tensor PairwiseDistance::forward(const Tensor& x1, const Tensor& x2) {
  return F::pairwise_distance(x1, x2, norm, eps, keepdim);
}
Value PairwiseDistance::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"x1", "x2"});
  return forward(inputs[0].to_tensor(), inputs[1].to_tensor());
}

// ---- dropouts ----
DropoutNd::DropoutNd(std::string type_name, double p_, bool inplace_)
    : Module(std::move(type_name)), p(p_), inplace(inplace_) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0, "dropout probability has to be between 0 and 1, but got ",
                    detail::py_float(p));
}
Tensor DropoutNd::forward(const Tensor& input) {
  if (dynamic_cast<const Dropout1d*>(this)) return F::dropout1d(input, p, is_training(), inplace);
  if (dynamic_cast<const Dropout3d*>(this)) return F::dropout3d(input, p, is_training(), inplace);
  if (dynamic_cast<const AlphaDropout*>(this)) return F::alpha_dropout(input, p, is_training(), inplace);
  return F::feature_alpha_dropout(input, p, is_training(), inplace);
}
EMBER_BOXED_UNARY_FORWARD(DropoutNd)
std::string DropoutNd::extra_repr() const {
  return "p=" + detail::py_float(p) + ", inplace=" + detail::py_bool(inplace);
}

namespace {
const bool registered = [] {
  register_cloneable<InstanceNorm1d>();
  register_cloneable<InstanceNorm2d>();
  register_cloneable<InstanceNorm3d>();
  register_cloneable<LocalResponseNorm>();
  register_cloneable<Unflatten>();
  register_cloneable<PixelShuffle>();
  register_cloneable<PixelUnshuffle>();
  register_cloneable<ChannelShuffle>();
  register_cloneable<Fold>();
  register_cloneable<Unfold>();
  register_cloneable<UpsamplingNearest2d>();
  register_cloneable<UpsamplingBilinear2d>();
  register_cloneable<CosineSimilarity>();
  register_cloneable<PairwiseDistance>();
  register_cloneable<Dropout1d>();
  register_cloneable<Dropout3d>();
  register_cloneable<AlphaDropout>();
  register_cloneable<FeatureAlphaDropout>();
  return true;
}();
}  // namespace

}  // namespace ember::nn
