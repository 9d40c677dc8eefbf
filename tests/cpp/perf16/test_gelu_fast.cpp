// The vectorized float GELU and its backward (Note [GELU's erf] in vec_math.h) against the
// std::erf references: a sweep over the range where GELU is neither 0 nor x, odd lengths (vector
// lanes plus a scalar tail), the special values, and strided tensors through the kernels.
#include <cmath>
#include <limits>
#include <vector>

#include "backends/cpu/activation_kernels.h"
#include "backends/cpu/vec_math.h"
#include "ember/ops/factory.h"
#include "testing.h"

namespace ember::cpu {
namespace {

// The documented tolerance: erf's 1.5e-7 absolute error scaled by x / 2, plus float rounding.
float gelu_tol(float x, float ref) { return 3e-7f * std::abs(x) + 2e-7f * std::abs(ref) + 1e-30f; }

std::vector<float> sweep(float lo, float hi, int n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[i] = lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(n - 1);
  return v;
}

TEST(Perf16Gelu, FastMatchesRefOverItsRange) {
  for (int n : {2, 7, 9, 1001, 200003}) {
    std::vector<float> x = sweep(-12.0f, 12.0f, n);
    std::vector<float> y(x.size()), dy(x.size()), g(x.size()), gx(x.size());
    for (size_t i = 0; i < x.size(); ++i) g[i] = 0.5f + static_cast<float>(i % 7) * 0.25f;
    gelu_fast_array(y.data(), x.data(), n);
    gelu_backward_fast_array(gx.data(), g.data(), x.data(), n);
    for (size_t i = 0; i < x.size(); ++i) {
      const float ref = gelu_ref(x[i]);
      ASSERT_NEAR(y[i], ref, gelu_tol(x[i], ref)) << "x = " << x[i] << " n = " << n;
      // Vector lanes and the scalar form agree within the same bound (this file may be built
      // without the library's FMA contraction, and erf's cancellation scales its roundings).
      ASSERT_NEAR(y[i], gelu_fast(x[i]), gelu_tol(x[i], ref));
      const float bref = gelu_backward_ref(g[i], x[i]);
      ASSERT_NEAR(gx[i], bref, 4e-7f * std::abs(g[i]) * (1.0f + std::abs(x[i])))
          << "x = " << x[i] << " n = " << n;
    }
  }
}

TEST(Perf16Gelu, SpecialValues) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = INFINITY;
  std::vector<float> x = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-4f, -1e-4f, 20.0f, -20.0f, 1e30f,
                          -1e30f, inf, nan, 3.0f, -3.0f, 0.5f};
  std::vector<float> y(x.size()), g(x.size(), 1.0f), gx(x.size());
  gelu_fast_array(y.data(), x.data(), static_cast<int64_t>(x.size()));
  gelu_backward_fast_array(gx.data(), g.data(), x.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const float ref = gelu_ref(x[i]), bref = gelu_backward_ref(1.0f, x[i]);
    if (std::isnan(ref)) {
      EXPECT_TRUE(std::isnan(y[i])) << "x = " << x[i];
    } else if (std::isinf(ref)) {
      EXPECT_EQ(y[i], ref) << "x = " << x[i];
    } else {
      EXPECT_NEAR(y[i], ref, gelu_tol(x[i], ref)) << "x = " << x[i];
    }
    if (std::isnan(bref)) {
      EXPECT_TRUE(std::isnan(gx[i])) << "x = " << x[i];
    } else {
      EXPECT_NEAR(gx[i], bref, 4e-7f) << "x = " << x[i];
    }
  }
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[10], inf);
  EXPECT_EQ(y[7], -0.0f);  // -20: the cdf is exactly 0 in float
}

TEST(Perf16Gelu, StridedTensorsThroughTheKernels) {
  // A transposed [37, 5] view: every run is strided, so the scalar form runs.
  Tensor base = randn({5, 37});
  Tensor x = base.t();
  Tensor out = empty({37, 5});
  activation_kernel(ActivationOp::GeluErf, out, x);
  Tensor g = randn({37, 5});
  Tensor gx = empty({37, 5});
  gelu_backward_kernel(gx, g, x, /*tanh=*/false);
  for (int64_t i = 0; i < 37; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      const float v = x[i][j].item<float>(), dy = g[i][j].item<float>();
      EXPECT_NEAR(out[i][j].item<float>(), gelu_ref(v), gelu_tol(v, gelu_ref(v)));
      EXPECT_NEAR(gx[i][j].item<float>(), gelu_backward_ref(dy, v),
                  4e-7f * std::abs(dy) * (1.0f + std::abs(v)));
    }
  }
}

}  // namespace
}  // namespace ember::cpu
