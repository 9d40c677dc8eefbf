// PyTorch 1.13's float32 sum of a contiguous run, to the bit.
//
// Note [torch's float sum]
// torch.sum over a contiguous float32 row (cascade_sum's vectorized_inner_sum in
// aten/src/ATen/native/cpu/SumKernel.cpp) adds 8-float vectors (Debian's torch 1.13 runs its
// AVX2 kernels: "CPU capability usage: AVX2") in four interleaved rows whose partial sums
// cascade through four levels of accumulators, then folds the rows, adds the scalar tail to 0
// and then the eight lanes in order. Where a float sum decides a result, as the
// HistogramObserver's L2 search does when it compares the quantization errors of candidate
// ranges (`norm.sum()`, `torch.sum(histogram)`), only this order gives torch's choice.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

namespace ember::quantization::detail {

using TorchVec = std::array<float, 8>;

inline TorchVec torch_vec_load(const float* p) {
  TorchVec v;
  std::copy(p, p + 8, v.begin());
  return v;
}
inline void torch_vec_add(TorchVec& a, const TorchVec& b) {
  for (size_t l = 0; l < 8; ++l) a[l] += b[l];
}

// multi_row_sum<Vectorized<float>, 4>: rows of 4 vectors (32 floats), `size` rows.
inline std::array<TorchVec, 4> torch_multi_row_sum(const float* data, int64_t size) {
  constexpr size_t num_levels = 4, nrows = 4;
  const auto rows = static_cast<uint64_t>(std::max<int64_t>(size, 0));
  const uint64_t ceil_log2 = rows <= 2 ? 1 : std::bit_width(rows - 1);
  const uint64_t level_power = std::max<uint64_t>(4, ceil_log2 / num_levels);
  const uint64_t level_step = uint64_t{1} << level_power, level_mask = level_step - 1;
  TorchVec zero{};
  std::array<std::array<TorchVec, nrows>, num_levels> acc;
  for (auto& level : acc) level.fill(zero);
  const float* row = data;  // row i: floats [32 i, 32 i + 32), four vectors
  auto add_row = [&] {
    for (size_t k = 0; k < nrows; ++k) torch_vec_add(acc[0][k], torch_vec_load(row + k * 8));
    row += nrows * 8;
  };
  uint64_t i = 0;
  while (i + level_step <= rows) {
    for (uint64_t j = 0; j < level_step; ++j, ++i) add_row();
    for (size_t j = 1; j < num_levels; ++j) {
      for (size_t k = 0; k < nrows; ++k) {
        torch_vec_add(acc[j][k], acc[j - 1][k]);
        acc[j - 1][k] = zero;
      }
      if ((i & (level_mask << (j * level_power))) != 0) break;
    }
  }
  for (; i < rows; ++i) add_row();
  for (size_t j = 1; j < num_levels; ++j) {
    for (size_t k = 0; k < nrows; ++k) torch_vec_add(acc[0][k], acc[j][k]);
  }
  return acc[0];
}

/// torch.sum(t) for a contiguous float32 t of n elements (Note [torch's float sum]).
inline float torch_float_sum(const float* data, int64_t n) {
  const int64_t vec_size = n / 8;
  // row_sum<Vectorized<float>>: 4-way interleaved, then the leftover vectors into row 0
  const int64_t size_ilp = vec_size / 4;
  auto partial = torch_multi_row_sum(data, size_ilp);
  for (int64_t i = size_ilp * 4; i < vec_size; ++i) {
    torch_vec_add(partial[0], torch_vec_load(data + static_cast<size_t>(i) * 8));
  }
  for (int64_t k = 1; k < 4; ++k) torch_vec_add(partial[0], partial[k]);
  float acc = 0.f;
  for (int64_t k = vec_size * 8; k < n; ++k) acc += data[k];
  for (float lane : partial[0]) acc += lane;
  return 0.f + acc;  // the output starts at 0 and the sum is added to it
}

}  // namespace ember::quantization::detail
