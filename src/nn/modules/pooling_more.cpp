// The 1-d / 3-d pools, LPPool1d / 2d and the max unpools of issue 16: PyTorch 1.13's
// attributes, forwards through nn::functional, reprs.
#include "ember/nn/modules/pooling_more.h"

#include "ember/nn/functional.h"
#include "ember/nn/module_clone.h"
#include "module_util.h"

namespace ember::nn {

namespace F = functional;

namespace {
Value pair_value(const std::tuple<Tensor, Tensor>& t) {
  return Value(std::vector<Tensor>{std::get<0>(t), std::get<1>(t)});
}
}  // namespace

// ---- MaxPool1d / 3d ----
MaxPoolNd::MaxPoolNd(std::string type_name, size_t spatial_, IntOrTuple kernel_size_,
                     std::optional<IntOrTuple> stride_, IntOrTuple padding_, IntOrTuple dilation_,
                     bool return_indices_, bool ceil_mode_)
    : Module(std::move(type_name)),
      kernel_size(kernel_size_),
      stride(stride_ ? *stride_ : kernel_size_),
      padding(std::move(padding_)),
      dilation(std::move(dilation_)),
      return_indices(return_indices_),
      ceil_mode(ceil_mode_),
      spatial(spatial_) {}

Tensor MaxPoolNd::forward(const Tensor& input) {
  if (spatial == 1)
    return F::max_pool1d(input, kernel_size.values(), stride.values(), padding.values(),
                         dilation.values(), ceil_mode);
  return F::max_pool3d(input, kernel_size.values(), stride.values(), padding.values(),
                       dilation.values(), ceil_mode);
}

std::tuple<Tensor, Tensor> MaxPoolNd::forward_with_indices(const Tensor& input) {
  if (spatial == 1)
    return F::max_pool1d_with_indices(input, kernel_size.values(), stride.values(),
                                      padding.values(), dilation.values(), ceil_mode);
  return F::max_pool3d_with_indices(input, kernel_size.values(), stride.values(),
                                    padding.values(), dilation.values(), ceil_mode);
}

Value MaxPoolNd::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  const Tensor input = inputs[0].to_tensor();
  if (!return_indices) return forward(input);
  return pair_value(forward_with_indices(input));
}

std::string MaxPoolNd::extra_repr() const {
  return "kernel_size=" + kernel_size.repr() + ", stride=" + stride.repr() +
         ", padding=" + padding.repr() + ", dilation=" + dilation.repr() +
         ", ceil_mode=" + detail::py_bool(ceil_mode);
}

// ---- AvgPool1d / 3d ----
AvgPoolNd::AvgPoolNd(std::string type_name, size_t spatial_, IntOrTuple kernel_size_,
                     std::optional<IntOrTuple> stride_, IntOrTuple padding_, bool ceil_mode_,
                     bool count_include_pad_, std::optional<int64_t> divisor_override_)
    : Module(std::move(type_name)),
      kernel_size(kernel_size_),
      stride(stride_ ? *stride_ : kernel_size_),
      padding(std::move(padding_)),
      ceil_mode(ceil_mode_),
      count_include_pad(count_include_pad_),
      divisor_override(divisor_override_),
      spatial(spatial_) {}

// PyTorch's AvgPool1d keeps _single(...) tuples.
AvgPool1d::AvgPool1d(IntOrTuple kernel_size, std::optional<IntOrTuple> stride, IntOrTuple padding,
                     bool ceil_mode, bool count_include_pad)
    : AvgPoolNd("AvgPool1d", 1, IntOrTuple(kernel_size.expand(1)),
                IntOrTuple((stride ? *stride : kernel_size).expand(1)), IntOrTuple(padding.expand(1)),
                ceil_mode, count_include_pad, std::nullopt) {}

Tensor AvgPoolNd::forward(const Tensor& input) {
  if (spatial == 1)
    return F::avg_pool1d(input, kernel_size.values(), stride.values(), padding.values(), ceil_mode,
                         count_include_pad);
  return F::avg_pool3d(input, kernel_size.values(), stride.values(), padding.values(), ceil_mode,
                       count_include_pad, divisor_override);
}

Value AvgPoolNd::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::string AvgPoolNd::extra_repr() const {
  return "kernel_size=" + kernel_size.repr() + ", stride=" + stride.repr() +
         ", padding=" + padding.repr();
}

// ---- adaptive pools ----
AdaptivePoolNd::AdaptivePoolNd(std::string type_name, size_t spatial_, bool max_,
                               AdaptiveOutputSize output_size_, bool return_indices_)
    : Module(std::move(type_name)),
      output_size(std::move(output_size_)),
      return_indices(return_indices_),
      spatial(spatial_),
      max(max_) {}

