// The 3-d / transposed int8 convolution kernel and the activation kernels of qactivation_more:
// each fast path equals its scalar *_ref bit for bit on random codes, plus hand-checked values
// (a transposed convolution's gather, QNNPACK's softargmax). Values against torch 1.13 are in
// tests/python/quantized/test_qconv_nd_ops.py and test_qactivation_more_ops.py.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "backends/cpu/quantized/qactivation_more_kernels.h"
#include "backends/cpu/quantized/onednn_int8.h"
#include "backends/cpu/quantized/qconv_nd.h"
#include "ember/error.h"

namespace q = ember::cpu::quantized;

namespace {

struct Case {
  bool transposed;
  int64_t n, c, o, groups;
  q::Dims3 in, kernel, stride, padding, dilation, output_padding;
};

std::vector<Case> cases() {
  return {
      {false, 1, 4, 6, 1, {3, 5, 4}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}},
      {false, 2, 6, 6, 3, {4, 4, 5}, {1, 3, 2}, {2, 1, 2}, {0, 1, 1}, {1, 2, 1}, {0, 0, 0}},
      {false, 1, 3, 5, 1, {1, 7, 7}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}, {0, 0, 0}},
      {true, 1, 4, 6, 1, {1, 1, 6}, {1, 1, 3}, {1, 1, 2}, {0, 0, 1}, {1, 1, 1}, {0, 0, 1}},
      {true, 2, 6, 9, 3, {1, 4, 3}, {1, 2, 3}, {1, 1, 2}, {0, 0, 1}, {1, 1, 1}, {0, 0, 1}},
      {true, 1, 4, 6, 2, {3, 4, 3}, {3, 2, 3}, {2, 1, 2}, {1, 0, 1}, {1, 2, 1}, {1, 0, 0}},
      // 8+ output channels per group: oneDNN's matmul on gathered patches (when exact here)
      {false, 2, 8, 16, 1, {3, 6, 5}, {3, 3, 3}, {1, 2, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}},
      {true, 1, 8, 16, 2, {1, 5, 6}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}, {0, 1, 1}},
      {true, 3, 6, 9, 1, {2, 3, 3}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}},
  };
}

}  // namespace

TEST(QConvNdKernels, FastEqualsRef) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> code(0, 255), wcode(-128, 127);
  std::normal_distribution<float> bias(0.f, 2.f);
  for (const Case& cs : cases()) {
    q::QConvNdGeometry g;
    g.in_channels = cs.c;
    g.out_channels = cs.o;
    g.groups = cs.groups;
    g.transposed = cs.transposed;
    g.kernel = cs.kernel;
    g.stride = cs.stride;
    g.padding = cs.padding;
    g.dilation = cs.dilation;
    g.output_padding = cs.output_padding;
    const int64_t K = cs.kernel[0] * cs.kernel[1] * cs.kernel[2];
    std::vector<int8_t> w(static_cast<size_t>(cs.c * (cs.o / cs.groups) * K));
    for (auto& v : w) v = static_cast<int8_t>(wcode(rng));
    const int64_t in_numel = cs.n * cs.in[0] * cs.in[1] * cs.in[2] * cs.c;
    std::vector<uint8_t> x(static_cast<size_t>(in_numel));
    for (auto& v : x) v = static_cast<uint8_t>(code(rng));
    std::vector<float> b(static_cast<size_t>(cs.o));
    for (auto& v : b) v = bias(rng);
    std::vector<double> scales(static_cast<size_t>(cs.o));
    std::vector<int64_t> zps(static_cast<size_t>(cs.o));
    for (int64_t i = 0; i < cs.o; ++i) {
      scales[i] = 0.002 + 0.001 * static_cast<double>(i);
      zps[i] = i % 3 - 1;
    }
    const q::Dims3 out = g.out_size(cs.in);
    const int64_t out_numel = cs.n * out[0] * out[1] * out[2] * cs.o;
    for (auto formula : {q::QFormula::Qnnpack, q::QFormula::Onednn}) {
      for (int64_t nparams : {int64_t{1}, cs.o}) {
        if (formula == q::QFormula::Onednn) std::fill(zps.begin(), zps.end(), 0);
        auto packed = q::PackedQConvNd::create(formula, g, w.data(), scales.data(), zps.data(),
                                               nparams, b.data());
        // Weight zero points 0 (always under Onednn) and 8+ channels per group: oneDNN's path.
        if (formula == q::QFormula::Onednn && cs.o / cs.groups >= 8 &&
            q::detail::onednn_int8_exact()) {
          EXPECT_TRUE(packed->uses_onednn());
        }
        for (bool relu : {false, true}) {
          std::vector<uint8_t> y(static_cast<size_t>(out_numel)), r(y.size());
          packed->run(x.data(), cs.n, cs.in, 0.011, 77, y.data(), 0.05, 90, relu);
          q::qconv_nd_ref(formula, g, w.data(), scales.data(), zps.data(), nparams, b.data(),
                          x.data(), cs.n, cs.in, 0.011, 77, r.data(), 0.05, 90, relu);
          ASSERT_EQ(y, r) << "transposed " << cs.transposed << " relu " << relu;
        }
      }
    }
  }
}

