// Segmented reductions (torch.segment_reduce): data reduced along `axis` over consecutive
// segments given by their lengths or offsets ("sum", "mean", "max", "min", "prod").
//
//   auto out = ember::segment_reduce(data, "max", /*lengths=*/lengths);  // [segments]
#pragma once

#include <optional>
#include <string>

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

Tensor segment_reduce(const Tensor& data, const std::string& reduce,
                      const std::optional<Tensor>& lengths = std::nullopt,
                      const std::optional<Tensor>& indices = std::nullopt,
                      const std::optional<Tensor>& offsets = std::nullopt, int64_t axis = 0, bool unsafe = false,
                      const std::optional<Scalar>& initial = std::nullopt);
/// The gradient of data (PyTorch: not differentiable itself).
Tensor _segment_reduce_backward(const Tensor& grad, const Tensor& output, const Tensor& data,
                                const std::string& reduce, const std::optional<Tensor>& lengths = std::nullopt,
                                const std::optional<Tensor>& offsets = std::nullopt, int64_t axis = 0,
                                const std::optional<Scalar>& initial = std::nullopt);

}  // namespace ember
