// The torch.nn.functional entries of issue 16 (src/nn/functional/activation_more.cpp,
// pooling_more.cpp, misc_more.cpp, loss_more_functional.cpp): the parameterised activations,
// 1-d / 3-d and power-average pooling, instance / local-response normalisation, normalize,
// distances, folding, grid sampling, channel dropouts and the remaining losses. PyTorch's
// argument orders and Python-side checks (texts and exception types); the aten ops underneath
// are in ember/ops/nn_ops.h.
//
//   namespace F = ember::nn::functional;
//   auto y = F::leaky_relu(x, 0.2);
//   auto l = F::kl_div(F::log_softmax(a, 1), p, F::KlReduction::BatchMean);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn::functional {


// ---- activations; inplace forms write `input` and return it ----
Tensor leaky_relu(const Tensor& input, double negative_slope = 0.01, bool inplace = false);
Tensor elu(const Tensor& input, double alpha = 1.0, bool inplace = false);
Tensor selu(const Tensor& input, bool inplace = false);
Tensor celu(const Tensor& input, double alpha = 1.0, bool inplace = false);
Tensor softplus(const Tensor& input, double beta = 1.0, double threshold = 20.0);
Tensor mish(const Tensor& input, bool inplace = false);
Tensor glu(const Tensor& input, int64_t dim = -1);
Tensor logsigmoid(const Tensor& input);
Tensor softsign(const Tensor& input);
Tensor softshrink(const Tensor& input, double lambd = 0.5);
Tensor hardshrink(const Tensor& input, double lambd = 0.5);
Tensor tanhshrink(const Tensor& input);
Tensor threshold(const Tensor& input, double threshold, double value, bool inplace = false);
/// softmax(-input); no dim: PyTorch's deprecated implicit choice, with its warning.
Tensor softmin(const Tensor& input, std::optional<int64_t> dim = std::nullopt,
               std::optional<ScalarType> dtype = std::nullopt);
Tensor rrelu(const Tensor& input, double lower = 1.0 / 8, double upper = 1.0 / 3,
             bool training = false, bool inplace = false);
Tensor prelu(const Tensor& input, const Tensor& weight);

// ---- pooling ----
Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = {0}, bool ceil_mode = false, bool count_include_pad = true);
Tensor avg_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = {0}, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = {0}, IntArrayRef dilation = {1}, bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {},
                                                   IntArrayRef padding = {0},
                                                   IntArrayRef dilation = {1},
                                                   bool ceil_mode = false);
Tensor max_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = {0}, IntArrayRef dilation = {1}, bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {},
                                                   IntArrayRef padding = {0},
                                                   IntArrayRef dilation = {1},
                                                   bool ceil_mode = false);
Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_avg_pool3d(const Tensor& input, IntArrayRef output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            IntArrayRef output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                            IntArrayRef output_size);
/// (sum over each window of x^p)^(1/p), PyTorch's composite of avg_pool (F.lp_pool1d / 2d).
Tensor lp_pool1d(const Tensor& input, double norm_type, IntArrayRef kernel_size,
                 IntArrayRef stride = {}, bool ceil_mode = false);
Tensor lp_pool2d(const Tensor& input, double norm_type, IntArrayRef kernel_size,
                 IntArrayRef stride = {}, bool ceil_mode = false);
/// F.max_unpool1d / 2d / 3d: values scattered to the flat indices of each plane.
Tensor max_unpool(const Tensor& input, const Tensor& indices, IntArrayRef kernel_size,
                  IntArrayRef stride, IntArrayRef padding,
                  const std::optional<std::vector<int64_t>>& output_size, size_t spatial);

// ---- normalisation, distances, shapes ----
Tensor instance_norm(const Tensor& input, const std::optional<Tensor>& running_mean = std::nullopt,
                     const std::optional<Tensor>& running_var = std::nullopt,
                     const std::optional<Tensor>& weight = std::nullopt,
                     const std::optional<Tensor>& bias = std::nullopt,
                     bool use_input_stats = true, double momentum = 0.1, double eps = 1e-5);
Tensor local_response_norm(const Tensor& input, int64_t size, double alpha = 1e-4,
                           double beta = 0.75, double k = 1.0);
/// input / max(||input||_p over dim, eps).
Tensor normalize(const Tensor& input, double p = 2.0, int64_t dim = 1, double eps = 1e-12);
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0, double eps = 1e-6,
                         bool keepdim = false);
Tensor pdist(const Tensor& input, double p = 2.0);
Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);
Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor);
Tensor channel_shuffle(const Tensor& input, int64_t groups);
/// F.unfold / F.fold (sizes: one int for both dims, or two).
Tensor unfold(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation = {1},
              IntArrayRef padding = {0}, IntArrayRef stride = {1});
Tensor fold(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size,
            IntArrayRef dilation = {1}, IntArrayRef padding = {0}, IntArrayRef stride = {1});
/// mode "bilinear", "nearest" or "bicubic"; padding_mode "zeros", "border" or "reflection".
Tensor grid_sample(const Tensor& input, const Tensor& grid, const std::string& mode = "bilinear",
                   const std::string& padding_mode = "zeros",
                   std::optional<bool> align_corners = std::nullopt);
Tensor affine_grid(const Tensor& theta, IntArrayRef size,
                   std::optional<bool> align_corners = std::nullopt);
Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
              IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef dilation = {1},
              int64_t groups = 1);
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias = {}, IntArrayRef stride = {1},
                        IntArrayRef padding = {0}, IntArrayRef output_padding = {0},
                        int64_t groups = 1, IntArrayRef dilation = {1});
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias = {}, IntArrayRef stride = {1},
                        IntArrayRef padding = {0}, IntArrayRef output_padding = {0},
                        int64_t groups = 1, IntArrayRef dilation = {1});

// ---- dropouts ----
/// Channel dropout of [N, C, L] / [C, L] (1d) and [N, C, D, H, W] / [C, D, H, W] (3d) inputs.
Tensor dropout1d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
Tensor dropout3d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
/// SELU-preserving dropout (feature_alpha: whole channels).
Tensor alpha_dropout(const Tensor& input, double p = 0.5, bool training = false, bool inplace = false);
Tensor feature_alpha_dropout(const Tensor& input, double p = 0.5, bool training = false,
                             bool inplace = false);

// ---- losses (reduction strings as F's: "none", "mean", "sum"; kl_div also "batchmean") ----
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const std::optional<Tensor>& weight = std::nullopt,
                            const std::string& reduction = "mean");
Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
              bool log_target = false);
Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
                  double delta = 1.0);
Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                        const std::string& reduction = "mean");
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const std::optional<Tensor>& weight = std::nullopt,
                                   const std::string& reduction = "mean");
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p = 1,
                         double margin = 1.0, const std::optional<Tensor>& weight = std::nullopt,
                         const std::string& reduction = "mean");
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const std::string& reduction = "mean");
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           double margin = 0.0, const std::string& reduction = "mean");
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin = 1.0,
                            const std::string& reduction = "mean");
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             double margin = 0.0, const std::string& reduction = "mean");
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           double margin = 1.0, double p = 2.0, double eps = 1e-6,
                           bool swap = false, const std::string& reduction = "mean");
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input = true,
                        bool full = false, double eps = 1e-8, const std::string& reduction = "mean");
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         bool full = false, double eps = 1e-6, const std::string& reduction = "mean");

}  // namespace ember::nn::functional
