// PyTorch 1.13's row-wise quantized embedding-bag ops on packed uint8 tensors (no quantized
// tensor involved): each row of a float table is quantized with its own scale and bias
// (min), stored after the row's codes (8-bit: float32 scale and bias, 8 bytes; 4-bit: two codes
// per byte, then float16 scale and bias, 4 bytes).
//
//   Tensor packed = ember::quantized::embedding_bag_byte_prepack(table);    // [N, D + 8] uint8
//   Tensor bags = ember::quantized::embedding_bag_byte_rowwise_offsets(packed, indices, offsets);
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember::quantized {

/// weight: float32 / float16 [..., D] -> uint8 [..., D + 8]: codes rint((x - min) * 255 /
/// (max - min + 1e-8)), then scale (max - min) / 255 and bias min as float32.
Tensor embedding_bag_byte_prepack(const Tensor& weight);
/// uint8 [..., D + 8] -> float32 [..., D]: code * scale + bias.
Tensor embedding_bag_byte_unpack(const Tensor& weight);
/// weight: float32 / float16 [N, D] (D even) -> uint8 [N, D / 2 + 4]; with optimized_qparams
/// the row's range comes from aten::choose_qparams_optimized(row, D, nbins, ratio, 4), called
/// through the op table (RuntimeError when the build has no such op).
Tensor embedding_bag_4bit_prepack(const Tensor& weight, bool optimized_qparams = false,
                                  int64_t nbins = 200, double ratio = 0.16);
/// uint8 [N, D / 2 + 4] -> float32 [N, D].
Tensor embedding_bag_4bit_unpack(const Tensor& weight);
/// Sums of the dequantized rows of each bag (mode and scale_grad_by_freq are ignored, as in
/// PyTorch: always sums), optionally weighted per sample; 2-d indices without offsets are bags
/// of fixed length. Output float32 [bags, D].
Tensor embedding_bag_byte_rowwise_offsets(
    const Tensor& weight, const Tensor& indices, const std::optional<Tensor>& offsets = std::nullopt,
    bool scale_grad_by_freq = false, int64_t mode = 0, bool pruned_weights = false,
    const std::optional<Tensor>& per_sample_weights = std::nullopt,
    const std::optional<Tensor>& compressed_indices_mapping = std::nullopt,
    bool include_last_offset = false);
Tensor embedding_bag_4bit_rowwise_offsets(
    const Tensor& weight, const Tensor& indices, const std::optional<Tensor>& offsets = std::nullopt,
    bool scale_grad_by_freq = false, int64_t mode = 0, bool pruned_weights = false,
    const std::optional<Tensor>& per_sample_weights = std::nullopt,
    const std::optional<Tensor>& compressed_indices_mapping = std::nullopt,
    bool include_last_offset = false);

}  // namespace ember::quantized
