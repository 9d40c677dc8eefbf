// torch.*'s functional entry points of nn layers that PyTorch exposes besides F: the dropout
// variants (alpha_dropout, feature_alpha_dropout, feature_dropout, with in-place forms),
// native_channel_shuffle, native_norm, conv_tbc, the synchronized batch norm steps
// (batch_norm_stats / elemt / gather_stats(_with_counts) / update_stats / backward_reduce /
// backward_elemt, which PyTorch runs on CUDA; ember computes them on the CPU with the same
// formulas), quantized_batch_norm, quantized_max_pool1d and _rowwise_prune.
//
//   auto y = ember::alpha_dropout(x, 0.2, /*train=*/true);
//   auto [mean, invstd] = ember::batch_norm_stats(x, 1e-5);
//   auto out = ember::conv_tbc(x_tbc, w_kio, bias, /*pad=*/1);
#pragma once

#include <optional>
#include <tuple>

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

Tensor alpha_dropout(const Tensor& input, double p, bool train);
Tensor& alpha_dropout_(Tensor& self, double p, bool train);
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train);
Tensor& feature_alpha_dropout_(Tensor& self, double p, bool train);
Tensor feature_dropout(const Tensor& input, double p, bool train);
Tensor& feature_dropout_(Tensor& self, double p, bool train);
Tensor native_channel_shuffle(const Tensor& self, int64_t groups);
Tensor native_norm(const Tensor& self, const Scalar& p = 2);
Tensor native_norm(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype);
/// Convolution over (time, batch, channels) input with a (width, in, out) weight.
Tensor conv_tbc(const Tensor& self, const Tensor& weight, const Tensor& bias, int64_t pad = 0);

/// Per channel (dim 1) mean and 1 / sqrt(biased var + eps).
std::tuple<Tensor, Tensor> batch_norm_stats(const Tensor& input, double eps);
/// (x - mean) * invstd * weight + bias, per channel.
Tensor batch_norm_elemt(const Tensor& input, const std::optional<Tensor>& weight,
                        const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& invstd,
                        double eps);
/// The global (mean, invstd) of per-process statistics [world, C] over `count` samples each
/// (or `counts`), updating the running statistics (unbiased variance) with momentum.
std::tuple<Tensor, Tensor> batch_norm_gather_stats(const Tensor& input, const Tensor& mean,
                                                   const Tensor& invstd,
                                                   const std::optional<Tensor>& running_mean,
                                                   const std::optional<Tensor>& running_var,
                                                   double momentum, double eps, int64_t count);
std::tuple<Tensor, Tensor> batch_norm_gather_stats_with_counts(
    const Tensor& input, const Tensor& mean, const Tensor& invstd,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    double momentum, double eps, const Tensor& counts);
/// (mean, unbiased var) per channel, updating the running statistics with momentum.
std::tuple<Tensor, Tensor> batch_norm_update_stats(const Tensor& input,
                                                   const std::optional<Tensor>& running_mean,
                                                   const std::optional<Tensor>& running_var,
                                                   double momentum);
/// (sum dy, sum dy (x - mean), grad_weight, grad_bias) per channel; undefined where not asked.
std::tuple<Tensor, Tensor, Tensor, Tensor> batch_norm_backward_reduce(
    const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& invstd,
    const std::optional<Tensor>& weight, bool input_g, bool weight_g, bool bias_g);
/// grad_input from the reduced sums (divided by the total of count).
Tensor batch_norm_backward_elemt(const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                                 const Tensor& invstd, const std::optional<Tensor>& weight,
                                 const Tensor& mean_dy, const Tensor& mean_dy_xmu, const Tensor& count);

Tensor quantized_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                            const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                            double eps, double output_scale, int64_t output_zero_point);
Tensor quantized_max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = {0}, IntArrayRef dilation = {1},
                            bool ceil_mode = false);
/// (the rows of weight where mask is true, each row's index among them or -1).
std::tuple<Tensor, Tensor> _rowwise_prune(const Tensor& weight, const Tensor& mask,
                                          ScalarType compressed_indices_dtype);

}  // namespace ember
