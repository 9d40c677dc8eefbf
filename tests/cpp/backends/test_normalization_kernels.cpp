// The fast batch-norm kernels (Note [Fast batch norm]) against their *_ref loops: statistics,
// gradient sums and the input-gradient affine pass, over NCHW (runs of lengths that are and are
// not multiples of the vector width), channels_last and strided (reference) inputs, float32 and
// float64; and the two-pass variance against float64 math on data with a large mean.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../testing.h"
#include "backends/cpu/normalization_kernels.h"
#include "ember/ember.h"

namespace ember {
namespace {

Tensor wavy(IntArrayRef sizes, double k, double offset) {
  Tensor t = empty(sizes, kFloat64);
  double* p = t.data_ptr<double>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = offset + std::sin(k * static_cast<double>(i) + 0.3);
  return t;
}

void expect_close(const std::vector<double>& a, const std::vector<double>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol * (1 + std::abs(b[i]))) << i;
}

TEST(NormalizationKernels, FastMatchRef) {
  for (std::vector<int64_t> sizes : {std::vector<int64_t>{4, 3, 8, 8}, {3, 5, 7, 5}, {2, 4, 3},
                                     {5, 6, 1, 1}, {2, 3, 4, 4}}) {
    for (ScalarType dt : {kFloat32, kFloat64}) {
      for (int layout = 0; layout < 3; ++layout) {
        Tensor x = wavy(sizes, 0.37, 0.5).to(dt), dy = wavy(sizes, 0.23, -0.2).to(dt);
        if (layout == 1 && sizes.size() == 4) {
          auto cl = [](const Tensor& t) { return t.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}); };
          x = cl(x);
          dy = cl(dy);
        }
        if (layout == 2) {  // every other sample: NCS-viewable, reference strides for S
          std::vector<int64_t> big = sizes;
          big.back() *= 2;
          x = wavy(big, 0.37, 0.5).to(dt).slice(-1, 0, big.back(), 2);
          dy = wavy(big, 0.23, -0.2).to(dt).slice(-1, 0, big.back(), 2);
        }
        SCOPED_TRACE(::testing::Message() << "sizes " << x.sizes() << " strides " << x.strides()
                                          << " " << scalar_type_name(dt));
        const double tol = dt == kFloat32 ? 1e-12 : 1e-13;  // only the float64 sum order differs
        std::vector<double> m1, v1, m2, v2;
        cpu::batch_norm_stats(x, m1, v1);
        cpu::batch_norm_stats_ref(x, m2, v2);
        expect_close(m1, m2, tol);
        expect_close(v1, v2, tol);
        std::vector<double> s1, t1, s2, t2;
        cpu::batch_norm_grad_sums(dy, x, m2, s1, t1);
        cpu::batch_norm_grad_sums_ref(dy, x, m2, s2, t2);
        expect_close(s1, s2, tol);
        expect_close(t1, t2, tol);
        const size_t C = static_cast<size_t>(sizes[1]);
        std::vector<double> a(C), b(C), k(C);
        for (size_t c = 0; c < C; ++c) {
          a[c] = 0.5 + 0.25 * static_cast<double>(c);
          b[c] = -0.125 * static_cast<double>(c);
          k[c] = 1.0 - static_cast<double>(c);
        }
        Tensor o1 = empty_like(x), o2 = empty_like(x);
        cpu::channel_affine2(o1, dy, x, a, b, k);
        cpu::channel_affine2_ref(o2, dy, x, a, b, k);
        testing::expect_values(o1, x.sizes(), testing::values(o2), 0, 0);
      }
    }
  }
}

TEST(NormalizationKernels, TwoPassVarianceWithLargeMean) {
  // float32 data around 1e4 with a spread of 1e-2: a one-pass E[x^2] - E[x]^2 would lose the
  // variance; the two passes match float64 math on the same float32 values.
  Tensor x = (wavy({4, 2, 6, 6}, 0.71, 0.0) * 1e-2 + 1e4).to(kFloat32);
  std::vector<double> mean, var;
  cpu::batch_norm_stats(x, mean, var);
  Tensor xd = x.to(kFloat64);
  for (int64_t c = 0; c < 2; ++c) {
    const auto v = testing::values(xd.select(1, c));
    double mu = 0, sq = 0;
    for (double e : v) mu += e;
    mu /= static_cast<double>(v.size());
    for (double e : v) sq += (e - mu) * (e - mu);
    EXPECT_NEAR(mean[static_cast<size_t>(c)], mu, 1e-9 * std::abs(mu));
    EXPECT_NEAR(var[static_cast<size_t>(c)], sq / static_cast<double>(v.size()), 1e-9);
  }
}

}  // namespace
}  // namespace ember
