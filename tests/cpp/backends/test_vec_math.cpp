// The vectorized float exp / sigmoid / silu against their std:: references: a sweep over the
// whole useful range (ulp error), the edges (overflow, subnormals, underflow) and special values,
// and agreement between the vector lanes, the scalar form and strided tensor runs. (The library
// is built with FMA where the tests may not be, so forms agree to an ulp, not always in bits.)
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "backends/cpu/vec_math.h"
#include "testing.h"

namespace ember::cpu {
namespace {

// Distance in representable floats between a float result and the exact (double) value.
double ulp_error(float got, double exact) {
  if (std::isinf(exact) || exact > std::numeric_limits<float>::max()) {
    return std::isinf(got) ? 0 : 1e9;
  }
  const float e = static_cast<float>(exact);
  const double ulp = std::max(static_cast<double>(std::nextafter(std::abs(e), INFINITY)) - std::abs(e),
                              static_cast<double>(std::numeric_limits<float>::denorm_min()));
  return std::abs(static_cast<double>(got) - exact) / ulp;
}

std::vector<float> sweep(float lo, float hi, int n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[i] = lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(n - 1);
  return v;
}

TEST(VecMath, ExpWithinTwoUlpOverItsRange) {
  std::vector<float> x = sweep(-103.0f, 88.7f, 1000003);
  std::vector<float> y(x.size());
  exp_fast_array(y.data(), x.data(), static_cast<int64_t>(x.size()));
  double worst = 0;
  float worst_x = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double err = ulp_error(y[i], std::exp(static_cast<double>(x[i])));
    if (err > worst) {
      worst = err;
      worst_x = x[i];
    }
  }
  EXPECT_LE(worst, 2.0) << "at x = " << worst_x;
}

TEST(VecMath, ExpEdgesAndSpecialValues) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = INFINITY;
  std::vector<float> x = {0.0f, -0.0f, 1.0f, -1.0f, 88.72283172607421875f, 88.72283935546875f, 89.0f,
                          100.0f, 1e30f, inf, -87.3f, -100.0f, -103.2789f, -103.9f, -104.0f, -150.0f,
                          -1e30f, -inf, nan, -nan, 1e-30f, -1e-30f};
  std::vector<float> y(x.size());
  exp_fast_array(y.data(), x.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const float ref = exp_ref(x[i]);
    if (std::isnan(ref)) {
      EXPECT_TRUE(std::isnan(y[i])) << "x = " << x[i];
    } else if (std::isinf(ref) || ref == 0) {
      EXPECT_EQ(y[i], ref) << "x = " << x[i];
    } else {
      EXPECT_LE(ulp_error(y[i], std::exp(static_cast<double>(x[i]))), 2.0) << "x = " << x[i];
    }
    // The scalar form (used for tails and strided runs) agrees with the lanes.
    const float s = exp_fast(x[i]);
    if (std::isnan(ref)) {
      EXPECT_TRUE(std::isnan(s));
    } else {
      EXPECT_LE(ulp_error(s, y[i]), 1.0) << "x = " << x[i];
    }
  }
}

TEST(VecMath, SigmoidAndSilu) {
  std::vector<float> x = sweep(-30.0f, 30.0f, 20011);
  x.push_back(-200.0f);
  x.push_back(200.0f);
  x.push_back(INFINITY);
  x.push_back(-INFINITY);
  std::vector<float> s(x.size()), t(x.size());
  sigmoid_fast_array(s.data(), x.data(), static_cast<int64_t>(x.size()));
  silu_fast_array(t.data(), x.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const double xd = x[i];
    EXPECT_NEAR(s[i], 1 / (1 + std::exp(-xd)), 4e-7 * (1 / (1 + std::exp(-xd))) + 1e-30) << "x = " << x[i];
    if (std::isfinite(x[i])) {
      const double silu = xd / (1 + std::exp(-xd));
      EXPECT_NEAR(t[i], silu, 4e-7 * std::abs(silu) + 1e-30) << "x = " << x[i];
    }
  }
  EXPECT_EQ(sigmoid_fast(-INFINITY), 0.0f);
  EXPECT_EQ(sigmoid_fast(INFINITY), 1.0f);
  EXPECT_TRUE(std::isnan(sigmoid_fast(NAN)));
  EXPECT_EQ(silu_fast(INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(silu_fast(-INFINITY)));  // -inf / inf, as x / (1 + exp(-x)) gives
  EXPECT_TRUE(std::isnan(silu_ref(-INFINITY)));
}

TEST(VecMath, TensorRunsAgreeAcrossLayouts) {
  // Contiguous (vector lanes + tail), transposed and broadcast runs agree to an ulp.
  Tensor x = empty({37, 29});
  float* p = x.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) p[i] = -20.0f + 40.0f * static_cast<float>(i) / static_cast<float>(x.numel());
  for (Tensor in : {x, x.t(), x.slice(1, 0, 1).expand({37, 29})}) {
    Tensor y = ember::exp(in);
    Tensor c = in.contiguous();
    const float* src = c.data_ptr<float>();
    Tensor yc = y.contiguous();
    const float* got = yc.data_ptr<float>();
    Tensor reference = ember::exp(c);  // contiguous: the vector path
    const float* want = reference.data_ptr<float>();
    for (int64_t i = 0; i < c.numel(); ++i) {
      ASSERT_LE(ulp_error(got[i], want[i]), 1.0) << "element " << i;
      ASSERT_LE(ulp_error(got[i], std::exp(static_cast<double>(src[i]))), 2.0) << "element " << i;
    }
  }
}

}  // namespace
}  // namespace ember::cpu
