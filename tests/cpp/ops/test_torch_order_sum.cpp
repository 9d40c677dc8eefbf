// cpu::torch_order::float_sum (Note [torch's float sum] in src/backends/cpu/torch_sum.h) against
// a double-precision reference for every length (scalar rows, tails, one and several cascade
// levels), its order on inputs where the order shows, and ember's float32 sum / mean over
// contiguous runs taking it. Its bits against torch.sum are checked in
// tests/python/core/test_torch_order_sum.py and through the HistogramObserver's qparams.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "backends/cpu/torch_sum.h"
#include "ember/ember.h"

namespace ember {
namespace {

using cpu::torch_order::float_sum;

TEST(TorchOrderSum, AgreesWithDoubleSum) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(0.f, 3.f);
  for (int64_t n : {0, 1, 3, 5, 7, 8, 31, 32, 33, 100, 513, 2048, 4099, 70000}) {
    std::vector<float> x(static_cast<size_t>(n));
    double want = 0;
    for (auto& v : x) {
      v = dist(rng);
      want += v;
    }
    EXPECT_NEAR(float_sum(x.data(), n), want, 1e-5 * std::max(1.0, want)) << n;
  }
}

TEST(TorchOrderSum, OrderIsTorchsNotSequential) {
  // 1e8 then many 1s: a sequential float sum loses every 1; torch's cascade keeps most of them
  std::vector<float> x(4096, 1.f);
  x[0] = 1e8f;
  float sequential = 0.f;
  for (float v : x) sequential += v;
  EXPECT_EQ(sequential, 1e8f);
  EXPECT_GT(float_sum(x.data(), 4096), 1e8f);
  // Under 8 floats torch's scalar path interleaves four rows: (((1 + 1) + 1e8) - 1e8) + 1 = 1,
  // where a sequential sum gives 2 (torch.tensor([1, 1e8, -1e8, 1, 1]).sum() is 1).
  const float five[] = {1.f, 1e8f, -1e8f, 1.f, 1.f};
  EXPECT_EQ(float_sum(five, 5), 1.f);
}

TEST(TorchOrderSum, SumAndMeanOverContiguousRunsTakeIt) {
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.f, 1.f);
  for (int64_t n : {5, 49, 300, 1000}) {
    Tensor x = empty({6, 3, n});
    float* p = x.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i) p[i] = dist(rng) * std::pow(10.f, float(i % 7) - 3.f);
    const Tensor s = x.sum({-1}), m = x.mean({-1});
    for (int64_t o = 0; o < 18; ++o) {
      const float want = float_sum(p + o * n, n);
      EXPECT_EQ(s.data_ptr<float>()[o], want) << n << " " << o;
      EXPECT_EQ(m.data_ptr<float>()[o], want / float(n)) << n << " " << o;
    }
    // A transposed view reduced over its contiguous dim walks the same runs.
    const Tensor st = x.transpose(0, 1).sum({-1});
    EXPECT_TRUE(ember::equal(st.transpose(0, 1).contiguous(), s)) << n;
  }
}

}  // namespace
}  // namespace ember