std::vector<int64_t> AdaptivePoolNd::resolved(const Tensor& input) const {
  return output_size.resolve(input, spatial);
}

Tensor AdaptivePoolNd::forward(const Tensor& input) {
  if (max) return std::get<0>(forward_with_indices(input));
  return spatial == 1 ? F::adaptive_avg_pool1d(input, resolved(input))
                      : F::adaptive_avg_pool3d(input, resolved(input));
}

std::tuple<Tensor, Tensor> AdaptivePoolNd::forward_with_indices(const Tensor& input) {
  return spatial == 1 ? F::adaptive_max_pool1d_with_indices(input, resolved(input))
                      : F::adaptive_max_pool3d_with_indices(input, resolved(input));
}

Value AdaptivePoolNd::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  const Tensor input = inputs[0].to_tensor();
  if (!max || !return_indices) return forward(input);
  return pair_value(forward_with_indices(input));
}

std::string AdaptivePoolNd::extra_repr() const { return "output_size=" + output_size.repr(); }

// ---- LPPool ----
LPPoolNd::LPPoolNd(std::string type_name, size_t spatial_, Number norm_type_, IntOrTuple kernel_size_,
                   std::optional<IntOrTuple> stride_, bool ceil_mode_)
    : Module(std::move(type_name)),
      norm_type(norm_type_),
      kernel_size(std::move(kernel_size_)),
      stride(std::move(stride_)),
      ceil_mode(ceil_mode_),
      spatial(spatial_) {}

Tensor LPPoolNd::forward(const Tensor& input) {
  const std::vector<int64_t> k = kernel_size.expand(spatial);
  const std::vector<int64_t> s = stride ? stride->expand(spatial) : k;
  return spatial == 1 ? F::lp_pool1d(input, norm_type, k, s, ceil_mode)
                      : F::lp_pool2d(input, norm_type, k, s, ceil_mode);
}

Value LPPoolNd::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::string LPPoolNd::extra_repr() const {
  return "norm_type=" + norm_type.repr() + ", kernel_size=" + kernel_size.repr() +
         ", stride=" + (stride ? stride->repr() : std::string("None")) +
         ", ceil_mode=" + detail::py_bool(ceil_mode);
}

// ---- MaxUnpool ----
MaxUnpoolNd::MaxUnpoolNd(std::string type_name, size_t spatial, const IntOrTuple& kernel_size_,
                         const std::optional<IntOrTuple>& stride_, const IntOrTuple& padding_)
    : Module(std::move(type_name)),
      kernel_size(kernel_size_.expand(spatial)),
      stride(stride_ ? stride_->expand(spatial) : kernel_size_.expand(spatial)),
      padding(padding_.expand(spatial)) {}

Tensor MaxUnpoolNd::forward(const Tensor& input, const Tensor& indices,
                            const std::optional<std::vector<int64_t>>& output_size) {
  return F::max_unpool(input, indices, kernel_size, stride, padding, output_size, kernel_size.size());
}

Value MaxUnpoolNd::forward(const std::vector<Value>& inputs) {
  EMBER_CHECK_TYPE(inputs.size() <= 3, type_name(),
                   ".forward() takes from 3 to 4 positional arguments but ", inputs.size() + 1,
                   " were given");
  if (inputs.size() < 3) {
    detail::check_forward_inputs(type_name(), inputs, {"input", "indices"});
    return forward(inputs[0].to_tensor(), inputs[1].to_tensor());
  }
  std::optional<std::vector<int64_t>> output_size;
  if (!inputs[2].is_none()) output_size = inputs[2].to_int_list();
  return forward(inputs[0].to_tensor(), inputs[1].to_tensor(), output_size);
}

std::string MaxUnpoolNd::extra_repr() const {
  return "kernel_size=" + detail::py_int_tuple(kernel_size) + ", stride=" +
         detail::py_int_tuple(stride) + ", padding=" + detail::py_int_tuple(padding);
}

}  // namespace ember::nn

namespace ember::nn {
namespace {
const bool registered = [] {
  register_cloneable<MaxPool1d>();
  register_cloneable<MaxPool3d>();
  register_cloneable<AvgPool1d>();
  register_cloneable<AvgPool3d>();
  register_cloneable<AdaptiveAvgPool1d>();
  register_cloneable<AdaptiveAvgPool3d>();
  register_cloneable<AdaptiveMaxPool1d>();
  register_cloneable<AdaptiveMaxPool3d>();
  register_cloneable<LPPool1d>();
  register_cloneable<LPPool2d>();
  register_cloneable<MaxUnpool1d>();
  register_cloneable<MaxUnpool2d>();
  register_cloneable<MaxUnpool3d>();
  return true;
}();
}  // namespace
}  // namespace ember::nn
