// nn::Conv1d, Conv2d, ConvTranspose2d: PyTorch 1.13's _ConvNd (checks, parameters, init,
// padding modes, repr) over nn::functional's convolutions.
#include "ember/nn/modules/conv.h"

#include <cmath>
#include <sstream>

#include "ember/nn/functional.h"
#include "ember/ops/nn_ops.h"
#include "ember/nn/init.h"
#include "ember/ops/factory.h"
#include "module_util.h"

namespace ember::nn {

namespace F = functional;

std::string IntOrTuple::repr() const {
  return is_int_ ? std::to_string(values_[0]) : detail::py_int_tuple(values_);
}

namespace {

bool all_equal(const std::vector<int64_t>& v, int64_t x) {
  for (int64_t e : v)
    if (e != x) return false;
  return true;
}

}  // namespace

// ---- ConvNd ----

ConvNd::ConvNd(std::string type_name, size_t spatial_dims, int64_t in_channels_,
               int64_t out_channels_, const IntOrTuple& kernel_size_, const IntOrTuple& stride_,
               const ConvPadding& padding_, const IntOrTuple& dilation_, bool transposed_,
               const IntOrTuple& output_padding_, int64_t groups_, bool bias,
               std::string padding_mode_, TensorOptions options)
    : Module(std::move(type_name)),
      in_channels(in_channels_),
      out_channels(out_channels_),
      kernel_size(kernel_size_.expand(spatial_dims)),
      stride(stride_.expand(spatial_dims)),
      dilation(dilation_.expand(spatial_dims)),
      transposed(transposed_),
      output_padding(output_padding_.expand(spatial_dims)),
      groups(groups_),
      padding_mode(std::move(padding_mode_)) {
  EMBER_CHECK_VALUE(groups > 0, "groups must be a positive integer");
  EMBER_CHECK_VALUE(in_channels % groups == 0, "in_channels must be divisible by groups");
  EMBER_CHECK_VALUE(out_channels % groups == 0, "out_channels must be divisible by groups");
  if (padding_.is_string()) {
    padding_string = padding_.str();
    // Python prints the set {'same', 'valid'} in its hash order, which for these two strings
    // varies between runs; this is one of the two orders it prints.
    EMBER_CHECK_VALUE(padding_string == "same" || padding_string == "valid",
                      "Invalid padding string '", padding_string,
                      "', should be one of {'valid', 'same'}");
    EMBER_CHECK_VALUE(padding_string != "same" || all_equal(stride, 1),
                      "padding='same' is not supported for strided convolutions");
    padding.assign(spatial_dims, 0);
  } else {
    padding = padding_.values().expand(spatial_dims);
  }
  EMBER_CHECK_VALUE(padding_mode == "zeros" || padding_mode == "reflect" ||
                        padding_mode == "replicate" || padding_mode == "circular",
                    "padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, "
                    "but got padding_mode='", padding_mode, "'");

  // F.pad lists (left, right) for the last dim first.
  const size_t n = kernel_size.size();
  reversed_padding_repeated_twice.assign(2 * n, 0);
  for (size_t i = 0; i < n; ++i) {
    const size_t d = n - 1 - i;
    int64_t left = 0, right = 0;
    if (padding_string == "same") {
      const int64_t total = dilation[d] * (kernel_size[d] - 1);
      left = total / 2;
      right = total - left;
    } else if (padding_string.empty()) {
      left = right = padding[d];
    }
    reversed_padding_repeated_twice[2 * i] = left;
    reversed_padding_repeated_twice[2 * i + 1] = right;
  }

  std::vector<int64_t> wshape = transposed
                                    ? std::vector<int64_t>{in_channels, out_channels / groups}
                                    : std::vector<int64_t>{out_channels, in_channels / groups};
  wshape.insert(wshape.end(), kernel_size.begin(), kernel_size.end());
  register_parameter("weight", empty(wshape, options));
  register_parameter("bias", bias ? empty({out_channels}, options) : Tensor());
  reset_parameters();
}

void ConvNd::reset_parameters() {
  // a = sqrt(5): U(-1/sqrt(k), 1/sqrt(k)) with k = weight.size(1) * prod(kernel_size)
  // (pytorch/pytorch#15314).
  init::kaiming_uniform_(weight(), std::sqrt(5.0));
  if (bias().defined()) {
    const int64_t fan_in = init::_calculate_fan_in_and_fan_out(weight()).first;
    if (fan_in != 0) {
      const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
      init::uniform_(bias(), -bound, bound);
    }
  }
}

std::string ConvNd::extra_repr() const {
  std::string s = std::to_string(in_channels) + ", " + std::to_string(out_channels) +
                  ", kernel_size=" + detail::py_int_tuple(kernel_size) +
                  ", stride=" + detail::py_int_tuple(stride);
  if (!padding_string.empty())
    s += ", padding=" + padding_string;
  else if (!all_equal(padding, 0))
    s += ", padding=" + detail::py_int_tuple(padding);
  if (!all_equal(dilation, 1)) s += ", dilation=" + detail::py_int_tuple(dilation);
  if (!all_equal(output_padding, 0))
    s += ", output_padding=" + detail::py_int_tuple(output_padding);
  if (groups != 1) s += ", groups=" + std::to_string(groups);
  if (!detail::has_defined_parameter(*this, "bias")) s += ", bias=False";
  if (padding_mode != "zeros") s += ", padding_mode=" + padding_mode;
  return s;
}

Tensor ConvNd::pad_input(const Tensor& input) const {
  return F::pad(input, reversed_padding_repeated_twice, padding_mode);
}

// ---- Conv1d / Conv2d ----

Conv1d::Conv1d(int64_t in, int64_t out, const IntOrTuple& kernel_size, const IntOrTuple& stride,
               const ConvPadding& padding, const IntOrTuple& dilation, int64_t groups, bool bias,
               std::string padding_mode, TensorOptions options)
    : ConvNd("Conv1d", 1, in, out, kernel_size, stride, padding, dilation, false, 0, groups, bias,
             std::move(padding_mode), options) {}

Tensor Conv1d::forward(const Tensor& input) {
  return _conv_forward(input, weight(), detail::optional_tensor(bias()));
}

Tensor Conv1d::_conv_forward(const Tensor& input, const Tensor& w,
                              const std::optional<Tensor>& b) {
  if (padding_mode != "zeros") {
    const std::vector<int64_t> zero{0};
    return F::conv1d(pad_input(input), w, b, stride, zero, dilation, groups);
  }
  if (!padding_string.empty())
    return F::conv1d(input, w, b, stride, padding_string, dilation, groups);
  return F::conv1d(input, w, b, stride, padding, dilation, groups);
}

Value Conv1d::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

Conv2d::Conv2d(int64_t in, int64_t out, const IntOrTuple& kernel_size, const IntOrTuple& stride,
               const ConvPadding& padding, const IntOrTuple& dilation, int64_t groups, bool bias,
               std::string padding_mode, TensorOptions options)
    : ConvNd("Conv2d", 2, in, out, kernel_size, stride, padding, dilation, false, 0, groups, bias,
             std::move(padding_mode), options) {}

Tensor Conv2d::forward(const Tensor& input) {
  return _conv_forward(input, weight(), detail::optional_tensor(bias()));
}

Tensor Conv2d::_conv_forward(const Tensor& input, const Tensor& w,
                              const std::optional<Tensor>& b) {
  if (padding_mode != "zeros") {
    const std::vector<int64_t> zero{0, 0};
    return F::conv2d(pad_input(input), w, b, stride, zero, dilation, groups);
  }
  if (!padding_string.empty())
    return F::conv2d(input, w, b, stride, padding_string, dilation, groups);
  return F::conv2d(input, w, b, stride, padding, dilation, groups);
}

Value Conv2d::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

// ---- ConvTranspose2d ----

namespace {

// _ConvTransposeNd refuses other padding modes before _ConvNd looks at anything.
std::string zeros_only(std::string padding_mode, const char* type_name) {
  EMBER_CHECK_VALUE(padding_mode == "zeros", "Only \"zeros\" padding mode is supported for ",
                    type_name);
  return padding_mode;
}

std::string list_str(IntArrayRef v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

ConvTranspose2d::ConvTranspose2d(int64_t in, int64_t out, const IntOrTuple& kernel_size,
                                 const IntOrTuple& stride, const IntOrTuple& padding,
                                 const IntOrTuple& output_padding, int64_t groups, bool bias,
                                 const IntOrTuple& dilation, std::string padding_mode,
                                 TensorOptions options)
    : ConvNd("ConvTranspose2d", 2, in, out, kernel_size, stride, padding.expand(2), dilation,
             true, output_padding, groups, bias, zeros_only(std::move(padding_mode), "ConvTranspose2d"), options) {}

// PyTorch's _ConvTransposeNd._output_padding: the output sizes reachable from this input are
// [min, min + stride - 1] per dim; output_padding selects one of them.
std::vector<int64_t> ConvNd::transposed_output_padding(const Tensor& input,
                                                       std::vector<int64_t> output_size) const {
  const size_t spatial = kernel_size.size();
  const bool has_batch_dim = input.dim() == static_cast<int64_t>(spatial) + 2;
  const size_t non_spatial = has_batch_dim ? 2 : 1;
  if (output_size.size() == non_spatial + spatial)
    output_size.erase(output_size.begin(), output_size.begin() + static_cast<int64_t>(non_spatial));
  EMBER_CHECK_VALUE(output_size.size() == spatial, "ConvTranspose", spatial, "D: for ", input.dim(),
                    "D input, output_size must have ", spatial, " or ", non_spatial + spatial,
                    " elements (got ", output_size.size(), ")");
  std::vector<int64_t> min_sizes, max_sizes;
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t in_size = input.size(static_cast<int64_t>(d + non_spatial));
    min_sizes.push_back((in_size - 1) * stride[d] - 2 * padding[d] +
                        dilation[d] * (kernel_size[d] - 1) + 1);
    max_sizes.push_back(min_sizes[d] + stride[d] - 1);
  }
  for (size_t i = 0; i < spatial; ++i) {
    if (output_size[i] < min_sizes[i] || output_size[i] > max_sizes[i]) {
      std::vector<int64_t> trailing(input.sizes().begin() + std::min<int64_t>(2, input.dim()),
                                    input.sizes().end());
      EMBER_FAIL_KIND(ErrorKind::Value, "requested an output size of ", list_str(output_size),
                      ", but valid sizes range from ", list_str(min_sizes), " to ",
                      list_str(max_sizes), " (for an input of ember.Size(", list_str(trailing),
                      "))");
    }
  }
  std::vector<int64_t> res;
  for (size_t d = 0; d < spatial; ++d) res.push_back(output_size[d] - min_sizes[d]);
  return res;
}

Tensor ConvTranspose2d::forward(const Tensor& input,
                                const std::optional<std::vector<int64_t>>& output_size) {
  const std::vector<int64_t> out_pad =
      output_size ? transposed_output_padding(input, *output_size) : output_padding;
  return F::conv_transpose2d(input, weight(), detail::optional_tensor(bias()), stride, padding,
                             out_pad, groups, dilation);
}

Value ConvTranspose2d::forward(const std::vector<Value>& inputs) {
  EMBER_CHECK_TYPE(inputs.size() <= 2, type_name(),
                   ".forward() takes from 2 to 3 positional arguments but ", inputs.size() + 1,
                   " were given");
  if (inputs.size() < 2) {
    detail::check_forward_inputs(type_name(), inputs, {"input"});
    return forward(inputs[0].to_tensor());
  }
  std::optional<std::vector<int64_t>> output_size;
  if (!inputs[1].is_none()) output_size = inputs[1].to_int_list();
  return forward(inputs[0].to_tensor(), output_size);
}

// ---- Conv3d, ConvTranspose1d / 3d (issue 16) ----

Conv3d::Conv3d(int64_t in, int64_t out, const IntOrTuple& kernel_size, const IntOrTuple& stride,
               const ConvPadding& padding, const IntOrTuple& dilation, int64_t groups, bool bias,
               std::string padding_mode, TensorOptions options)
    : ConvNd("Conv3d", 3, in, out, kernel_size, stride, padding, dilation, false, 0, groups, bias,
             std::move(padding_mode), options) {}

Tensor Conv3d::forward(const Tensor& input) {
  return _conv_forward(input, weight(), detail::optional_tensor(bias()));
}

Tensor Conv3d::_conv_forward(const Tensor& input, const Tensor& w,
                              const std::optional<Tensor>& b) {
  if (padding_mode != "zeros") {
    return F::conv3d(pad_input(input), w, b, stride, std::vector<int64_t>{0, 0, 0}, dilation,
                     groups);
  }
  if (!padding_string.empty()) return ember::conv3d(input, w, b, stride, padding_string, dilation, groups);
  return F::conv3d(input, w, b, stride, padding, dilation, groups);
}

Value Conv3d::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

ConvTransposeNd::ConvTransposeNd(std::string type_name, size_t spatial, int64_t in, int64_t out,
                                 const IntOrTuple& kernel_size, const IntOrTuple& stride,
                                 const IntOrTuple& padding, const IntOrTuple& output_padding,
                                 int64_t groups, bool bias, const IntOrTuple& dilation,
                                 std::string padding_mode, TensorOptions options)
    : ConvNd(type_name, spatial, in, out, kernel_size, stride, padding.expand(spatial), dilation,
             true, output_padding, groups, bias, zeros_only(std::move(padding_mode), type_name.c_str()),
             options) {}

Tensor ConvTransposeNd::forward(const Tensor& input,
                                const std::optional<std::vector<int64_t>>& output_size) {
  const std::vector<int64_t> out_pad =
      output_size ? transposed_output_padding(input, *output_size) : output_padding;
  const std::optional<Tensor> b = detail::optional_tensor(bias());
  if (kernel_size.size() == 1)
    return F::conv_transpose1d(input, weight(), b, stride, padding, out_pad, groups, dilation);
  return F::conv_transpose3d(input, weight(), b, stride, padding, out_pad, groups, dilation);
}

Value ConvTransposeNd::forward(const std::vector<Value>& inputs) {
  EMBER_CHECK_TYPE(inputs.size() <= 2, type_name(),
                   ".forward() takes from 2 to 3 positional arguments but ", inputs.size() + 1,
                   " were given");
  if (inputs.size() < 2) {
    detail::check_forward_inputs(type_name(), inputs, {"input"});
    return forward(inputs[0].to_tensor());
  }
  std::optional<std::vector<int64_t>> output_size;
  if (!inputs[1].is_none()) output_size = inputs[1].to_int_list();
  return forward(inputs[0].to_tensor(), output_size);
}

}  // namespace ember::nn
