// The nn ops of issue 16 (src/ops/nn_*.cpp), with PyTorch's aten names and argument orders:
// parameterised activations, 1-d / 3-d pooling, 3-d padding, im2col / col2im, grid sampling,
// the native normalisations, distances, 3-d and transposed 1-d / 3-d convolutions, losses.
//
//   auto y = ember::elu(x, 1.0);                      // aten::elu
//   auto [m, idx] = ember::max_pool3d_with_indices(v, {2, 2, 2});
//   auto cols = ember::im2col(img, {3, 3}, {1, 1}, {1, 1}, {1, 1});
#pragma once

#include <array>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

class Generator;

// ---- src/ops/nn_activation.cpp ----
Tensor elu(const Tensor& self, const Scalar& alpha = 1, const Scalar& scale = 1,
           const Scalar& input_scale = 1);
Tensor elu_backward(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                    const Scalar& input_scale, bool is_result, const Tensor& self_or_result);
Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope = 0.01);
/// In place (aten::elu_ / leaky_relu_); their backward reads the result, so a negative alpha /
/// slope is refused when differentiating, as in PyTorch.
Tensor& elu_(Tensor& self, const Scalar& alpha = 1, const Scalar& scale = 1, const Scalar& input_scale = 1);
Tensor& leaky_relu_(Tensor& self, const Scalar& negative_slope = 0.01);
Tensor leaky_relu_backward(const Tensor& grad_output, const Tensor& self,
                           const Scalar& negative_slope, bool self_is_result);
Tensor selu(const Tensor& self);
Tensor celu(const Tensor& self, const Scalar& alpha = 1.0);
Tensor softplus(const Tensor& self, const Scalar& beta = 1, const Scalar& threshold = 20);
Tensor mish(const Tensor& self);
Tensor glu(const Tensor& self, int64_t dim = -1);
Tensor log_sigmoid(const Tensor& self);
Tensor softshrink(const Tensor& self, const Scalar& lambd = 0.5);
Tensor hardshrink(const Tensor& self, const Scalar& lambd = 0.5);
Tensor prelu(const Tensor& self, const Tensor& weight);
Tensor rrelu(const Tensor& self, const Scalar& lower = 1.0 / 8, const Scalar& upper = 1.0 / 3,
             bool training = false, Generator* generator = nullptr);
Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value);

// ---- src/ops/nn_pool3d.cpp: 1-d pools (over the 2-d ops) and 3-d pools ----
Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = {0}, bool ceil_mode = false, bool count_include_pad = true);
Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size);
Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = {0}, IntArrayRef dilation = {1}, bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {},
                                                   IntArrayRef padding = {0},
                                                   IntArrayRef dilation = {1},
                                                   bool ceil_mode = false);
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size);
Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = {0}, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                           bool count_include_pad, std::optional<int64_t> divisor_override);
Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size);
Tensor _adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size);
Tensor _adaptive_avg_pool3d_backward(const Tensor& grad_output, const Tensor& self);
Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = {0}, IntArrayRef dilation = {1}, bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {},
                                                   IntArrayRef padding = {0},
                                                   IntArrayRef dilation = {1},
                                                   bool ceil_mode = false);
Tensor max_pool3d_with_indices_backward(const Tensor& grad_output, const Tensor& self,
                                        IntArrayRef kernel_size, IntArrayRef stride,
                                        IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices);
std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, IntArrayRef output_size);
Tensor adaptive_max_pool3d_backward(const Tensor& grad_output, const Tensor& self,
                                    const Tensor& indices);

// ---- src/ops/nn_pad3d.cpp: 3-d padding, im2col / col2im, shuffles ----
Tensor reflection_pad3d(const Tensor& self, IntArrayRef padding);
Tensor reflection_pad3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding);
Tensor replication_pad3d(const Tensor& self, IntArrayRef padding);
Tensor replication_pad3d_backward(const Tensor& grad_output, const Tensor& self,
                                  IntArrayRef padding);
Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride);
Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size,
              IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride);
Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor);
Tensor channel_shuffle(const Tensor& self, int64_t groups);