TEST(QConvNdKernels, TransposedGatherByHand) {
  // One channel, kernel [1, 2], stride 2, no bias, unit scales: each input value lands on two
  // output positions, (in-1)*2 + 2 = 6 outputs.
  q::QConvNdGeometry g;
  g.in_channels = g.out_channels = 1;
  g.transposed = true;
  g.kernel = {1, 1, 2};
  g.stride = {1, 1, 2};
  const int8_t w[2] = {1, 2};
  const double s = 1.0;
  const int64_t z = 0;
  const uint8_t x[3] = {10, 20, 30};
  uint8_t y[6];
  auto p = q::PackedQConvNd::create(q::QFormula::Qnnpack, g, w, &s, &z, 1, nullptr);
  p->run(x, 1, {1, 1, 3}, 1.0, 0, y, 1.0, 0, false);
  const uint8_t want[6] = {10, 20, 20, 40, 30, 60};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], want[i]) << i;
}

TEST(QConvNdKernels, RejectsBadGeometry) {
  q::QConvNdGeometry g;
  g.in_channels = 3;
  g.out_channels = 4;
  g.groups = 2;
  const int8_t w[1] = {0};
  const double s = 1.0;
  const int64_t z = 0;
  EXPECT_THROW(q::PackedQConvNd::create(q::QFormula::Qnnpack, g, w, &s, &z, 1, nullptr),
               ember::Error);
}

template <class T>
void check_activations(std::mt19937& rng) {
  for (int64_t n : {1, 63, 64, 65, 200, 5000}) {
    std::uniform_int_distribution<int64_t> d(q::qmin_of<T>(), sizeof(T) == 4 ? 5000
                                                                                 : q::qmax_of<T>());
    std::vector<T> x(static_cast<size_t>(n));
    for (auto& v : x) v = static_cast<T>(d(rng));
    for (auto fn : {q::QActFn::LeakyRelu, q::QActFn::Elu, q::QActFn::Tanh, q::QActFn::Threshold}) {
      q::QActSpec spec{fn, {0.03, 7}, {0.02, -3}, 0.3f, 1.2f, 0.7f};
      std::vector<T> y(x.size()), r(x.size());
      q::qact<T>(x.data(), y.data(), n, spec);
      q::qact_ref<T>(x.data(), r.data(), n, spec);
      ASSERT_EQ(y, r) << "n " << n << " fn " << static_cast<int>(fn);
    }
  }
}

TEST(QActivationMoreKernels, FastEqualsRef) {
  std::mt19937 rng(3);
  check_activations<uint8_t>(rng);
  check_activations<int8_t>(rng);
  check_activations<int32_t>(rng);
}

TEST(QActivationMoreKernels, QnnpackSoftmax) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> code(0, 255);
  for (int64_t c : {1, 2, 37, 1000}) {
    const int64_t rows = 5;
    std::vector<uint8_t> x(static_cast<size_t>(rows * c)), y(x.size()), r(x.size());
    for (auto& v : x) v = static_cast<uint8_t>(code(rng));
    q::qsoftmax_qnnpack(x.data(), y.data(), rows, c, 0.07);
    q::qsoftmax_qnnpack_ref(x.data(), r.data(), rows, c, 0.07);
    ASSERT_EQ(y, r);
  }
  // Two equal codes split the row evenly: 128 each (256 * t / (2t), rounded).
  const uint8_t two[2] = {200, 200};
  uint8_t out[2];
  q::qsoftmax_qnnpack_ref(two, out, 1, 2, 0.1);
  EXPECT_EQ(out[0], 128);
  EXPECT_EQ(out[1], 128);
}

#include "backends/cpu/quantized/qnorm_more_kernels.h"

template <class T>
void check_normalize(std::mt19937& rng) {
  std::uniform_int_distribution<int64_t> d(q::qmin_of<T>(), sizeof(T) == 4 ? 3000
                                                                                : q::qmax_of<T>());
  std::normal_distribution<float> p(0.f, 1.f);
  for (bool per_channel : {false, true}) {
    for (bool affine : {false, true}) {
      q::QNormSpec s;
      s.rows = 6;
      s.row_len = 60;
      s.per_channel = per_channel;
      s.channels = 9;
      s.channels_per_row = 3;
      std::vector<float> g(static_cast<size_t>(per_channel ? s.channels : s.row_len)), b(g.size());
      for (auto& v : g) v = p(rng);
      for (auto& v : b) v = p(rng);
      s.gamma = affine ? g.data() : nullptr;
      s.beta = affine ? b.data() : nullptr;
      s.in = {0.04, 5};
      s.out = {0.03, -2};
      std::vector<T> x(static_cast<size_t>(s.rows * s.row_len)), y(x.size()), r(x.size());
      for (auto& v : x) v = static_cast<T>(d(rng));
      q::qnormalize<T>(x.data(), y.data(), s);
      q::qnormalize_ref<T>(x.data(), r.data(), s);
      ASSERT_EQ(y, r) << "per_channel " << per_channel << " affine " << affine;
    }
  }
}

TEST(QNormMoreKernels, FastEqualsRef) {
  std::mt19937 rng(11);
  check_normalize<uint8_t>(rng);
  check_normalize<int8_t>(rng);
  check_normalize<int32_t>(rng);
}

TEST(QNormMoreKernels, ConstantRowNormalisesToBeta) {
  // A constant row has variance 0: (q - mean) is 0 everywhere, so y = quantize(beta).
  q::QNormSpec s;
  s.rows = 1;
  s.row_len = 4;
  const float beta[4] = {0.5f, -0.5f, 0.f, 1.f};
  s.beta = beta;
  s.in = {0.1, 3};
  s.out = {0.25, 10};
  const uint8_t x[4] = {7, 7, 7, 7};
  uint8_t y[4];
  q::qnormalize_ref<uint8_t>(x, y, s);
  EXPECT_EQ(y[0], 12);
  EXPECT_EQ(y[1], 8);
  EXPECT_EQ(y[2], 10);
  EXPECT_EQ(y[3], 14);
}
