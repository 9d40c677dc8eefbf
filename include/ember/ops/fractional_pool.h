// Fractional max pooling (Graham, "Fractional Max-Pooling"): pooling windows of a fixed size at
// pseudo-random, increasing offsets chosen by one sample in [0, 1) per plane and dimension, so
// the output has any size between the input's and input / kernel.
//
//   auto [out, idx] = ember::fractional_max_pool2d(x, {2, 2}, {5, 5}, samples);  // samples [N, C, 2]
//
// Indices are flat within each plane (h * W + w), as PyTorch's.
#pragma once

#include <tuple>

#include "ember/tensor.h"

namespace ember {

std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& self, IntArrayRef kernel_size,
                                                 IntArrayRef output_size, const Tensor& random_samples);
std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& self, IntArrayRef kernel_size,
                                                 IntArrayRef output_size, const Tensor& random_samples);
Tensor fractional_max_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                      IntArrayRef output_size, const Tensor& indices);
Tensor fractional_max_pool3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                      IntArrayRef output_size, const Tensor& indices);

}  // namespace ember