// ---- src/ops/nn_sample.cpp: resampling and grid sampling ----
Tensor upsample_nearest2d(const Tensor& input, std::optional<IntArrayRef> output_size,
                          std::optional<std::vector<double>> scale_factors);
Tensor upsample_bilinear2d(const Tensor& input, std::optional<IntArrayRef> output_size,
                           bool align_corners, std::optional<std::vector<double>> scale_factors);
/// interpolation_mode 0 bilinear, 1 nearest, 2 bicubic; padding_mode 0 zeros, 1 border,
/// 2 reflection (PyTorch's enums).
Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                    int64_t padding_mode, bool align_corners);
Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                       int64_t padding_mode, bool align_corners);
Tensor affine_grid_generator(const Tensor& theta, IntArrayRef size, bool align_corners);

// ---- src/ops/nn_norm.cpp: native normalisations, distances, convolutions ----
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input,
                                                     IntArrayRef normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps);
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(
    const Tensor& grad_out, const Tensor& input, IntArrayRef normalized_shape, const Tensor& mean,
    const Tensor& rstd, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    std::array<bool, 3> output_mask);
std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward(
    const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& rstd,
    const std::optional<Tensor>& weight, int64_t N, int64_t C, int64_t HxW, int64_t group,
    std::array<bool, 3> output_mask);
std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, bool training, double momentum,
    double eps);
std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    bool training, double momentum, double eps);
std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_no_training(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, double momentum, double eps);
Tensor instance_norm(const Tensor& input, const std::optional<Tensor>& weight,
                     const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                     const std::optional<Tensor>& running_var, bool use_input_stats,
                     double momentum, double eps, bool cudnn_enabled = false);
Tensor _cdist_forward(const Tensor& x1, const Tensor& x2, double p,
                      std::optional<int64_t> compute_mode);
Tensor _cdist_backward(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p,
                       const Tensor& cdist);
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2.0,
             std::optional<int64_t> compute_mode = std::nullopt);
Tensor _pdist_forward(const Tensor& self, double p = 2.0);
Tensor _pdist_backward(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist);
Tensor pdist(const Tensor& self, double p = 2.0);
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0, double eps = 1e-6,
                         bool keepdim = false);
Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
              IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef dilation = {1},
              int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const std::string& padding, IntArrayRef dilation = {1},
              int64_t groups = 1);
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias = {}, IntArrayRef stride = {1},
                        IntArrayRef padding = {0}, IntArrayRef output_padding = {0},
                        int64_t groups = 1, IntArrayRef dilation = {1});
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias = {}, IntArrayRef stride = {1},
                        IntArrayRef padding = {0}, IntArrayRef output_padding = {0},
                        int64_t groups = 1, IntArrayRef dilation = {1});

// ---- src/ops/nn_loss.cpp: losses (reduction 0 none, 1 mean, 2 sum) ----
Tensor binary_cross_entropy(const Tensor& self, const Tensor& target,
                            const std::optional<Tensor>& weight = {}, int64_t reduction = 1);
Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction = 1,
              bool log_target = false);
Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction = 1,
                  double delta = 1.0);
Tensor soft_margin_loss(const Tensor& self, const Tensor& target, int64_t reduction = 1);
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           double margin = 0.0, int64_t reduction = 1);
Tensor hinge_embedding_loss(const Tensor& self, const Tensor& target, double margin = 1.0,
                            int64_t reduction = 1);
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             double margin = 0.0, int64_t reduction = 1);
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           double margin = 1.0, double p = 2.0, double eps = 1e-6,
                           bool swap = false, int64_t reduction = 1);
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full,
                        double eps, int64_t reduction);
Tensor one_hot(const Tensor& self, int64_t num_classes = -1);

}  // namespace ember
