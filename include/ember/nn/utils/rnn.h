// torch.nn.utils.rnn in C++: PackedSequence and the functions that make and undo it
// (PyTorch's _pack_padded_sequence / _pad_packed_sequence / pad_sequence kernels).
//
//   auto packed = nn::utils::rnn::pack_padded_sequence(x, lengths, /*batch_first=*/false,
//                                                      /*enforce_sorted=*/false);
//   auto [out, h] = lstm->forward_packed(packed);
//   auto [padded, lens] = nn::utils::rnn::pad_packed_sequence(out_packed);
#pragma once

#include <optional>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn::utils::rnn {

/// data [sum(lengths), *]: the time steps' rows one after another; batch_sizes (int64, CPU) the
/// number of sequences at each step; sorted_indices / unsorted_indices the permutation from
/// the caller's batch order to the length-sorted one and back (undefined when sorted).
struct PackedSequence {
  Tensor data;
  Tensor batch_sizes;
  Tensor sorted_indices;
  Tensor unsorted_indices;
};

/// input [T, B, *] (or [B, T, *] with batch_first); lengths per sequence. With enforce_sorted
/// the lengths must be decreasing (PyTorch's error otherwise); else they are sorted here.
PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths,
                                    bool batch_first = false, bool enforce_sorted = true);
/// (padded [T, B, *] or [B, T, *], lengths int64). total_length pads T further.
std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence,
                                               bool batch_first = false,
                                               double padding_value = 0.0,
                                               std::optional<int64_t> total_length = std::nullopt);
/// Stacks variable-length [L_i, *] tensors into [max L, B, *] (or [B, max L, *]).
Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first = false,
                    double padding_value = 0.0);
PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted = true);

/// The raw kernels: (data, batch_sizes) from sorted input, and its inverse.
std::tuple<Tensor, Tensor> _pack_padded_sequence(const Tensor& input, const Tensor& lengths,
                                                 bool batch_first);
std::tuple<Tensor, Tensor> _pad_packed_sequence(const Tensor& data, const Tensor& batch_sizes,
                                                bool batch_first, double padding_value,
                                                int64_t total_length);

}  // namespace ember::nn::utils::rnn
