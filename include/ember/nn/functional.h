// ember::nn::functional — torch.nn.functional in C++: activations, linear maps, normalisation,
// dropout, embedding and losses, with PyTorch's argument order (the legacy size_average / reduce
// arguments left out). The nn::Module layers call these.
//
//   namespace F = ember::nn::functional;
//   auto h = F::relu(F::linear(x, w1, b1));
//   auto loss = F::cross_entropy(F::linear(h, w2, b2), labels, std::nullopt, -100,
//                                F::Reduction::Mean, /*label_smoothing=*/0.1);
//
// The losses, layer_norm and bilinear are aten ops (ember/ops/nn.h) that dispatch by their aten
// names; the rest are thin calls to ops that already exist. The convolution, pooling and
// normalisation wrappers (src/nn/functional/conv.cpp, pooling.cpp, batch_norm.cpp) add what
// torch.nn.functional adds in Python on top of the ops of ember/ops/conv.h, pooling.h and
// normalization.h: F's argument order, its checks ("Expected more than 1 value per channel when
// training") and the expansion of a single int to one per spatial dim.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/ops/conv.h"
#include "ember/ops/nn.h"
#include "ember/ops/normalization.h"
#include "ember/ops/pooling.h"
#include "ember/tensor.h"

namespace ember::nn::functional {

/// How a loss reduces its per-element values; the numbers are the schema's `int reduction`
/// (at::Reduction).
enum class Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };

/// Python's reduction strings (torch.nn._reduction.get_enum): "none", "mean", "sum";
/// "elementwise_mean" warns that it is deprecated and means "mean". Anything else is a
/// ValueError "<s> is not a valid value for reduction".
Reduction reduction_from_string(const std::string& reduction);
/// "none", "mean" or "sum".
const char* reduction_name(Reduction reduction);

// ---- activations (src/nn/functional/activation.cpp); inplace forms return `input` ----
Tensor relu(const Tensor& input, bool inplace = false);
Tensor relu6(const Tensor& input, bool inplace = false);
Tensor hardtanh(const Tensor& input, double min_val = -1., double max_val = 1., bool inplace = false);
Tensor hardswish(const Tensor& input, bool inplace = false);
Tensor hardsigmoid(const Tensor& input, bool inplace = false);
Tensor sigmoid(const Tensor& input);
Tensor tanh(const Tensor& input);
/// approximate: "none" (erf) or "tanh".
Tensor gelu(const Tensor& input, const std::string& approximate = "none");
Tensor silu(const Tensor& input, bool inplace = false);
/// dtype, when given, converts the input first (as F.softmax's dtype argument).
Tensor softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& input, int64_t dim,
                   std::optional<ScalarType> dtype = std::nullopt);

// ---- linear maps (src/nn/functional/linear.cpp) ----
/// input @ weight.T + bias.
Tensor linear(const Tensor& input, const Tensor& weight,
              const std::optional<Tensor>& bias = std::nullopt);
/// input1^T weight[o] input2 + bias[o] for each output feature o (aten::bilinear).
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const std::optional<Tensor>& bias = std::nullopt);
/// torch.flatten: dims start_dim..end_dim merged into one.
Tensor flatten(const Tensor& input, int64_t start_dim = 0, int64_t end_dim = -1);

// ---- normalisation (src/nn/functional/normalization.cpp) ----
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                  const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5);

/// F.batch_norm (F's order: running stats before weight and bias). When training, the running
/// stats (if given) are updated in place with `momentum`, and an input with one value per
/// channel is a ValueError "Expected more than 1 value per channel when training, got input
/// size torch.Size([1, 3])".
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& running_mean,
                  const std::optional<Tensor>& running_var,
                  const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt, bool training = false,
                  double momentum = 0.1, double eps = 1e-5);
/// F.group_norm: input [N, C, *] normalised over groups of C / num_groups channels.
Tensor group_norm(const Tensor& input, int64_t num_groups,
                  const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5);

// ---- convolutions (src/nn/functional/conv.cpp) ----
/// Input [N, C_in, L] (or unbatched [C_in, L]), weight [C_out, C_in / groups, k].
Tensor conv1d(const Tensor& input, const Tensor& weight,
              const std::optional<Tensor>& bias = std::nullopt, IntArrayRef stride = {1},
              IntArrayRef padding = {0}, IntArrayRef dilation = {1}, int64_t groups = 1);
/// padding "same" (output length = input length; stride must be 1) or "valid" (no padding).
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const std::string& padding, IntArrayRef dilation = {1},
              int64_t groups = 1);
