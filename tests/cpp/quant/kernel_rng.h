// The seeded random codes, scales and sizes of the int8 kernel tests (fast == reference).
#pragma once

#include <cstdint>
#include <random>

namespace ember::cpu::quantized::kernel_test {

struct Rng {
  std::mt19937 gen;
  explicit Rng(uint32_t seed) : gen(seed) {}
  /// A uniform integer in [lo, hi].
  int64_t i(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); }
  /// A uniform double in [lo, hi).
  double u(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen); }
};

}  // namespace ember::cpu::quantized::kernel_test
