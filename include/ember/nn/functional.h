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
// names; the rest are thin calls to ops that already exist.
#pragma once

#include <optional>
#include <string>

#include "ember/ops/nn.h"
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

// ---- dropout and embedding (src/nn/functional/dropout.cpp, embedding.cpp) ----
/// Zeroes each element with probability p and scales the rest by 1 / (1 - p) when training.
/// p outside [0, 1] is a ValueError, as in F.dropout.
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
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