/// Input [N, C_in, H, W] (or unbatched), weight [C_out, C_in / groups, kH, kW]. A one-element
/// stride / padding / dilation applies to both dims, as a Python int does.
Tensor conv2d(const Tensor& input, const Tensor& weight,
              const std::optional<Tensor>& bias = std::nullopt, IntArrayRef stride = {1, 1},
              IntArrayRef padding = {0, 0}, IntArrayRef dilation = {1, 1}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const std::string& padding, IntArrayRef dilation = {1, 1},
              int64_t groups = 1);
/// weight [C_in, C_out / groups, kH, kW]; note dilation comes last, as in F.conv_transpose2d.
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias = std::nullopt,
                        IntArrayRef stride = {1, 1}, IntArrayRef padding = {0, 0},
                        IntArrayRef output_padding = {0, 0}, int64_t groups = 1,
                        IntArrayRef dilation = {1, 1});

// ---- pooling, padding and resampling (src/nn/functional/pooling.cpp) ----
/// An empty stride means stride = kernel_size (Python's stride=None).
Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = {0}, IntArrayRef dilation = {1}, bool ceil_mode = false);
/// F.max_pool2d(..., return_indices=True): the values and the flat indices (per plane) of the
/// maxima, int64.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {},
                                                   IntArrayRef padding = {0},
                                                   IntArrayRef dilation = {1},
                                                   bool ceil_mode = false);
Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = {0}, bool ceil_mode = false,
                  bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
/// output_size: one int for both dims, or (H, W).
Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            IntArrayRef output_size);
/// pad: (left, right) pairs from the last dim backwards; mode "constant" (value, default 0),
/// "reflect" or "replicate".
Tensor pad(const Tensor& input, IntArrayRef pad, const std::string& mode = "constant",
           std::optional<double> value = std::nullopt);
/// Exactly one of size and scale_factor; one element applies to every spatial dim. mode
/// "nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear" or "area"
/// (align_corners only with the interpolating ones); antialias with bilinear / bicubic.
Tensor interpolate(const Tensor& input, std::optional<std::vector<int64_t>> size = std::nullopt,
                   std::optional<std::vector<double>> scale_factor = std::nullopt,
                   const std::string& mode = "nearest",
                   std::optional<bool> align_corners = std::nullopt,
                   std::optional<bool> recompute_scale_factor = std::nullopt,
                   bool antialias = false);

// ---- dropout and embedding (src/nn/functional/dropout.cpp, embedding.cpp) ----
/// Zeroes each element with probability p and scales the rest by 1 / (1 - p) when training.
/// p outside [0, 1] is a ValueError, as in F.dropout.
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
/// Channel-wise dropout (F.dropout2d): zeroes whole channels input[n, c] with probability p and
/// scales the others by 1 / (1 - p). Inputs other than 4-d warn as PyTorch does (3-d ones are
/// taken as [N, C, L], PyTorch 1.13's behaviour).
Tensor dropout2d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
/// Rows of `weight` picked by the integer `input`. padding_idx (negative counts from the end)
/// gets no gradient; max_norm renormalises, in place and without grad, the rows looked up whose
/// norm_type-norm exceeds it (as F.embedding).
Tensor embedding(const Tensor& input, const Tensor& weight,
                 std::optional<int64_t> padding_idx = std::nullopt,
                 std::optional<double> max_norm = std::nullopt, double norm_type = 2.,
                 bool scale_grad_by_freq = false, bool sparse = false);

// ---- losses (src/nn/functional/loss.cpp, loss_nll.cpp) ----
/// mse_loss / l1_loss / smooth_l1_loss warn, as PyTorch does, when target's size differs from
/// input's ("This will likely lead to incorrect results due to broadcasting"), then broadcast.
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      Reduction reduction = Reduction::Mean, double beta = 1.0);
/// Input [C], [N, C] or [N, C, d1, ...] of log-probabilities; target [], [N] or [N, d1, ...] of
/// class indices (int64).
Tensor nll_loss(const Tensor& input, const Tensor& target,
                const std::optional<Tensor>& weight = std::nullopt, int64_t ignore_index = -100,
                Reduction reduction = Reduction::Mean);
/// Input of unnormalised scores shaped as nll_loss's; target of class indices, or of class
/// probabilities with input's shape.
Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const std::optional<Tensor>& weight = std::nullopt,
                     int64_t ignore_index = -100, Reduction reduction = Reduction::Mean,
                     double label_smoothing = 0.0);
/// Target must have input's size (ValueError otherwise, as F.binary_cross_entropy_with_logits).
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const std::optional<Tensor>& weight = std::nullopt,
                                        Reduction reduction = Reduction::Mean,
                                        const std::optional<Tensor>& pos_weight = std::nullopt);

}  // namespace ember::nn::functional
#include "ember/nn/functional_more.h"  // issue 16: the remaining torch.nn.functional
