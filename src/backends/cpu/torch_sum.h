// PyTorch 1.13's float32 sum of a contiguous run, to the bit.
//
// Note [torch's float sum]
// torch.sum over a contiguous float32 row (cascade_sum in aten/src/ATen/native/cpu/SumKernel.cpp)
// takes one of two paths. A row of at least 8 floats goes through vectorized_inner_sum: it adds
// 8-float vectors (Debian's torch 1.13 runs its AVX2 kernels: "CPU capability usage: AVX2") in
// four interleaved rows whose partial sums cascade through four levels of accumulators, folds
// the rows, adds the scalar tail to 0 and then the eight lanes in order. A shorter row goes
// through scalar_inner_sum: the same four interleaved rows with one float each, the tail added
// to row 0, then rows 1-3 folded in. Either way the result is added to the zero-filled output.
// Every float sum that decides a result torch users compare bit for bit takes this order:
// the HistogramObserver's L2 search compares the quantization errors of candidate ranges
// (`norm.sum()`, `torch.sum(histogram)`), and a calibration observes `mean` outputs (the
// pooled features before a classifier), so ember's float32 sum and mean over contiguous runs
// use it too (reduce_kernels.cpp). The lanes are GCC vector extensions: each lane's additions
// are the same IEEE operations as torch's AVX2 lanes, on any target.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

namespace ember::cpu::torch_order {

// One accumulator "vector" of torch's row sums: 8 float lanes, or 1 for the scalar path.
template <int W>
struct Lanes {
  typedef float V __attribute__((vector_size(W * sizeof(float))));
  V v;
  static Lanes zero() { return Lanes{V{}}; }
  static Lanes load(const float* p) {
    Lanes l;
    std::memcpy(&l.v, p, sizeof(V));
    return l;
  }
  void add(const Lanes& o) { v += o.v; }
};
template <>
struct Lanes<1> {
  float v;
  static Lanes zero() { return Lanes{0.f}; }
  static Lanes load(const float* p) { return Lanes{*p}; }
  void add(const Lanes& o) { v += o.v; }
};

// multi_row_sum<Vec, 4>: `rows` rows of 4 consecutive W-float groups each.
template <int W>
std::array<Lanes<W>, 4> multi_row_sum(const float* data, int64_t rows_in) {
  constexpr size_t num_levels = 4, nrows = 4;
  const auto rows = static_cast<uint64_t>(std::max<int64_t>(rows_in, 0));
  const uint64_t ceil_log2 = rows <= 2 ? 1 : std::bit_width(rows - 1);
  const uint64_t level_power = std::max<uint64_t>(4, ceil_log2 / num_levels);
  const uint64_t level_step = uint64_t{1} << level_power, level_mask = level_step - 1;
  const Lanes<W> zero = Lanes<W>::zero();
  std::array<std::array<Lanes<W>, nrows>, num_levels> acc;
  for (auto& level : acc) level.fill(zero);
  const float* row = data;
  auto add_row = [&] {
    for (size_t k = 0; k < nrows; ++k) acc[0][k].add(Lanes<W>::load(row + k * W));
    row += nrows * W;
  };
  uint64_t i = 0;
  while (i + level_step <= rows) {
    for (uint64_t j = 0; j < level_step; ++j, ++i) add_row();
    for (size_t j = 1; j < num_levels; ++j) {
      for (size_t k = 0; k < nrows; ++k) {
        acc[j][k].add(acc[j - 1][k]);
        acc[j - 1][k] = zero;
      }
      if ((i & (level_mask << (j * level_power))) != 0) break;
    }
  }
  for (; i < rows; ++i) add_row();
  for (size_t j = 1; j < num_levels; ++j) {
    for (size_t k = 0; k < nrows; ++k) acc[0][k].add(acc[j][k]);
  }
  return acc[0];
}

// row_sum<Vec>: 4-way interleaved groups, the leftover groups into row 0, rows folded.
template <int W>
Lanes<W> row_sum(const float* data, int64_t groups) {
  const int64_t size_ilp = groups / 4;
  auto partial = multi_row_sum<W>(data, size_ilp);
  for (int64_t i = size_ilp * 4; i < groups; ++i) {
    partial[0].add(Lanes<W>::load(data + static_cast<size_t>(i) * W));
  }
  for (size_t k = 1; k < 4; ++k) partial[0].add(partial[k]);
  return partial[0];
}

/// torch.sum(t) for a contiguous float32 run of n elements (Note [torch's float sum]).
inline float float_sum(const float* data, int64_t n) {
  constexpr int64_t kVec = 8;
  if (n < kVec) return 0.f + row_sum<1>(data, n).v;  // scalar_inner_sum
  const int64_t vec_size = n / kVec;
  const Lanes<8> partial = row_sum<8>(data, vec_size);
  float acc = 0.f;
  for (int64_t k = vec_size * kVec; k < n; ++k) acc += data[k];
  for (int l = 0; l < 8; ++l) acc += partial.v[l];
  return 0.f + acc;
}

}  // namespace ember::cpu::torch_order
