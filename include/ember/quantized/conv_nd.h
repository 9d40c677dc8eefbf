// The 3-d and transposed quantized convolutions (PyTorch's quantized::conv3d_prepack, conv3d,
// conv_transpose1d/2d/3d_prepack, conv_transpose2d, ...). Weights are packed once, for the
// active engine's formula, into an object the ops run activations through.
//
//   auto w = ember::quantize_per_tensor(ember::randn({8, 4, 3, 3, 3}), 0.02, 0, ember::kQInt8);
//   auto p = ember::quantized::conv3d_prepack(w, std::nullopt, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1);
//   ember::Tensor y = ember::quantized::conv3d(x, p, 0.05, 0);  // quint8, channels_last_3d
//
//   auto wt = ember::quantize_per_tensor(ember::randn({4, 8, 3, 3}), 0.02, 0, ember::kQInt8);
//   auto t = ember::quantized::conv_transpose2d_prepack(wt, bias, {2, 2}, {1, 1}, {1, 1},
//                                                       {1, 1}, 1);  // stride, padding,
//   ember::Tensor up = ember::quantized::conv_transpose2d(x, t, 0.05, 0);  // output_padding, dilation
//
// Transposed weights are in_channels x out_channels/groups x k..., as PyTorch's. A 1-d transposed
// convolution is packed as a 2-d one of height 1 (its accessors show that form, as PyTorch's).
#pragma once

#include <optional>
#include <tuple>
#include <vector>

#include "ember/custom_class.h"
#include "ember/tensor.h"

namespace ember::quantized {

class Conv3dPackedParams;           // src/quant/packed_params_nd.h
class ConvTranspose2dPackedParams;

using Conv3dPacked = intrusive_ptr<Conv3dPackedParams>;
using ConvTranspose2dPacked = intrusive_ptr<ConvTranspose2dPackedParams>;

// ---- conv3d ----
Conv3dPacked conv3d_prepack(const Tensor& weight, const std::optional<Tensor>& bias,
                            IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                            int64_t groups);
std::tuple<Tensor, std::optional<Tensor>> conv3d_unpack(const Conv3dPacked& packed);
/// qx: quint8 N x C x D x H x W; the result is quint8, channels_last_3d.
Tensor conv3d(const Tensor& qx, const Conv3dPacked& packed, double output_scale,
              int64_t output_zero_point);
Tensor conv3d_relu(const Tensor& qx, const Conv3dPacked& packed, double output_scale,
                   int64_t output_zero_point);
std::vector<int64_t> conv3d_stride(const Conv3dPacked& packed);
std::vector<int64_t> conv3d_padding(const Conv3dPacked& packed);
std::vector<int64_t> conv3d_dilation(const Conv3dPacked& packed);
std::vector<int64_t> conv3d_output_padding(const Conv3dPacked& packed);
int64_t conv3d_groups(const Conv3dPacked& packed);
int64_t conv3d_transpose(const Conv3dPacked& packed);

// ---- transposed ----
ConvTranspose2dPacked conv_transpose1d_prepack(const Tensor& weight,
                                               const std::optional<Tensor>& bias,
                                               IntArrayRef stride, IntArrayRef padding,
                                               IntArrayRef output_padding, IntArrayRef dilation,
                                               int64_t groups);
std::tuple<Tensor, std::optional<Tensor>> conv_transpose1d_unpack(const ConvTranspose2dPacked& packed);
Tensor conv_transpose1d(const Tensor& qx, const ConvTranspose2dPacked& packed, double output_scale,
                        int64_t output_zero_point);

ConvTranspose2dPacked conv_transpose2d_prepack(const Tensor& weight,
                                               const std::optional<Tensor>& bias,
                                               IntArrayRef stride, IntArrayRef padding,
                                               IntArrayRef output_padding, IntArrayRef dilation,
                                               int64_t groups);
std::tuple<Tensor, std::optional<Tensor>> conv_transpose2d_unpack(const ConvTranspose2dPacked& packed);
Tensor conv_transpose2d(const Tensor& qx, const ConvTranspose2dPacked& packed, double output_scale,
                        int64_t output_zero_point);
std::vector<int64_t> conv_transpose2d_stride(const ConvTranspose2dPacked& packed);
std::vector<int64_t> conv_transpose2d_padding(const ConvTranspose2dPacked& packed);
std::vector<int64_t> conv_transpose2d_dilation(const ConvTranspose2dPacked& packed);
std::vector<int64_t> conv_transpose2d_output_padding(const ConvTranspose2dPacked& packed);
int64_t conv_transpose2d_groups(const ConvTranspose2dPacked& packed);
int64_t conv_transpose2d_transpose(const ConvTranspose2dPacked& packed);

Conv3dPacked conv_transpose3d_prepack(const Tensor& weight, const std::optional<Tensor>& bias,
                                      IntArrayRef stride, IntArrayRef padding,
                                      IntArrayRef output_padding, IntArrayRef dilation,
                                      int64_t groups);
std::tuple<Tensor, std::optional<Tensor>> conv_transpose3d_unpack(const Conv3dPacked& packed);
Tensor conv_transpose3d(const Tensor& qx, const Conv3dPacked& packed, double output_scale,
                        int64_t output_zero_point);
std::vector<int64_t> conv_transpose3d_stride(const Conv3dPacked& packed);
std::vector<int64_t> conv_transpose3d_padding(const Conv3dPacked& packed);
std::vector<int64_t> conv_transpose3d_dilation(const Conv3dPacked& packed);
std::vector<int64_t> conv_transpose3d_output_padding(const Conv3dPacked& packed);
int64_t conv_transpose3d_groups(const Conv3dPacked& packed);
int64_t conv_transpose3d_transpose(const Conv3dPacked& packed);

}  // namespace ember::quantized
