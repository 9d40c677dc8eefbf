// quantized::conv2d_prepack / conv2d / conv2d_relu / conv1d* and the packed object's accessors.
// The arithmetic is the packed kernel's (src/backends/cpu/quantized/qconv.h); this file checks,
// lays out and dispatches. Calls with quantized tensors reach the QuantizedCPU kernels below;
// calls with float tensors reach needs_quantized (PyTorch's NotImplementedError).
#include "dispatch/boxing.h"
#include "packed_params.h"
#include "quantizer.h"

namespace ember::quantized {

using dispatch::OpId;
using detail::needs_quantized;
using detail::packed_or_throw;
using Packed = intrusive_ptr<ConvPackedParams>;

namespace {

// A quantized tensor with a dimension of size 1 inserted / removed at `dim`: a view of the same
// codes with the same quantizer (per-channel weights are quantized along dim 0, which stays).
Tensor q_unsqueeze(const Tensor& q, int64_t dim) {
  return qtensor_over(codes_view(q).unsqueeze(dim), get_quantizer_ptr(q));
}
Tensor q_squeeze(const Tensor& q, int64_t dim) {
  return qtensor_over(codes_view(q).squeeze(dim), get_quantizer_ptr(q));
}

std::vector<int64_t> prepend(int64_t first, IntArrayRef rest) {
  std::vector<int64_t> v{first};
  v.insert(v.end(), rest.begin(), rest.end());
  return v;
}

// ---- QuantizedCPU kernels (the signatures the frontends' dispatch::call arguments give) ----
Packed conv2d_prepack_q(const Tensor& weight, const std::optional<Tensor>& bias,
                        const IntArrayRef& stride, const IntArrayRef& padding,
                        const IntArrayRef& dilation, const int64_t& groups) {
  const char* op = "quantized::conv2d_prepack";
  return ConvPackedParams::make(weight, bias, stride.vec(), padding.vec(), dilation.vec(), groups,
                                formula_for_active_engine(op), op);
}

// PyTorch packs a 1-d convolution as a 2-d one of height 1 (weight O x C x 1 x K, stride
// [1, s], padding [0, p], dilation [1, d]); its accessors and unpack() show that form.
Packed conv1d_prepack_q(const Tensor& weight, const std::optional<Tensor>& bias,
                        const IntArrayRef& stride, const IntArrayRef& padding,
                        const IntArrayRef& dilation, const int64_t& groups) {
  const char* op = "quantized::conv1d_prepack";
  Tensor w = weight.is_quantized() && weight.dim() == 3 ? q_unsqueeze(weight, 2) : weight;
  return ConvPackedParams::make(w, bias, prepend(1, stride), prepend(0, padding),
                                prepend(1, dilation), groups, formula_for_active_engine(op), op);
}

Tensor conv2d_q(const Tensor& qx, const Packed& p, const double& scale, const int64_t& zp) {
  return packed_or_throw(p, "quantized::conv2d").run(qx, scale, zp, false, "quantized::conv2d");
}
Tensor conv2d_relu_q(const Tensor& qx, const Packed& p, const double& scale, const int64_t& zp) {
  return packed_or_throw(p, "quantized::conv2d_relu").run(qx, scale, zp, true, "quantized::conv2d");
}

Tensor conv1d_run(const Tensor& qx, const Packed& p, double scale, int64_t zp, bool relu) {
  const ConvPackedParams& params = packed_or_throw(p, "quantized::conv1d");
  // As PyTorch's: the input gains the height dimension, so a wrong rank is reported by conv2d.
  EMBER_CHECK(qx.dim() == 3, "quantized::conv2d(): Expected activation tensor to have 4 "
              "dimensions, got ", qx.dim() + 1);
  return q_squeeze(params.run(q_unsqueeze(qx, 2), scale, zp, relu, "quantized::conv2d"), 2);
}
Tensor conv1d_q(const Tensor& qx, const Packed& p, const double& scale, const int64_t& zp) {
  return conv1d_run(qx, p, scale, zp, false);
}
Tensor conv1d_relu_q(const Tensor& qx, const Packed& p, const double& scale, const int64_t& zp) {
  return conv1d_run(qx, p, scale, zp, true);
}

[[maybe_unused]] const bool registered = [] {
  dispatch::register_quantized(OpId::quantized_conv2d_prepack, &conv2d_prepack_q);
  dispatch::register_quantized(OpId::quantized_conv1d_prepack, &conv1d_prepack_q);
  dispatch::register_quantized(OpId::quantized_conv2d_new, &conv2d_q);
  dispatch::register_quantized(OpId::quantized_conv2d_relu_new, &conv2d_relu_q);
  dispatch::register_quantized(OpId::quantized_conv1d, &conv1d_q);
  dispatch::register_quantized(OpId::quantized_conv1d_relu, &conv1d_relu_q);
  return true;
}();

// ---- the ops that take only the packed object (no tensor: the backend runs them) ----
std::tuple<Tensor, std::optional<Tensor>> conv2d_unpack_impl(const Packed& p) {
  const ConvPackedParams& params = packed_or_throw(p, "quantized::conv2d_unpack");
  return {params.weight(), params.bias()};
}
std::tuple<Tensor, std::optional<Tensor>> conv1d_unpack_impl(const Packed& p) {
  const ConvPackedParams& params = packed_or_throw(p, "quantized::conv1d_unpack");
  return {q_squeeze(params.weight(), 2), params.bias()};
}
std::vector<int64_t> stride_impl(const Packed& p) { return packed_or_throw(p, "quantized::conv2d_stride").stride(); }
std::vector<int64_t> padding_impl(const Packed& p) { return packed_or_throw(p, "quantized::conv2d_padding").padding(); }
std::vector<int64_t> dilation_impl(const Packed& p) { return packed_or_throw(p, "quantized::conv2d_dilation").dilation(); }
std::vector<int64_t> output_padding_impl(const Packed& p) {
  return packed_or_throw(p, "quantized::conv2d_output_padding").output_padding();
}
int64_t groups_impl(const Packed& p) { return packed_or_throw(p, "quantized::conv2d_groups").groups(); }
int64_t transpose_impl(const Packed& p) { return packed_or_throw(p, "quantized::conv2d_transpose").transpose(); }

}  // namespace

// ---- frontends ----
Packed conv2d_prepack(const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                      IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return dispatch::call<&needs_quantized<OpId::quantized_conv2d_prepack, Packed, Tensor,
                                         std::optional<Tensor>, IntArrayRef, IntArrayRef,
                                         IntArrayRef, int64_t>>(
      OpId::quantized_conv2d_prepack, weight, bias, stride, padding, dilation, groups);
}
EMBER_REGISTER_OP(quantized_conv2d_prepack, &conv2d_prepack);

Packed conv1d_prepack(const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                      IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return dispatch::call<&needs_quantized<OpId::quantized_conv1d_prepack, Packed, Tensor,
                                         std::optional<Tensor>, IntArrayRef, IntArrayRef,
                                         IntArrayRef, int64_t>>(
      OpId::quantized_conv1d_prepack, weight, bias, stride, padding, dilation, groups);
}
EMBER_REGISTER_OP(quantized_conv1d_prepack, &conv1d_prepack);

#define EMBER_QCONV_RUN(fn, id)                                                                  \
  Tensor fn(const Tensor& qx, const Packed& packed, double output_scale,                        \
            int64_t output_zero_point) {                                                         \
    return dispatch::call<&needs_quantized<OpId::id, Tensor, Tensor, Packed, double, int64_t>>( \
        OpId::id, qx, packed, output_scale, output_zero_point);                                 \
  }                                                                                              \
  EMBER_REGISTER_OP(id, &fn)

EMBER_QCONV_RUN(conv2d, quantized_conv2d_new);
EMBER_QCONV_RUN(conv2d_relu, quantized_conv2d_relu_new);
EMBER_QCONV_RUN(conv1d, quantized_conv1d);
EMBER_QCONV_RUN(conv1d_relu, quantized_conv1d_relu);
#undef EMBER_QCONV_RUN

std::tuple<Tensor, std::optional<Tensor>> conv2d_unpack(const Packed& packed) {
  return dispatch::call<&conv2d_unpack_impl>(OpId::quantized_conv2d_unpack, packed);
}
EMBER_REGISTER_OP(quantized_conv2d_unpack, &conv2d_unpack);
std::tuple<Tensor, std::optional<Tensor>> conv1d_unpack(const Packed& packed) {
  return dispatch::call<&conv1d_unpack_impl>(OpId::quantized_conv1d_unpack, packed);
}
EMBER_REGISTER_OP(quantized_conv1d_unpack, &conv1d_unpack);

std::vector<int64_t> conv2d_stride(const Packed& packed) {
  return dispatch::call<&stride_impl>(OpId::quantized_conv2d_stride, packed);
}
EMBER_REGISTER_OP(quantized_conv2d_stride, &conv2d_stride);
std::vector<int64_t> conv2d_padding(const Packed& packed) {
  return dispatch::call<&padding_impl>(OpId::quantized_conv2d_padding, packed);
}
EMBER_REGISTER_OP(quantized_conv2d_padding, &conv2d_padding);
std::vector<int64_t> conv2d_dilation(const Packed& packed) {
  return dispatch::call<&dilation_impl>(OpId::quantized_conv2d_dilation, packed);
}
EMBER_REGISTER_OP(quantized_conv2d_dilation, &conv2d_dilation);
std::vector<int64_t> conv2d_output_padding(const Packed& packed) {
  return dispatch::call<&output_padding_impl>(OpId::quantized_conv2d_output_padding, packed);
}
EMBER_REGISTER_OP(quantized_conv2d_output_padding, &conv2d_output_padding);
int64_t conv2d_groups(const Packed& packed) {
  return dispatch::call<&groups_impl>(OpId::quantized_conv2d_groups, packed);
}
EMBER_REGISTER_OP(quantized_conv2d_groups, &conv2d_groups);
int64_t conv2d_transpose(const Packed& packed) {
  return dispatch::call<&transpose_impl>(OpId::quantized_conv2d_transpose, packed);
}
EMBER_REGISTER_OP(quantized_conv2d_transpose, &conv2d_transpose);

}  // namespace ember::quantized
