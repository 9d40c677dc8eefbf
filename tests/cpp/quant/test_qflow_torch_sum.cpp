// quantization::detail::torch_float_sum (Note [torch's float sum] in src/quantization/torch_sum.h)
// against a double-precision reference: the same value to float rounding for every length
// (tails, a single cascade level, several levels). Its bits against torch.sum are checked in
// tests/python/quantization/test_custom_quantization.py (HistogramObserver qparams).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "../../../src/quantization/torch_sum.h"

namespace ember {
namespace {

TEST(QflowTorchSum, AgreesWithDoubleSum) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(0.f, 3.f);
  for (int64_t n : {0, 1, 7, 8, 31, 32, 33, 100, 513, 2048, 4099, 70000}) {
    std::vector<float> x(static_cast<size_t>(n));
    double want = 0;
    for (auto& v : x) {
      v = dist(rng);
      want += v;
    }
    const float got = quantization::detail::torch_float_sum(x.data(), n);
    EXPECT_NEAR(got, want, 1e-5 * std::max(1.0, want)) << n;
  }
}

TEST(QflowTorchSum, OrderIsTorchsNotSequential) {
  // 1e8 then many 1s: a sequential float sum loses every 1; torch's cascade keeps most of them
  std::vector<float> x(4096, 1.f);
  x[0] = 1e8f;
  float sequential = 0.f;
  for (float v : x) sequential += v;
  EXPECT_EQ(sequential, 1e8f);
  EXPECT_GT(quantization::detail::torch_float_sum(x.data(), 4096), 1e8f);
}

}  // namespace
}  // namespace ember
