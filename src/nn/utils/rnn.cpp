// torch.nn.utils.rnn: PyTorch's packing kernels (aten/src/ATen/native/PackedSequence.cpp) and the
// Python wrappers around them (torch/nn/utils/rnn.py), written with Tensor ops so that autograd
// records through packing and unpacking.
#include "ember/nn/utils/rnn.h"

#include <algorithm>

#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/pooling.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"

namespace ember::nn::utils::rnn {

namespace {

// The int64 CPU values of a 1-d tensor.
std::vector<int64_t> int_values(const Tensor& t) {
  const Tensor c = t.to(kInt64).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

Tensor int_tensor(const std::vector<int64_t>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, TensorOptions(kInt64));
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t;
}

// _packed_sequence_init's unsorted_indices: the inverse permutation.
Tensor invert_permutation(const Tensor& perm) {
  const std::vector<int64_t> p = int_values(perm);
  std::vector<int64_t> inv(p.size());
  for (size_t i = 0; i < p.size(); ++i) inv[p[i]] = static_cast<int64_t>(i);
  return int_tensor(inv).to(perm.device());
}

// A tensor of `sizes` but with dim 0 = n, filled with `value`, like `like`.
Tensor pad_rows(const Tensor& like, int64_t n, double value) {
  std::vector<int64_t> s = like.sizes().vec();
  s[0] = n;
  return full(s, value, TensorOptions(like.dtype()).device(like.device()));
}

}  // namespace

std::tuple<Tensor, Tensor> _pack_padded_sequence(const Tensor& input_in, const Tensor& lengths_t,
                                                 bool batch_first) {
  const Tensor input = batch_first ? input_in.transpose(0, 1) : input_in;
  EMBER_CHECK(lengths_t.device().is_cpu() && lengths_t.dim() == 1 && lengths_t.dtype() == kInt64,
              "'lengths' argument should be a 1D CPU int64 tensor, but got ", lengths_t.dim(),
              "D ", lengths_t.device().str(), " ", scalar_type_name(lengths_t.dtype()), " tensor");
  EMBER_CHECK(input.numel() > 0, "Cannot pack empty tensors.");
  const int64_t batch_size = input.size(1);
  const std::vector<int64_t> lengths = int_values(lengths_t);
  EMBER_CHECK(static_cast<int64_t>(lengths.size()) == batch_size,
              "Expected `len(lengths)` to be equal to batch_size, but got ", lengths.size(),
              " (batch_size=", batch_size, ")");
  EMBER_CHECK(lengths[batch_size - 1] > 0,
              "Length of all samples has to be greater than 0, but found an element in "
              "'lengths' that is <= 0");
  for (int64_t i = 0; i + 1 < batch_size; ++i) {
    EMBER_CHECK(lengths[batch_size - 1 - i] <= lengths[batch_size - 2 - i],
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability.");
  }
  EMBER_CHECK(lengths[0] <= input.size(0), "Expected the longest sequence (", lengths[0],
              ") to fit in the input's ", input.size(0), " time steps");
  std::vector<Tensor> steps;
  std::vector<int64_t> batch_sizes;
  for (int64_t t = 0; t < lengths[0]; ++t) {
    int64_t b = 0;
    while (b < batch_size && lengths[b] > t) ++b;
    batch_sizes.push_back(b);
    steps.push_back(input.select(0, t).narrow(0, 0, b));
  }
  return {cat(steps, 0), int_tensor(batch_sizes)};
}

std::tuple<Tensor, Tensor> _pad_packed_sequence(const Tensor& data, const Tensor& batch_sizes_t,
                                                bool batch_first, double padding_value,
                                                int64_t total_length) {
  const std::vector<int64_t> bs = int_values(batch_sizes_t);
  const int64_t T = static_cast<int64_t>(bs.size());
  EMBER_CHECK(T > 0, "_pad_packed_sequence: batch_sizes is empty");
  const int64_t B = bs[0];
  const int64_t steps = std::max(T, total_length);
  std::vector<Tensor> rows;
  std::vector<int64_t> lengths(B, 0);
  int64_t off = 0;
  for (int64_t t = 0; t < steps; ++t) {
    const int64_t b = t < T ? bs[t] : 0;
    Tensor step = data.narrow(0, off, b);
    if (b < B) step = cat({step, pad_rows(data, B - b, padding_value)}, 0);
    rows.push_back(step);
    for (int64_t i = 0; i < b; ++i) lengths[i] = t + 1;
    off += b;
  }
  Tensor padded = stack(rows, batch_first ? 1 : 0);
  return {padded, int_tensor(lengths)};
}

PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths_in,
                                    bool batch_first, bool enforce_sorted) {
  Tensor lengths = lengths_in.to(kInt64).to(Device(kCPU));
  Tensor sorted_indices, x = input;
  if (!enforce_sorted) {
    auto [values, indices] = sort(lengths, std::nullopt, -1, /*descending=*/true);
    lengths = values;
    sorted_indices = indices.to(input.device());
    x = index_select(input, batch_first ? 0 : 1, sorted_indices);
  }
  auto [data, batch_sizes] = _pack_padded_sequence(x, lengths, batch_first);
  PackedSequence p{data, batch_sizes, sorted_indices, Tensor()};
  if (sorted_indices.defined()) p.unsorted_indices = invert_permutation(sorted_indices);
  return p;
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first,
                                               double padding_value,
                                               std::optional<int64_t> total_length) {
  const int64_t max_seq_length = sequence.batch_sizes.size(0);
  if (total_length) {
    EMBER_CHECK_VALUE(*total_length >= max_seq_length,
                      "Expected total_length to be at least the length of the longest sequence "
                      "in input, but got total_length=", *total_length,
                      " and max sequence length being ", max_seq_length);
  }
  auto [padded, lengths] = _pad_packed_sequence(sequence.data, sequence.batch_sizes, batch_first,
                                                padding_value, total_length.value_or(max_seq_length));
  if (sequence.unsorted_indices.defined()) {
    const int64_t batch_dim = batch_first ? 0 : 1;
    return {index_select(padded, batch_dim, sequence.unsorted_indices),
            index_select(lengths, 0, sequence.unsorted_indices.to(Device(kCPU)))};
  }
  return {padded, lengths};
}

Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value) {
  EMBER_CHECK(!sequences.empty(), "received an empty list of sequences");
  int64_t max_len = 0;
  for (const auto& s : sequences) max_len = std::max(max_len, s.size(0));
  std::vector<Tensor> padded;
  for (const auto& s : sequences) {
    padded.push_back(s.size(0) < max_len
                         ? cat({s, pad_rows(s, max_len - s.size(0), padding_value)}, 0)
                         : s);
  }
  return stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const auto& s : sequences) lengths.push_back(s.size(0));
  return pack_padded_sequence(pad_sequence(sequences), int_tensor(lengths), false, enforce_sorted);
}

}  // namespace ember::nn::utils::rnn
