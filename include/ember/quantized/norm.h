// Quantized normalisation ops (PyTorch's quantized::layer_norm, group_norm, instance_norm and
// batch_norm1d / batch_norm3d / batch_norm, with _relu forms):
//
//   auto y = ember::quantized::layer_norm(qx, {64}, weight, bias, 1e-5, 0.05, 128);
//   auto g = ember::quantized::group_norm(qx, 4, weight, bias, 1e-5, 0.05, 128);
//
// Results equal PyTorch 1.13's codes (src/quant/qnorm_more.cpp).
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember::quantized {

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                  const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  double eps, double output_scale, int64_t output_zero_point);
Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, double output_scale,
                  int64_t output_zero_point);
/// Group norm with one group per channel (input of rank >= 3).
Tensor instance_norm(const Tensor& input, const std::optional<Tensor>& weight,
                     const std::optional<Tensor>& bias, double eps, double output_scale,
                     int64_t output_zero_point);

/// batch_norm on (N, C) / (N, C, L) inputs (contiguous result), on (N, C, D, H, W) ones
/// (channels_last_3d result), and batch_norm / batch_norm_relu choosing by rank (2-5).
Tensor batch_norm1d(const Tensor& qx, const std::optional<Tensor>& weight,
                    const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                    double eps, double output_scale, int64_t output_zero_point);
Tensor batch_norm1d_relu(const Tensor& qx, const std::optional<Tensor>& weight,
                         const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                         double eps, double output_scale, int64_t output_zero_point);
Tensor batch_norm3d(const Tensor& qx, const std::optional<Tensor>& weight,
                    const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                    double eps, double output_scale, int64_t output_zero_point);
Tensor batch_norm3d_relu(const Tensor& qx, const std::optional<Tensor>& weight,
                         const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                         double eps, double output_scale, int64_t output_zero_point);
Tensor batch_norm(const Tensor& qx, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                  double eps, double output_scale, int64_t output_zero_point);
Tensor batch_norm_relu(const Tensor& qx, const std::optional<Tensor>& weight,
                       const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                       double eps, double output_scale, int64_t output_zero_point);

}  // namespace ember::quantized
