// The quantized ops other than conv / linear (PyTorch's `quantized::` namespace), and the
// quantized kernels of the aten ops PyTorch runs on quantized tensors (relu, hardtanh, clamp,
// sigmoid, hardsigmoid, max_pool2d, avg_pool2d, adaptive_avg_pool2d, upsample_nearest2d: call the usual
// ember functions on a quantized tensor).
//
//   auto a = ember::quantize_per_tensor(ember::randn({2, 3}), 0.05, 120, ember::kQUInt8);
//   auto b = ember::quantize_per_tensor(ember::randn({2, 3}), 0.04, 128, ember::kQUInt8);
//   auto c = ember::quantized::add(a, b, 0.08, 125);      // q_scale 0.08, q_zero_point 125
//   auto d = ember::quantized::add_scalar(a, 0.5);        // qparams derived from a's (spec § 5)
//   auto e = ember::quantized::cat({a, b}, 0, std::nullopt, std::nullopt);  // a's qparams
//
// Numerics follow the engine active at the call (ember::quantized_engine()): on QNNPACK, `add`
// of two same-shaped quint8 tensors is QNNPACK's fixed-point add and avg pooling / sigmoid use
// QNNPACK's formulas; otherwise PyTorch 1.13's generic kernels, bit for bit.
#pragma once

#include <optional>
#include <vector>

#include "ember/quantized/tensor.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::quantized {

/// quantized::add(qa, qb, scale, zero_point): dequantize, add, quantize to (scale, zero_point);
/// broadcasting; output in qa's memory format.
Tensor add(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point);
Tensor add_relu(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point);
/// quantized::add_scalar(qa, b): output qparams derived from qa's so that codes rarely change.
Tensor add_scalar(const Tensor& qa, const Scalar& b);
Tensor add_scalar_relu(const Tensor& qa, const Scalar& b);
Tensor mul(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point);
Tensor mul_relu(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point);
/// quantized::mul_scalar(qa, b): scale |b|·s, codes unchanged (b > 0) or flipped (b < 0).
Tensor mul_scalar(const Tensor& qa, const Scalar& b);
Tensor mul_scalar_relu(const Tensor& qa, const Scalar& b);
/// quantized::cat: inputs requantized to (scale, zero_point), or to the first input's qparams.
Tensor cat(const std::vector<Tensor>& qx, int64_t dim, std::optional<double> scale,
           std::optional<int64_t> zero_point);
Tensor cat_relu(const std::vector<Tensor>& qx, int64_t dim, std::optional<double> scale,
                std::optional<int64_t> zero_point);
/// quantized::relu6: codes clamped to [z, quantize(6)], qparams unchanged.
Tensor relu6(const Tensor& qx, bool inplace = false);
Tensor hardswish(const Tensor& qx, double output_scale, int64_t output_zero_point);
Tensor sigmoid(const Tensor& qx, double output_scale, int64_t output_zero_point);
Tensor batch_norm2d(const Tensor& qx, const std::optional<Tensor>& weight,
                    const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                    double eps, double output_scale, int64_t output_zero_point);
Tensor batch_norm2d_relu(const Tensor& qx, const std::optional<Tensor>& weight,
                         const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                         double eps, double output_scale, int64_t output_zero_point);

}  // namespace ember::quantized

namespace ember {
/// aten::quantized_max_pool2d: what max_pool2d runs on a quantized tensor (max of the codes,
/// qparams unchanged, layout preserved).
Tensor quantized_max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = {0}, IntArrayRef dilation = {1},
                            bool ceil_mode = false);
}  // namespace ember
