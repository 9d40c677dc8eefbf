// Quantized activations beyond the element-wise basics (PyTorch's quantized::leaky_relu, elu,
// celu, threshold, softmax, clamp; aten::tanh and aten::quantize_per_tensor_dynamic):
//
//   auto q = ember::quantize_per_tensor(ember::randn({2, 8}), 0.05, 128, ember::kQUInt8);
//   auto y = ember::quantized::leaky_relu(q, 0.01, false, 0.05, 128);
//   auto p = ember::quantized::softmax(q, 1, 1.0 / 256, 0);     // QNNPACK's kernel on qnnpack
//   auto d = ember::quantize_per_tensor_dynamic(ember::randn({4}), ember::kQInt8, false);
//
// Results equal PyTorch 1.13's on the engine active at the call (src/quant/qactivation_more.cpp).
#pragma once

#include <optional>

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

/// quantize_per_tensor with qparams chosen from the tensor's min / max (dtype quint8 or qint8;
/// float16 converts). reduce_range halves the range, except on the qnnpack engine (as PyTorch).
Tensor quantize_per_tensor_dynamic(const Tensor& self, ScalarType dtype, bool reduce_range);

namespace quantized {

/// y = x > 0 ? x : slope * x, requantized to (output_scale, output_zero_point). inplace=true
/// warns and computes out of place, as PyTorch 1.13.
Tensor leaky_relu(const Tensor& qx, const Scalar& negative_slope, bool inplace,
                  double output_scale, int64_t output_zero_point);
/// y = x >= 0 ? scale * x : scale * alpha * (exp(input_scale * x) - 1).
Tensor elu(const Tensor& qx, double output_scale, int64_t output_zero_point,
           const Scalar& alpha = 1, const Scalar& scale = 1, const Scalar& input_scale = 1);
/// elu with (alpha, 1, 1 / alpha).
Tensor celu(const Tensor& qx, double output_scale, int64_t output_zero_point,
            const Scalar& alpha = 1);
/// y = x > threshold ? x : value, with the input's qparams.
Tensor threshold(const Tensor& qx, const Scalar& threshold, const Scalar& value);
/// Softmax along dim: QNNPACK's integer kernel for quint8 with output qparams (1/256, 0) on the
/// qnnpack engine, else quantize(softmax(dequantize(qx))).
Tensor softmax(const Tensor& qx, int64_t dim, double output_scale, int64_t output_zero_point);
/// Clamp of the codes (as aten::clamp on a quantized tensor).
Tensor clamp(const Tensor& qx, const std::optional<Scalar>& min = std::nullopt,
             const std::optional<Scalar>& max = std::nullopt);

}  // namespace quantized
}  // namespace ember
