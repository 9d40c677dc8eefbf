// The train / test split the digits examples share (digits, digits_cnn): pixels scaled to
// [0, 1], rows split 80/20 by a seeded permutation — Fisher-Yates over std::mt19937_64 (the rows
// come grouped by writer, so the file's last 20% would test on unseen writers only).
//
//   std::mt19937_64 rng(0);
//   examples::DigitsSplit s = examples::split_digits(data, rng);   // 1438 train, 359 test
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "digits_data.h"
#include "ember/ember.h"

namespace examples {

/// Fisher-Yates with the engine's raw output: std::mt19937_64's sequence is fixed by the
/// standard (std::shuffle and the distributions are not), so every platform gets this order.
inline void shuffle(std::vector<int64_t>& v, std::mt19937_64& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
}

/// An int64 tensor holding a copy of data[0, n).
inline ember::Tensor index_tensor(const int64_t* data, int64_t n) {
  return ember::from_blob(const_cast<int64_t*>(data), {n}, ember::kInt64).clone();
}

struct DigitsSplit {
  ember::Tensor x_train, y_train, x_test, y_test;  // x: [n, 64] float32 in [0, 1]; y: [n] int64
};

/// Scales the pixels to [0, 1] and splits the rows 80/20 (rounded) after shuffling an identity
/// permutation with `rng`.
inline DigitsSplit split_digits(const DigitsData& data, std::mt19937_64& rng) {
  const int64_t n = data.rows;
  ember::Tensor x_all = ember::from_blob(const_cast<float*>(data.pixels.data()),
                                         {n, kDigitsPixels}, ember::kFloat32) / 16.0;
  ember::Tensor y_all = index_tensor(data.labels.data(), n);
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  shuffle(order, rng);
  const int64_t n_train = (n * 8 + 5) / 10;
  ember::Tensor train_idx = index_tensor(order.data(), n_train);
  ember::Tensor test_idx = index_tensor(order.data() + n_train, n - n_train);
  return {x_all.index_select(0, train_idx), y_all.index_select(0, train_idx),
          x_all.index_select(0, test_idx), y_all.index_select(0, test_idx)};
}

}  // namespace examples
