// The quantized element-wise / pooling kernels: every fast kernel equals its scalar *_ref on
// random codes (rows with and without a vector tail, both layouts), plus hand-checked values of
// the spec's formulas. Values against torch 1.13 are in tests/python/quantized/.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "backends/cpu/quantized/qelementwise_kernels.h"

namespace q = ember::cpu::quantized;

namespace {

template <class T>
std::vector<T> random_codes(int64_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int64_t> d(q::qmin_of<T>(),
                                           sizeof(T) == 4 ? 100000 : q::qmax_of<T>());
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<T>(d(rng));
  return v;
}

q::QParams random_qparams(std::mt19937& rng, int64_t lo, int64_t hi) {
  std::uniform_real_distribution<double> s(0.001, 0.1);
  std::uniform_int_distribution<int64_t> z(lo, hi);
  return {s(rng), z(rng)};
}

template <class T>
void check_binary(std::mt19937& rng) {
  for (int64_t row : {1, 7, 63, 64, 65, 200, 70000}) {
    const int64_t n = row * (row > 1000 ? 1 : 3);
    auto a = random_codes<T>(n, rng), b = random_codes<T>(n, rng);
    const auto pa = random_qparams(rng, -5, 100), pb = random_qparams(rng, -5, 100),
               py = random_qparams(rng, -5, 100);
    for (bool relu : {false, true}) {
      std::vector<T> y(n), r(n);
      q::qadd_generic<T>(a.data(), b.data(), y.data(), n, row, pa, pb, py, relu);
      q::qadd_generic_ref<T>(a.data(), b.data(), r.data(), n, row, pa, pb, py, relu);
      EXPECT_EQ(y, r) << "add row " << row;
      q::qmul<T>(a.data(), b.data(), y.data(), n, pa, pb, py, relu);
      q::qmul_ref<T>(a.data(), b.data(), r.data(), n, pa, pb, py, relu);
      EXPECT_EQ(y, r) << "mul row " << row;
    }
  }
}

}  // namespace

TEST(QuantKernels, BinaryFastEqualsRef) {
  std::mt19937 rng(1);
  check_binary<uint8_t>(rng);
  check_binary<int8_t>(rng);
  check_binary<int32_t>(rng);
}

TEST(QuantKernels, QnnpackAddFastEqualsRefAndSpecExample) {
  std::mt19937 rng(2);
  auto a = random_codes<uint8_t>(100003, rng), b = random_codes<uint8_t>(100003, rng);
  for (bool relu : {false, true}) {
    const auto p = q::QnnpackAddParams::make({0.031, 120}, {0.047, 131}, {0.061, 125}, relu);
    std::vector<uint8_t> y(a.size()), r(a.size());
    q::qadd_qnnpack(a.data(), b.data(), y.data(), static_cast<int64_t>(a.size()), p);
    q::qadd_qnnpack_ref(a.data(), b.data(), r.data(), static_cast<int64_t>(a.size()), p);
    EXPECT_EQ(y, r);
    if (relu) {
      for (auto v : y) EXPECT_GE(v, 125);
    }
  }
  // Spec § 7.2 by hand: ra = 0.5, rb = 0.25 -> e = -1, shift = 22, A = 2^21, B = 2^20;
  // (10 - 0)*0.5 + (7 - 3)*0.25 = 6 -> 6 + 50 = 56; 5*0.5 + 2*0.25 = 3 (ties away: 3.0) -> 53.
  const auto p = q::QnnpackAddParams::make({0.5, 0}, {0.25, 3}, {1.0, 50}, false);
  EXPECT_EQ(p.shift, 22u);
  uint8_t av[2] = {10, 5}, bv[2] = {7, 5}, yv[2];
  q::qadd_qnnpack_ref(av, bv, yv, 2, p);
  EXPECT_EQ(yv[0], 56);
  EXPECT_EQ(yv[1], 53);
  // 1.5 rounds half away from zero: (3*0.5) -> 2; (-3*0.5) -> -2
  const auto p2 = q::QnnpackAddParams::make({0.5, 10}, {0.5, 0}, {1.0, 100}, false);
  uint8_t a2[2] = {13, 7}, b2[2] = {0, 0}, y2[2];
  q::qadd_qnnpack_ref(a2, b2, y2, 2, p2);
  EXPECT_EQ(y2[0], 102);
  EXPECT_EQ(y2[1], 98);
  // Scale ratio out of [2^-14, 2^8): PyTorch's error.
  EXPECT_THROW(q::QnnpackAddParams::make({0.1, 0}, {0.1, 0}, {1e-4, 0}, false), std::exception);
}

TEST(QuantKernels, UnaryFastEqualsRef) {
  std::mt19937 rng(3);
  for (auto fn : {q::QUnaryFn::Requant, q::QUnaryFn::RequantRelu, q::QUnaryFn::Hardswish,
                  q::QUnaryFn::HardswishQnnpack, q::QUnaryFn::Sigmoid, q::QUnaryFn::SigmoidQnnpack,
                  q::QUnaryFn::Hardsigmoid, q::QUnaryFn::HardsigmoidQnnpack,
                  q::QUnaryFn::AddScalar}) {
    for (int64_t row : {5, 64, 130, 40000}) {
      const int64_t n = row * 2;
      q::QUnarySpec spec{fn, random_qparams(rng, 0, 255), random_qparams(rng, 0, 255), 7};
      auto x8 = random_codes<uint8_t>(n, rng);
      std::vector<uint8_t> y8(n), r8(n);
      q::qunary<uint8_t>(x8.data(), y8.data(), n, row, spec);
      q::qunary_ref<uint8_t>(x8.data(), r8.data(), n, row, spec);
      EXPECT_EQ(y8, r8);
      spec.in.zero_point -= 128;
      spec.out.zero_point -= 128;
      auto xs = random_codes<int8_t>(n, rng);
      std::vector<int8_t> ys(n), rs(n);
      q::qunary<int8_t>(xs.data(), ys.data(), n, row, spec);
      q::qunary_ref<int8_t>(xs.data(), rs.data(), n, row, spec);
      EXPECT_EQ(ys, rs);
    }
  }
}

