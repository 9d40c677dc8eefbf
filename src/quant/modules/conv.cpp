// nnq.Conv1d / Conv2d and nniq.ConvReLU1d / ConvReLU2d (Note [Quantized module state]).
#include "ember/nn/quantized/conv.h"

#include "ember/nn/functional.h"
#include "ember/ops/factory.h"
#include "ember/quantized/conv_linear.h"
#include "ember/quantized/tensor.h"
#include "../../nn/modules/module_util.h"
#include "module_state.h"
#include "quant/packed_params.h"

namespace ember::nn::quantized {

namespace q = ember::quantized;

ConvNd::ConvNd(std::string type_name, size_t n, int64_t in_channels_, int64_t out_channels_,
               const IntOrTuple& kernel_size_, const IntOrTuple& stride_,
               const IntOrTuple& padding_, const IntOrTuple& dilation_, int64_t groups_,
               std::string padding_mode_, TensorOptions options)
    : Module(std::move(type_name)),
      in_channels(in_channels_),
      out_channels(out_channels_),
      kernel_size(kernel_size_.expand(n)),
      stride(stride_.expand(n)),
      padding(padding_.expand(n)),
      dilation(dilation_.expand(n)),
      output_padding(n, 0),
      groups(groups_),
      padding_mode(std::move(padding_mode_)) {
  EMBER_CHECK_VALUE(groups > 0 && in_channels % groups == 0,
                    "in_channels must be divisible by groups");
  EMBER_CHECK_VALUE(out_channels % groups == 0, "out_channels must be divisible by groups");
  EMBER_CHECK_VALUE(padding_mode == "zeros" || padding_mode == "reflect", "'padding_mode' ",
                    padding_mode, " is not supported by quantized convolution");
  (void)options;  // the device of the weight: CPU (quantized tensors live on the CPU)
}

void ConvNd::init_weight_bias(bool bias) {
  // PyTorch's _init: an uninitialised qint8 weight (scale 1, zero point 0), a zero bias.
  std::vector<int64_t> shape{out_channels, in_channels / groups};
  shape.insert(shape.end(), kernel_size.begin(), kernel_size.end());
  Tensor w = _empty_affine_quantized(shape, kQInt8, 1.0, 0);
  std::optional<Tensor> b;
  if (bias) b = zeros({out_channels}, kFloat32);
  set_weight_bias(w, b);
}

void ConvNd::set_weight_bias(const Tensor& weight, const std::optional<Tensor>& bias) {
  set_packed_params(prepack(weight, bias));
}

intrusive_ptr<q::ConvPackedParams> ConvNd::packed_params() const {
  return intrusive_ptr<q::ConvPackedParams>(static_cast<q::ConvPackedParams*>(packed_.get()));
}

std::tuple<Tensor, std::optional<Tensor>> ConvNd::_weight_bias() const { return unpack(); }

void ConvNd::set_packed_params(const intrusive_ptr<q::ConvPackedParams>& packed) {
  EMBER_CHECK_TYPE(packed, type_name(), "._packed_params must be a ConvPackedParams object");
  packed_ = intrusive_ptr<CustomClassHolder>(packed.get());
}

std::string ConvNd::extra_repr() const {
  using detail::py_int_tuple;
  std::string s = std::to_string(in_channels) + ", " + std::to_string(out_channels) +
                  ", kernel_size=" + py_int_tuple(kernel_size) +
                  ", stride=" + py_int_tuple(stride) + ", scale=" + detail::py_float(scale) +
                  ", zero_point=" + std::to_string(zero_point);
  auto all = [](const std::vector<int64_t>& v, int64_t x) {
    for (int64_t e : v)
      if (e != x) return false;
    return true;
  };
  if (!all(padding, 0)) s += ", padding=" + py_int_tuple(padding);
  if (!all(dilation, 1)) s += ", dilation=" + py_int_tuple(dilation);
  if (!all(output_padding, 0)) s += ", output_padding=" + py_int_tuple(output_padding);
  if (groups != 1) s += ", groups=" + std::to_string(groups);
  if (!bias()) s += ", bias=False";
  return s;
}

void ConvNd::_save_to_state_dict(StateDict& destination, const std::string& prefix,
                                 bool keep_vars) {
  Module::_save_to_state_dict(destination, prefix, keep_vars);
  auto [w, b] = _weight_bias();
  destination.insert(prefix + "weight", w);
  destination.insert(prefix + "bias", b ? Value(*b) : Value());
  save_qparams(destination, prefix, scale, zero_point);
}

void ConvNd::_load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                                   LocalMetadata& local_metadata, bool /*strict*/,
                                   std::vector<std::string>& missing_keys,
                                   std::vector<std::string>& unexpected_keys,
                                   std::vector<std::string>& error_msgs) {
  // PyTorch's order: weight and bias are packed first, then scale and zero_point read; a
  // missing entry is a KeyError. The packing runs now (its errors surface now), the
  // assignment after the whole tree was checked.
  const Tensor weight = pop_tensor(state_dict, prefix + "weight");
  const std::optional<Tensor> bias = pop_optional_tensor(state_dict, prefix + "bias");
  auto packed = prepack(weight, bias);
  const double s = pop_scale(state_dict, prefix + "scale");
  const int64_t z = pop_zero_point(state_dict, prefix + "zero_point");
  Module::schedule_load_write([this, packed, s, z] {
    set_packed_params(packed);
    scale = s;
    zero_point = z;
  });
  Module::_load_from_state_dict(state_dict, prefix, local_metadata, false, missing_keys,
                                unexpected_keys, error_msgs);
}

