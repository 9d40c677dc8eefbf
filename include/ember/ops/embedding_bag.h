// aten::_embedding_bag (Core ATen; sums, means or maxima of embedding rows per bag, with its
// backward ops) and the composites aten::embedding_bag / embedding_bag.padding_idx.
//
//   auto [out, offset2bag, bag_size, max_indices] =
//       ember::_embedding_bag(weight, indices, offsets, false, /*mode=*/0);
#pragma once

#include <optional>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

/// mode: 0 sum, 1 mean, 2 max. indices and offsets 1-d (int32 or int64, the same). Returns
/// (output [bags, dim], offset2bag [indices], bag_size [bags], max_indices).
std::tuple<Tensor, Tensor, Tensor, Tensor> _embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets,
    bool scale_grad_by_freq = false, int64_t mode = 0, bool sparse = false,
    const std::optional<Tensor>& per_sample_weights = std::nullopt,
    bool include_last_offset = false, int64_t padding_idx = -1);
std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets,
    bool scale_grad_by_freq = false, int64_t mode = 0, bool sparse = false,
    const std::optional<Tensor>& per_sample_weights = std::nullopt,
    bool include_last_offset = false);
std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
    int64_t mode, bool sparse, const std::optional<Tensor>& per_sample_weights,
    bool include_last_offset, std::optional<int64_t> padding_idx);
Tensor _embedding_bag_dense_backward(const Tensor& grad, const Tensor& indices,
                                     const Tensor& offset2bag, const Tensor& bag_size,
                                     const Tensor& maximum_indices, int64_t num_weights,
                                     bool scale_grad_by_freq, int64_t mode,
                                     const std::optional<Tensor>& per_sample_weights,
                                     int64_t padding_idx = -1);
Tensor _embedding_bag_per_sample_weights_backward(const Tensor& grad, const Tensor& weight,
                                                  const Tensor& indices, const Tensor& offsets,
                                                  const Tensor& offset2bag, int64_t mode,
                                                  int64_t padding_idx = -1);

}  // namespace ember