TEST(QuantKernels, UnaryRowsFastEqualsRef) {
  // quantized cat's NHWC kernel: rows of C codes written C_out apart, vector part C - C % 8.
  std::mt19937 rng(6);
  for (int64_t len : {3, 8, 20, 67}) {
    const int64_t rows = 41, stride = len + 5;
    auto x = random_codes<uint8_t>(rows * len, rng);
    std::vector<uint8_t> y(rows * stride, 7), r(rows * stride, 7);
    const q::QUnarySpec spec{q::QUnaryFn::Requant, random_qparams(rng, 0, 255),
                             random_qparams(rng, 0, 255)};
    q::qunary_rows<uint8_t>(x.data(), y.data(), rows, len, stride, 8, spec);
    q::qunary_rows_ref<uint8_t>(x.data(), r.data(), rows, len, stride, 8, spec);
    EXPECT_EQ(y, r);
    EXPECT_EQ(y[len], 7);  // the gap between rows is untouched
  }
}

TEST(QuantKernels, ClampAndBatchNormFastEqualsRef) {
  std::mt19937 rng(4);
  auto x = random_codes<uint8_t>(5000, rng);
  std::vector<uint8_t> y(x.size()), r(x.size());
  q::qclamp_codes<uint8_t>(x.data(), y.data(), 5000, 100, 255);
  q::qclamp_codes_ref<uint8_t>(x.data(), r.data(), 5000, 100, 255);
  EXPECT_EQ(y, r);
  for (auto v : y) EXPECT_GE(v, 100);  // relu: max(q, z) (spec checklist 57)
  const int64_t C = 37, rows = 135;
  std::vector<float> alpha(C), beta(C);
  std::uniform_real_distribution<float> d(-2.f, 2.f);
  for (int64_t c = 0; c < C; ++c) alpha[c] = d(rng), beta[c] = 40 * d(rng);
  std::vector<uint8_t> yb(rows * C), rb(rows * C);
  for (bool relu : {false, true}) {
    q::qbatch_norm_nhwc<uint8_t>(x.data(), yb.data(), rows, C, alpha.data(), beta.data(), 17, 90,
                                 relu);
    q::qbatch_norm_nhwc_ref<uint8_t>(x.data(), rb.data(), rows, C, alpha.data(), beta.data(), 17,
                                     90, relu);
    EXPECT_EQ(yb, rb);
  }
}

TEST(QuantKernels, PoolsFastEqualsRef) {
  std::mt19937 rng(5);
  for (bool nhwc : {false, true}) {
    q::QPool2d g{2, 19, 11, 9, 0, 0, 3, 3, 2, 2, 1, 1, 1, 1};
    g.OH = (g.H + 2 * g.ph - g.kh) / g.sh + 1;
    g.OW = (g.W + 2 * g.pw - g.kw) / g.sw + 1;
    auto x = random_codes<uint8_t>(g.N * g.C * g.H * g.W, rng);
    std::vector<uint8_t> y(g.N * g.C * g.OH * g.OW), r(y.size());
    for (bool edge : {false, true}) {
      q::qmax_pool2d<uint8_t>(x.data(), y.data(), g, nhwc, edge);
      q::qmax_pool2d_ref<uint8_t>(x.data(), r.data(), g, nhwc, edge);
      EXPECT_EQ(y, r);
    }
    for (auto f :
         {q::QAvgFormula::GenericNchw, q::QAvgFormula::GenericNhwc, q::QAvgFormula::Qnnpack}) {
      for (bool cip : {false, true}) {
        q::qavg_pool2d<uint8_t>(x.data(), y.data(), g, nhwc, cip, 0, {0.02, 100}, {0.03, 90}, f);
        q::qavg_pool2d_ref<uint8_t>(x.data(), r.data(), g, nhwc, cip, 0, {0.02, 100}, {0.03, 90},
                                    f);
        EXPECT_EQ(y, r);
      }
    }
    q::QPool2d a = g;
    a.OH = 4, a.OW = 3;
    std::vector<uint8_t> ya(a.N * a.C * a.OH * a.OW), ra(ya.size());
    q::qadaptive_avg_pool2d<uint8_t>(x.data(), ya.data(), a, nhwc, {0.02, 100});
    q::qadaptive_avg_pool2d_ref<uint8_t>(x.data(), ra.data(), a, nhwc, {0.02, 100});
    EXPECT_EQ(ya, ra);
    q::QPool2d u = g;
    u.OH = 23, u.OW = 17;
    std::vector<uint8_t> yu(u.N * u.C * u.OH * u.OW), ru(yu.size());
    q::qupsample_nearest2d<uint8_t>(x.data(), yu.data(), u, nhwc, 11.f / 23, 9.f / 17);
    q::qupsample_nearest2d_ref<uint8_t>(x.data(), ru.data(), u, nhwc, 11.f / 23, 9.f / 17);
    EXPECT_EQ(yu, ru);
  }
}