Tensor ConvNd::pad_input(const Tensor& input) const {
  if (padding_mode == "zeros") return input;
  std::vector<int64_t> pads;  // PyTorch's _reverse_repeat_padding
  for (size_t i = padding.size(); i-- > 0;) {
    pads.push_back(padding[i]);
    pads.push_back(padding[i]);
  }
  return functional::pad(input, pads, padding_mode);
}

void ConvNd::check_input(const Tensor& input, int64_t dim, const char* shape) const {
  EMBER_CHECK_VALUE(input.dim() == dim, "Input shape must be `", shape, "`!");
}

// ---- Conv1d ----

Conv1d::Conv1d(int64_t in, int64_t out, const IntOrTuple& k, const IntOrTuple& stride,
               const IntOrTuple& padding, const IntOrTuple& dilation, int64_t groups, bool bias,
               std::string padding_mode, TensorOptions options)
    : Conv1d("QuantizedConv1d", in, out, k, stride, padding, dilation, groups, bias,
             std::move(padding_mode), options) {}

Conv1d::Conv1d(std::string type_name, int64_t in, int64_t out, const IntOrTuple& k,
               const IntOrTuple& stride, const IntOrTuple& padding, const IntOrTuple& dilation,
               int64_t groups, bool bias, std::string padding_mode, TensorOptions options)
    : ConvNd(std::move(type_name), 1, in, out, k, stride, padding, dilation, groups,
             std::move(padding_mode), options) {
  init_weight_bias(bias);
}

intrusive_ptr<q::ConvPackedParams> Conv1d::prepack(const Tensor& weight,
                                                   const std::optional<Tensor>& bias) const {
  // With reflect padding the input is padded beforehand: the kernel pads nothing.
  const std::vector<int64_t> pad = padding_mode == "zeros" ? padding : std::vector<int64_t>{0};
  return q::conv1d_prepack(weight, bias, stride, pad, dilation, groups);
}

std::tuple<Tensor, std::optional<Tensor>> Conv1d::unpack() const {
  return q::conv1d_unpack(packed_params());
}

Tensor Conv1d::forward(const Tensor& input) {
  check_input(input, 3, "(N, C, L)");
  return q::conv1d(pad_input(input), packed_params(), scale, zero_point);
}

Value Conv1d::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

// ---- Conv2d ----

Conv2d::Conv2d(int64_t in, int64_t out, const IntOrTuple& k, const IntOrTuple& stride,
               const IntOrTuple& padding, const IntOrTuple& dilation, int64_t groups, bool bias,
               std::string padding_mode, TensorOptions options)
    : Conv2d("QuantizedConv2d", in, out, k, stride, padding, dilation, groups, bias,
             std::move(padding_mode), options) {}

Conv2d::Conv2d(std::string type_name, int64_t in, int64_t out, const IntOrTuple& k,
               const IntOrTuple& stride, const IntOrTuple& padding, const IntOrTuple& dilation,
               int64_t groups, bool bias, std::string padding_mode, TensorOptions options)
    : ConvNd(std::move(type_name), 2, in, out, k, stride, padding, dilation, groups,
             std::move(padding_mode), options) {
  init_weight_bias(bias);
}

intrusive_ptr<q::ConvPackedParams> Conv2d::prepack(const Tensor& weight,
                                                   const std::optional<Tensor>& bias) const {
  const std::vector<int64_t> pad =
      padding_mode == "zeros" ? padding : std::vector<int64_t>{0, 0};
  return q::conv2d_prepack(weight, bias, stride, pad, dilation, groups);
}

std::tuple<Tensor, std::optional<Tensor>> Conv2d::unpack() const {
  return q::conv2d_unpack(packed_params());
}

Tensor Conv2d::forward(const Tensor& input) {
  check_input(input, 4, "(N, C, H, W)");
  return q::conv2d(pad_input(input), packed_params(), scale, zero_point);
}

Value Conv2d::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

// ---- ConvReLU1d / ConvReLU2d ----

ConvReLU1d::ConvReLU1d(int64_t in, int64_t out, const IntOrTuple& k, const IntOrTuple& stride,
                       const IntOrTuple& padding, const IntOrTuple& dilation, int64_t groups,
                       bool bias, std::string padding_mode, TensorOptions options)
    : Conv1d("QuantizedConvReLU1d", in, out, k, stride, padding, dilation, groups, bias,
             std::move(padding_mode), options) {}

Tensor ConvReLU1d::forward(const Tensor& input) {
  check_input(input, 3, "(N, C, L)");
  return q::conv1d_relu(pad_input(input), packed_params(), scale, zero_point);
}

ConvReLU2d::ConvReLU2d(int64_t in, int64_t out, const IntOrTuple& k, const IntOrTuple& stride,
                       const IntOrTuple& padding, const IntOrTuple& dilation, int64_t groups,
                       bool bias, std::string padding_mode, TensorOptions options)
    : Conv2d("QuantizedConvReLU2d", in, out, k, stride, padding, dilation, groups, bias,
             std::move(padding_mode), options) {}

Tensor ConvReLU2d::forward(const Tensor& input) {
  check_input(input, 4, "(N, C, H, W)");
  return q::conv2d_relu(pad_input(input), packed_params(), scale, zero_point);
}

}  // namespace ember::nn::quantized
