// The aten ops behind nn.utils' reparametrizations and nn.CTCLoss.
//
//   auto w = ember::_weight_norm(v, g, 0);                  // v * (g / ||v|| per row)
//   auto Q = ember::linalg::householder_product(A, tau);    // LAPACK orgqr's Q, by composition
//   auto loss = ember::ctc_loss(log_probs, targets, {50, 50}, {20, 18});
#pragma once

#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

/// The p-norm of `v` over every dim but `dim`, shaped to broadcast against v (dim -1: over all).
Tensor norm_except_dim(const Tensor& v, int64_t pow = 2, int64_t dim = 0);
/// weight_norm's weight: v * (g / norm_except_dim(v, 2, dim)).
Tensor _weight_norm(const Tensor& v, const Tensor& g, int64_t dim = 0);
namespace linalg {
/// The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T (geqrf's reflectors).
Tensor householder_product(const Tensor& input, const Tensor& tau);
}  // namespace linalg
Tensor orgqr(const Tensor& self, const Tensor& input2);

/// CTC loss (Graves et al.), as PyTorch's CPU kernel: log_probs (T, N, C) or (T, C) log-softmax
/// outputs, targets padded (N, S) or concatenated (sum(target_lengths)). reduction 0 none,
/// 1 mean (each loss divided by its target length, then averaged), 2 sum.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                IntArrayRef target_lengths, int64_t blank = 0, int64_t reduction = 1,
                bool zero_infinity = false);
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank = 0, int64_t reduction = 1,
                bool zero_infinity = false);
/// (neg_log_likelihood (N), log_alpha (N, T, 2 * max_target_length + 1)).
std::tuple<Tensor, Tensor> _ctc_loss(const Tensor& log_probs, const Tensor& targets,
                                     IntArrayRef input_lengths, IntArrayRef target_lengths,
                                     int64_t blank = 0, bool zero_infinity = false);
Tensor _ctc_loss_backward(const Tensor& grad, const Tensor& log_probs, const Tensor& targets,
                          IntArrayRef input_lengths, IntArrayRef target_lengths,
                          const Tensor& neg_log_likelihood, const Tensor& log_alpha, int64_t blank,
                          bool zero_infinity = false);

}  // namespace ember
