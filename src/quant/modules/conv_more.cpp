// nnq.Conv3d, nniq.ConvReLU3d and nnq.ConvTranspose1d / 2d / 3d (Note [Quantized module state]
// in ember/nn/quantized/conv.h).
#include "ember/nn/quantized/conv_more.h"

#include "ember/ops/factory.h"
#include "ember/quantized/conv_nd.h"
#include "ember/quantized/tensor.h"
#include "../../nn/modules/module_util.h"
#include "module_state.h"
#include "quant/packed_params_nd.h"

namespace ember::nn::quantized {

namespace q = ember::quantized;

PackedConvNd::PackedConvNd(std::string type_name, size_t n, bool transposed_, int64_t in,
                           int64_t out, const IntOrTuple& k, const IntOrTuple& stride_,
                           const IntOrTuple& padding_, const IntOrTuple& output_padding_,
                           const IntOrTuple& dilation_, int64_t groups_, bool bias,
                           std::string padding_mode_)
    : Module(std::move(type_name)),
      in_channels(in),
      out_channels(out),
      kernel_size(k.expand(n)),
      stride(stride_.expand(n)),
      padding(padding_.expand(n)),
      dilation(dilation_.expand(n)),
      transposed(transposed_),
      output_padding(output_padding_.expand(n)),
      groups(groups_),
      padding_mode(std::move(padding_mode_)) {
  EMBER_CHECK_VALUE(groups > 0 && in_channels % groups == 0,
                    "in_channels must be divisible by groups");
  EMBER_CHECK_VALUE(out_channels % groups == 0, "out_channels must be divisible by groups");
  EMBER_CHECK_VALUE(padding_mode == "zeros" || padding_mode == "reflect", "'padding_mode' ",
                    padding_mode, " is not supported by quantized convolution");
  // PyTorch's _init: an uninitialised qint8 weight (scale 1, zero point 0), a zero bias.
  std::vector<int64_t> shape = transposed ? std::vector<int64_t>{in_channels, out_channels / groups}
                                          : std::vector<int64_t>{out_channels, in_channels / groups};
  shape.insert(shape.end(), kernel_size.begin(), kernel_size.end());
  Tensor w = _empty_affine_quantized(shape, kQInt8, 1.0, 0);
  std::optional<Tensor> b;
  if (bias) b = zeros({out_channels}, kFloat32);
  set_weight_bias(w, b);
}

intrusive_ptr<q::ConvNdPackedParams> PackedConvNd::prepack(const Tensor& weight,
                                                           const std::optional<Tensor>& bias) const {
  const size_t n = kernel_size.size();
  if (!transposed) return q::conv3d_prepack(weight, bias, stride, padding, dilation, groups);
  if (n == 1)
    return q::conv_transpose1d_prepack(weight, bias, stride, padding, output_padding, dilation,
                                       groups);
  if (n == 2)
    return q::conv_transpose2d_prepack(weight, bias, stride, padding, output_padding, dilation,
                                       groups);
  return q::conv_transpose3d_prepack(weight, bias, stride, padding, output_padding, dilation,
                                     groups);
}

void PackedConvNd::set_weight_bias(const Tensor& weight, const std::optional<Tensor>& bias) {
  set_packed_params(prepack(weight, bias));
}

void PackedConvNd::set_packed_params(const intrusive_ptr<q::ConvNdPackedParams>& packed) {
  EMBER_CHECK_TYPE(packed, type_name(), "._packed_params must be a packed-params object");
  const bool is3d = dynamic_cast<const q::Conv3dPackedParams*>(packed.get()) != nullptr;
  EMBER_CHECK_TYPE(is3d == (kernel_size.size() == 3) && packed->transpose() == transposed,
                   type_name(), "._packed_params: expected the packed weights of a ",
                   transposed ? "transposed " : "", kernel_size.size(),
                   "-d convolution, got a ", packed->class_name(),
                   packed->transpose() ? " (transposed)" : "");
  packed_ = intrusive_ptr<CustomClassHolder>(packed.get());
}

intrusive_ptr<q::ConvNdPackedParams> PackedConvNd::packed_params() const {
  return intrusive_ptr<q::ConvNdPackedParams>(static_cast<q::ConvNdPackedParams*>(packed_.get()));
}

std::tuple<Tensor, std::optional<Tensor>> PackedConvNd::_weight_bias() const {
  if (transposed && kernel_size.size() == 1) {
    return q::conv_transpose1d_unpack(
        intrusive_ptr<q::ConvTranspose2dPackedParams>(
            static_cast<q::ConvTranspose2dPackedParams*>(packed_.get())));
  }
  auto p = packed_params();
  return {p->weight(), p->bias()};
}

std::string PackedConvNd::extra_repr() const {
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

void PackedConvNd::_save_to_state_dict(StateDict& destination, const std::string& prefix,
                                       bool keep_vars) {
  Module::_save_to_state_dict(destination, prefix, keep_vars);
  auto [w, b] = _weight_bias();
  destination.insert(prefix + "weight", w);
  destination.insert(prefix + "bias", b ? Value(*b) : Value());
  save_qparams(destination, prefix, scale, zero_point);
}

void PackedConvNd::_load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                                         LocalMetadata& local_metadata, bool /*strict*/,
                                         std::vector<std::string>& missing_keys,
                                         std::vector<std::string>& unexpected_keys,
                                         std::vector<std::string>& error_msgs) {
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

Tensor PackedConvNd::run(const Tensor& input, bool relu) const {
  const size_t n = kernel_size.size();
  if (!transposed) {
    EMBER_CHECK_VALUE(input.dim() == 5, "Input shape must be `(N, C, D, H, W)`!");
    auto p = intrusive_ptr<q::Conv3dPackedParams>(static_cast<q::Conv3dPackedParams*>(packed_.get()));
    return relu ? q::conv3d_relu(input, p, scale, zero_point)
                : q::conv3d(input, p, scale, zero_point);
  }
  if (n == 3) {
    EMBER_CHECK_VALUE(input.dim() == 5, "Input shape must be `(N, C, T, H, W)`!");
    auto p = intrusive_ptr<q::Conv3dPackedParams>(static_cast<q::Conv3dPackedParams*>(packed_.get()));
    return q::conv_transpose3d(input, p, scale, zero_point);
  }
  auto p = intrusive_ptr<q::ConvTranspose2dPackedParams>(
      static_cast<q::ConvTranspose2dPackedParams*>(packed_.get()));
  if (n == 2) {
    EMBER_CHECK_VALUE(input.dim() == 4, "Input shape must be `(N, C, H, W)`!");
    return q::conv_transpose2d(input, p, scale, zero_point);
  }
  EMBER_CHECK_VALUE(input.dim() == 3, "Input shape must be `(N, C, L)`!");
  return q::conv_transpose1d(input, p, scale, zero_point);
}

// ---- Conv3d / ConvReLU3d ----

Conv3d::Conv3d(int64_t in, int64_t out, const IntOrTuple& k, const IntOrTuple& stride,
               const IntOrTuple& padding, const IntOrTuple& dilation, int64_t groups, bool bias,
               std::string padding_mode, TensorOptions /*options*/)
    : Conv3d("QuantizedConv3d", in, out, k, stride, padding, dilation, groups, bias,
             std::move(padding_mode)) {}

Conv3d::Conv3d(std::string type_name, int64_t in, int64_t out, const IntOrTuple& k,
               const IntOrTuple& stride, const IntOrTuple& padding, const IntOrTuple& dilation,
               int64_t groups, bool bias, std::string padding_mode)
    : PackedConvNd(std::move(type_name), 3, false, in, out, k, stride, padding, 0, dilation,
                   groups, bias, std::move(padding_mode)) {
  // PyTorch asserts this (AssertionError); the Python binding raises that type first.
  EMBER_CHECK_VALUE(this->padding_mode != "reflect", "Conv3d does not support reflection padding");
}

Tensor Conv3d::forward(const Tensor& input) { return run(input, false); }

Value Conv3d::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

ConvReLU3d::ConvReLU3d(int64_t in, int64_t out, const IntOrTuple& k, const IntOrTuple& stride,
                       const IntOrTuple& padding, const IntOrTuple& dilation, int64_t groups,
                       bool bias, std::string padding_mode, TensorOptions /*options*/)
    : Conv3d("QuantizedConvReLU3d", in, out, k, stride, padding, dilation, groups, bias,
             std::move(padding_mode)) {}

Tensor ConvReLU3d::forward(const Tensor& input) { return run(input, true); }

// ---- ConvTranspose1d / 2d / 3d ----

namespace {
std::string transposed_padding_mode(std::string mode, size_t n) {
  EMBER_CHECK_VALUE(mode == "zeros", "Only \"zeros\" padding mode is supported for ConvTranspose",
                    n, "d");
  return mode;
}
}  // namespace

ConvTransposeNd::ConvTransposeNd(size_t n, int64_t in, int64_t out, const IntOrTuple& k,
                                 const IntOrTuple& stride, const IntOrTuple& padding,
                                 const IntOrTuple& output_padding, int64_t groups, bool bias,
                                 const IntOrTuple& dilation, std::string padding_mode,
                                 TensorOptions /*options*/)
    // PyTorch 1.13's _get_name spells these "QuantizedConvTranpose{n}d".
    : PackedConvNd("QuantizedConvTranpose" + std::to_string(n) + "d", n, true, in, out, k, stride,
                   padding, output_padding, dilation, groups, bias,
                   transposed_padding_mode(std::move(padding_mode), n)) {}

Tensor ConvTransposeNd::forward(const Tensor& input) { return run(input, false); }

Value ConvTransposeNd::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::vector<int64_t> ConvTransposeNd::_input_padding() const {
  std::vector<int64_t> res(kernel_size.size());
  for (size_t i = 0; i < res.size(); ++i)
    res[i] = dilation[i] * (kernel_size[i] - 1) - padding[i];
  return res;
}

}  // namespace ember::nn::quantized

// ---- copies (Note [Cloning modules]): a copy packs again from the weight and bias ----
#include "ember/nn/module_clone.h"

namespace ember::nn::quantized {
namespace {
void repack_nd(Module& copy, CloneMemo& /*memo*/) {
  auto& m = static_cast<PackedConvNd&>(copy);
  auto [w, b] = m._weight_bias();
  m.set_weight_bias(w, b);
}

const bool registered = [] {
  register_cloneable<Conv3d>();
  register_cloneable<ConvReLU3d>();
  register_cloneable<ConvTranspose1d>();
  register_cloneable<ConvTranspose2d>();
  register_cloneable<ConvTranspose3d>();
  for (std::type_index t : {std::type_index(typeid(Conv3d)), std::type_index(typeid(ConvReLU3d)),
                            std::type_index(typeid(ConvTranspose1d)),
                            std::type_index(typeid(ConvTranspose2d)),
                            std::type_index(typeid(ConvTranspose3d))})
    detail::register_fixup(t, repack_nd);
  return true;
}();
}  // namespace
}  // namespace ember::nn::quantized
