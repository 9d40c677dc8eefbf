// The dropout step shared by F.dropout2d / dropout1d / dropout3d / alpha_dropout /
// feature_alpha_dropout (src/nn/functional/dropout.cpp).
#pragma once

#include "ember/tensor.h"

namespace ember::nn::functional::detail {

/// PyTorch's _dropout_impl: `feature` draws one Bernoulli per (sample, channel); `alpha` is
/// alpha dropout (SELU's mean and variance kept). Returns input itself when not training.
Tensor dropout_impl(const Tensor& input, double p, bool training, bool inplace, bool feature,
                    bool alpha);

}  // namespace ember::nn::functional::detail
