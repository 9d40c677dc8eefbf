// Steps shared by the loss ops of src/nn/functional/loss.cpp and loss_nll.cpp.
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember::nn::functional::detail {

/// PyTorch's apply_loss_reduction: mean (1), sum (2), anything else the unreduced loss.
Tensor apply_loss_reduction(const Tensor& loss, int64_t reduction);

/// For the ops whose PyTorch kernels only know 0, 1 and 2 (mse_loss, smooth_l1_loss): an
/// ember error naming the op instead of PyTorch's internal assert.
void check_reduction(const char* op, int64_t reduction);

/// '"<kernel>" not implemented for '<Name>'' unless dtype is floating: the text PyTorch's
/// dtype switch gives for the kernel this loss replaces.
void check_floating(const char* kernel, ScalarType dtype);

}  // namespace ember::nn::functional::detail
