// quantized::linear_prepack / linear / linear_relu / linear_dynamic. The arithmetic is the packed
// kernel's (src/backends/cpu/quantized/qconv.h); as in qconv.cpp, quantized tensors reach the
// QuantizedCPU kernels, float ones needs_quantized, except linear_dynamic, which takes a float
// input (and has no QuantizedCPU kernel: a quantized input gets PyTorch's NotImplementedError).
#include "dispatch/boxing.h"
#include "packed_params.h"

namespace ember::quantized {

using dispatch::OpId;
using detail::needs_quantized;
using detail::packed_or_throw;
using Packed = intrusive_ptr<LinearPackedParams>;

namespace {

Packed linear_prepack_q(const Tensor& weight, const std::optional<Tensor>& bias) {
  return LinearPackedParams::make(weight, bias,
                                  formula_for_active_engine("quantized::linear_prepack"));
}
Tensor linear_q(const Tensor& qx, const Packed& p, const double& scale, const int64_t& zp) {
  return packed_or_throw(p, "quantized::linear").run(qx, scale, zp, false);
}
Tensor linear_relu_q(const Tensor& qx, const Packed& p, const double& scale, const int64_t& zp) {
  return packed_or_throw(p, "quantized::linear_relu").run(qx, scale, zp, true);
}

[[maybe_unused]] const bool registered = [] {
  dispatch::register_quantized(OpId::quantized_linear_prepack, &linear_prepack_q);
  dispatch::register_quantized(OpId::quantized_linear, &linear_q);
  dispatch::register_quantized(OpId::quantized_linear_relu, &linear_relu_q);
  return true;
}();

std::tuple<Tensor, std::optional<Tensor>> linear_unpack_impl(const Packed& p) {
  const LinearPackedParams& params = packed_or_throw(p, "quantized::linear_unpack");
  return {params.weight(), params.bias()};
}
Tensor linear_dynamic_impl(const Tensor& x, const Packed& p, const bool& reduce_range) {
  return packed_or_throw(p, "quantized::linear_dynamic").run_dynamic(x, reduce_range, false);
}
Tensor linear_relu_dynamic_impl(const Tensor& x, const Packed& p, const bool& reduce_range) {
  return packed_or_throw(p, "quantized::linear_relu_dynamic").run_dynamic(x, reduce_range, true);
}

}  // namespace

Packed linear_prepack(const Tensor& weight, const std::optional<Tensor>& bias) {
  return dispatch::call<&needs_quantized<OpId::quantized_linear_prepack, Packed, Tensor,
                                         std::optional<Tensor>>>(
      OpId::quantized_linear_prepack, weight, bias);
}
EMBER_REGISTER_OP(quantized_linear_prepack, &linear_prepack);

std::tuple<Tensor, std::optional<Tensor>> linear_unpack(const Packed& packed) {
  return dispatch::call<&linear_unpack_impl>(OpId::quantized_linear_unpack, packed);
}
EMBER_REGISTER_OP(quantized_linear_unpack, &linear_unpack);

Tensor linear(const Tensor& qx, const Packed& packed, double output_scale,
              int64_t output_zero_point) {
  return dispatch::call<&needs_quantized<OpId::quantized_linear, Tensor, Tensor, Packed, double,
                                         int64_t>>(OpId::quantized_linear, qx, packed,
                                                   output_scale, output_zero_point);
}
EMBER_REGISTER_OP(quantized_linear, &linear);

Tensor linear_relu(const Tensor& qx, const Packed& packed, double output_scale,
                   int64_t output_zero_point) {
  return dispatch::call<&needs_quantized<OpId::quantized_linear_relu, Tensor, Tensor, Packed,
                                         double, int64_t>>(
      OpId::quantized_linear_relu, qx, packed, output_scale, output_zero_point);
}
EMBER_REGISTER_OP(quantized_linear_relu, &linear_relu);

Tensor linear_dynamic(const Tensor& x, const Packed& packed, bool reduce_range) {
  return dispatch::call<&linear_dynamic_impl>(OpId::quantized_linear_dynamic, x, packed,
                                              reduce_range);
}
EMBER_REGISTER_OP(quantized_linear_dynamic, &linear_dynamic);

Tensor linear_relu_dynamic(const Tensor& x, const Packed& packed, bool reduce_range) {
  return dispatch::call<&linear_relu_dynamic_impl>(OpId::quantized_linear_relu_dynamic, x,
                                                   packed, reduce_range);
}
EMBER_REGISTER_OP(quantized_linear_relu_dynamic, &linear_relu_dynamic);

}  // namespace ember::quantized
