// nnq.LayerNorm, GroupNorm, InstanceNorm1d/2d/3d, BatchNorm3d and nniq.BNReLU3d.
#include "ember/nn/quantized/norm_more.h"

#include "ember/nn/module_clone.h"
#include "ember/ops/factory.h"
#include "ember/quantized/norm.h"
#include "../../nn/modules/module_util.h"

namespace ember::nn::quantized {

namespace q = ember::quantized;

namespace {

#define EMBER_QNORM_BOXED_FORWARD(Cls)                             \
  Value Cls::forward(const std::vector<Value>& inputs) {          \
    detail::check_forward_inputs(type_name(), inputs, {"input"}); \
    return forward(inputs[0].to_tensor());                        \
  }

// torch.tensor(scale) / torch.tensor(zero_point) buffers.
void register_qparams(Module& m, double scale, int64_t zero_point, const TensorOptions& options) {
  m.register_buffer("scale", scalar_tensor(scale, options.dtype(options.dtype_or_default())));
  m.register_buffer("zero_point", scalar_tensor(zero_point, options.dtype(kInt64)));
}
double scale_of(Module& m) { return m.buffer("scale").item().to<double>(); }
int64_t zero_point_of(Module& m) { return m.buffer("zero_point").item().to<int64_t>(); }

// PyTorch's `self.weight = weight`: the given tensor (or None) becomes the parameter.
void assign(Module& m, const char* name, const std::optional<Tensor>& t) {
  m.parameter(name) = t ? *t : Tensor();
}

}  // namespace

// ---- LayerNorm / GroupNorm ----

LayerNorm::LayerNorm(std::vector<int64_t> shape, const std::optional<Tensor>& weight,
                     const std::optional<Tensor>& bias, double scale, int64_t zero_point,
                     double eps, bool elementwise_affine, TensorOptions options)
    : nn::LayerNorm(std::move(shape), eps, elementwise_affine, options) {
  set_type_name("QuantizedLayerNorm");
  assign(*this, "weight", weight);
  assign(*this, "bias", bias);
  register_qparams(*this, scale, zero_point, options);
}
Tensor LayerNorm::forward(const Tensor& input) {
  return q::layer_norm(input, normalized_shape, detail::optional_tensor(weight()),
                       detail::optional_tensor(bias()), eps, scale_of(*this),
                       zero_point_of(*this));
}
EMBER_QNORM_BOXED_FORWARD(LayerNorm)

GroupNorm::GroupNorm(int64_t num_groups, int64_t num_channels, const std::optional<Tensor>& weight,
                     const std::optional<Tensor>& bias, double scale, int64_t zero_point,
                     double eps, bool affine, TensorOptions options)
    : nn::GroupNorm(num_groups, num_channels, eps, affine, options) {
  set_type_name("QuantizedGroupNorm");
  assign(*this, "weight", weight);
  assign(*this, "bias", bias);
  register_qparams(*this, scale, zero_point, options);
}
Tensor GroupNorm::forward(const Tensor& input) {
  return q::group_norm(input, num_groups, detail::optional_tensor(weight()),
                       detail::optional_tensor(bias()), eps, scale_of(*this),
                       zero_point_of(*this));
}
EMBER_QNORM_BOXED_FORWARD(GroupNorm)

// ---- InstanceNorm1d / 2d / 3d ----

InstanceNorm::InstanceNorm(int spatial, int64_t num_features, const std::optional<Tensor>& weight,
                           const std::optional<Tensor>& bias, double scale, int64_t zero_point,
                           double eps, double momentum, bool affine, bool track_running_stats,
                           TensorOptions options)
    : BatchNormBase("QuantizedInstanceNorm" + std::to_string(spatial) + "d", num_features, eps,
                    momentum, affine, track_running_stats, options) {
  assign(*this, "weight", weight);
  assign(*this, "bias", bias);
  register_qparams(*this, scale, zero_point, options);
}
void InstanceNorm::check_input_dim(const Tensor&) const {}
Tensor InstanceNorm::forward(const Tensor& input) {
  return q::instance_norm(input, detail::optional_tensor(weight()),
                          detail::optional_tensor(bias()), eps, scale_of(*this),
                          zero_point_of(*this));
}
EMBER_QNORM_BOXED_FORWARD(InstanceNorm)

// ---- BatchNorm3d / BNReLU3d ----

BatchNorm3d::BatchNorm3d(int64_t num_features, double eps, double momentum, TensorOptions options)
    : BatchNorm3d("QuantizedBatchNorm3d", num_features, eps, momentum, options) {}
BatchNorm3d::BatchNorm3d(std::string type_name, int64_t num_features, double eps,
                         double momentum, TensorOptions options)
    : nn::BatchNorm3d(num_features, eps, momentum, true, true, options) {
  set_type_name(std::move(type_name));
  register_buffer("scale", scalar_tensor(1.0, options.dtype(options.dtype_or_default())));
  register_buffer("zero_point", scalar_tensor(0, options.dtype(kInt64)));
}
double BatchNorm3d::output_scale() { return scale_of(*this); }
int64_t BatchNorm3d::output_zero_point() { return zero_point_of(*this); }
Tensor BatchNorm3d::forward(const Tensor& input) {
  return q::batch_norm3d(input, detail::optional_tensor(weight()), detail::optional_tensor(bias()),
                         running_mean(), running_var(), eps, output_scale(), output_zero_point());
}
EMBER_QNORM_BOXED_FORWARD(BatchNorm3d)

BNReLU3d::BNReLU3d(int64_t num_features, double eps, double momentum, TensorOptions options)
    : BatchNorm3d("QuantizedBNReLU3d", num_features, eps, momentum, options) {}
Tensor BNReLU3d::forward(const Tensor& input) {
  EMBER_CHECK_VALUE(input.dim() == 5, "Input shape must be `(N, C, D, H, W)`!");
  return q::batch_norm3d_relu(input, detail::optional_tensor(weight()),
                              detail::optional_tensor(bias()), running_mean(), running_var(), eps,
                              output_scale(), output_zero_point());
}

namespace {
const bool registered = [] {
  register_cloneable<LayerNorm>();
  register_cloneable<GroupNorm>();
  register_cloneable<InstanceNorm1d>();
  register_cloneable<InstanceNorm2d>();
  register_cloneable<InstanceNorm3d>();
  register_cloneable<BatchNorm3d>();
  register_cloneable<BNReLU3d>();
  return true;
}();
}  // namespace

}  // namespace ember::nn::quantized
