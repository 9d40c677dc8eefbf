// torch.nn.utils.clip_grad_norm_ / clip_grad_value_: gradient clipping in place.
//
//   Tensor total = nn::utils::clip_grad_norm_(model->parameters(), 1.0);
#pragma once

#include <limits>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn::utils {

/// Scales the gradients so that their joint norm of order `norm_type` (inf: the largest
/// magnitude) is at most max_norm (coefficient max_norm / (norm + 1e-6), clamped to 1); returns
/// the total norm before clipping (0-d; ember.tensor(0.) when no parameter has a gradient).
/// error_if_nonfinite raises PyTorch's RuntimeError for a NaN or infinite norm (leaving the
/// gradients untouched).
Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
/// Clamps every gradient to [-clip_value, clip_value] in place.
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);

}  // namespace ember::nn::utils
