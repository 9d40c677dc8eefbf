// The quantized convolution and linear ops (PyTorch's quantized::conv2d_prepack, conv2d, linear,
// ...): weights are packed once into an object that owns the kernel's layout and remembers the
// formula of the engine it was packed for; the ops run quint8 activations through it.
//
//   ember::set_quantized_engine(ember::QEngine::QNNPACK);
//   auto w = ember::quantize_per_tensor(ember::randn({8, 4, 3, 3}), 0.02, 0, ember::kQInt8);
//   auto packed = ember::quantized::conv2d_prepack(w, bias, {1, 1}, {1, 1}, {1, 1}, 1);
//   auto x = ember::quantize_per_tensor(ember::rand({1, 4, 16, 16}), 1.0 / 255, 0, ember::kQUInt8);
//   ember::Tensor y = ember::quantized::conv2d_relu(x, packed, 0.05, 0);  // quint8, channels_last
//   auto [weight, b] = ember::quantized::conv2d_unpack(packed);           // what was packed
//
// A packed object keeps its formula when the engine changes later (as in PyTorch): packed under
// qnnpack, it computes qnnpack's numbers under any engine. Note [Packed params and engines] in
// src/quant/packed_params.cpp.
#pragma once

#include <optional>
#include <tuple>
#include <vector>

#include "ember/custom_class.h"
#include "ember/tensor.h"

namespace ember::quantized {

class ConvPackedParams;    // src/quant/packed_params.h
class LinearPackedParams;

// ---- conv ----
/// weight: qint8 O x C/groups x KH x KW, per tensor or per channel (axis 0); bias: float [O] or
/// none. The formula is the active engine's (qnnpack -> QNNPACK's, onednn / x86 -> oneDNN's).
intrusive_ptr<ConvPackedParams> conv2d_prepack(const Tensor& weight, const std::optional<Tensor>& bias,
                                               IntArrayRef stride, IntArrayRef padding,
                                               IntArrayRef dilation, int64_t groups);
/// The quantized weight and float bias given to prepack (qnnpack packs a missing bias as zeros
/// and gives those back, as PyTorch's does).
std::tuple<Tensor, std::optional<Tensor>> conv2d_unpack(const intrusive_ptr<ConvPackedParams>& packed);
/// qx: quint8 N x C x H x W (any memory format); the result is quint8 N x O x OH x OW,
/// channels_last, with the given qparams.
Tensor conv2d(const Tensor& qx, const intrusive_ptr<ConvPackedParams>& packed, double output_scale,
              int64_t output_zero_point);
/// conv2d with a fused ReLU (codes clamped below at the output zero point).
Tensor conv2d_relu(const Tensor& qx, const intrusive_ptr<ConvPackedParams>& packed,
                   double output_scale, int64_t output_zero_point);
std::vector<int64_t> conv2d_stride(const intrusive_ptr<ConvPackedParams>& packed);
std::vector<int64_t> conv2d_padding(const intrusive_ptr<ConvPackedParams>& packed);
std::vector<int64_t> conv2d_dilation(const intrusive_ptr<ConvPackedParams>& packed);
std::vector<int64_t> conv2d_output_padding(const intrusive_ptr<ConvPackedParams>& packed);
int64_t conv2d_groups(const intrusive_ptr<ConvPackedParams>& packed);
int64_t conv2d_transpose(const intrusive_ptr<ConvPackedParams>& packed);

/// conv1d: weight O x C/groups x K (packed as O x C/groups x 1 x K, as PyTorch's), one-element
/// stride / padding / dilation; qx N x C x L.
intrusive_ptr<ConvPackedParams> conv1d_prepack(const Tensor& weight, const std::optional<Tensor>& bias,
                                               IntArrayRef stride, IntArrayRef padding,
                                               IntArrayRef dilation, int64_t groups);
std::tuple<Tensor, std::optional<Tensor>> conv1d_unpack(const intrusive_ptr<ConvPackedParams>& packed);
Tensor conv1d(const Tensor& qx, const intrusive_ptr<ConvPackedParams>& packed, double output_scale,
              int64_t output_zero_point);
Tensor conv1d_relu(const Tensor& qx, const intrusive_ptr<ConvPackedParams>& packed,
                   double output_scale, int64_t output_zero_point);

// ---- linear ----
/// weight: qint8 O x K, per tensor or per channel (axis 0); bias: float [O] or none.
intrusive_ptr<LinearPackedParams> linear_prepack(const Tensor& weight,
                                                 const std::optional<Tensor>& bias = std::nullopt);
std::tuple<Tensor, std::optional<Tensor>> linear_unpack(const intrusive_ptr<LinearPackedParams>& packed);
/// qx: quint8 [..., K] -> quint8 [..., O] with the given qparams.
Tensor linear(const Tensor& qx, const intrusive_ptr<LinearPackedParams>& packed, double output_scale,
              int64_t output_zero_point);
Tensor linear_relu(const Tensor& qx, const intrusive_ptr<LinearPackedParams>& packed,
                   double output_scale, int64_t output_zero_point);
/// x: float32 [..., K] -> float32 [..., O]: x quantized on the fly with qparams from its range
/// (nn.quantized.dynamic.Linear). reduce_range is ignored by the qnnpack formula, as in PyTorch.
Tensor linear_dynamic(const Tensor& x, const intrusive_ptr<LinearPackedParams>& packed,
                      bool reduce_range = false);
Tensor linear_relu_dynamic(const Tensor& x, const intrusive_ptr<LinearPackedParams>& packed,
                           bool reduce_range = false);

}  // namespace ember::quantized
