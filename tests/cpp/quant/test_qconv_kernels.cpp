// The packed int8 convolution / linear kernels (src/backends/cpu/quantized) against their scalar
// references, bit for bit, on both formulas and both accumulation paths (oneDNN and the
// portable exact kernel): depthwise, groups, stride 2, 1x1, 3x3, dilation, padding, odd sizes,
// per-tensor and per-channel weights, +-ReLU, saturation at 0 and 255, non-zero weight zero
// points (Qnnpack), batch 0, another input scale on the same pack, another thread count, 1x1
// convolutions large enough to run in blocks of pixels.
// Agreement with torch 1.13 itself: tests/python/quantized/test_qconv_kernels_vs_torch.py.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/quantized/qconv.h"
#include "ember/error.h"
#include "ember/parallel.h"

#include "quant/kernel_rng.h"

namespace ember::cpu::quantized {
namespace {

struct ConvCase {
  int64_t c, o, groups, kh, kw, sh, sw, ph, pw, dh, dw, n, h, w;
};

const ConvCase kConvCases[] = {
    {3, 32, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 17, 17},    // MobileNetV2's first layer, odd size
    {32, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 12, 12},  // depthwise
    {24, 24, 24, 3, 3, 2, 2, 1, 1, 1, 1, 2, 13, 11},  // depthwise stride 2, batch 2
    {19, 19, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, 7, 9},    // depthwise, odd channels
    {16, 40, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 9, 9},     // 1x1
    {96, 24, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 7, 7},     // 1x1 projection
    {8, 12, 2, 3, 3, 1, 1, 0, 0, 1, 1, 1, 8, 8},      // groups, no padding
    {6, 9, 3, 3, 2, 2, 1, 2, 1, 2, 1, 1, 10, 9},      // groups, dilation, asymmetric geometry
    {5, 7, 1, 5, 3, 3, 2, 2, 0, 1, 2, 2, 11, 13},     // 5x3 kernel, odd everything
    {4, 4, 1, 3, 3, 1, 1, 4, 4, 1, 1, 1, 2, 2},       // padding larger than the input
    {16, 96, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 45, 47},   // 1x1 in pixel blocks plus a tail
                                                      // (Note [Chunked int32 accumulators])
};

using kernel_test::Rng;

struct Weights {
  std::vector<int8_t> w;
  std::vector<double> scales;
  std::vector<int64_t> zps;
  std::vector<float> bias;
};

// Scales so that outputs spread over the whole code range and saturate at both ends.
Weights make_weights(Rng& r, int64_t o, int64_t per_out, bool per_channel, bool nonzero_zp,
                     bool with_bias) {
  Weights k;
  k.w.resize(o * per_out);
  for (auto& v : k.w) v = static_cast<int8_t>(r.i(-128, 127));
  const int64_t np = per_channel ? o : 1;
  for (int64_t i = 0; i < np; ++i) {
    k.scales.push_back(r.u(0.002, 0.02));
    k.zps.push_back(nonzero_zp ? r.i(-20, 20) : 0);
  }
  if (with_bias) {
    for (int64_t i = 0; i < o; ++i) k.bias.push_back(static_cast<float>(r.u(-3, 3)));
  }
  return k;
}

std::vector<uint8_t> codes(Rng& r, int64_t n) {
  std::vector<uint8_t> v(n);
  for (auto& c : v) c = static_cast<uint8_t>(r.i(0, 255));
  return v;
}

QConvGeometry geometry(const ConvCase& c) {
  return {c.c, c.o, c.groups, c.kh, c.kw, c.sh, c.sw, c.ph, c.pw, c.dh, c.dw};
}

// Every conv case x formula x path x {per tensor, per channel} x {bias, none} x {relu, none}.
TEST(QConvKernels, FastEqualsRef) {
  Rng r(1234);
  int64_t checked = 0, zeros = 0, full = 0;
  for (const ConvCase& cc : kConvCases) {
    const QConvGeometry g = geometry(cc);
    const int64_t per_out = cc.c / cc.groups * cc.kh * cc.kw;
    const int64_t oh = g.out_h(cc.h), ow = g.out_w(cc.w);
    for (QFormula f : {QFormula::Qnnpack, QFormula::Onednn}) {
      for (bool onednn : {true, false}) {
        for (int variant = 0; variant < 4; ++variant) {
          const bool per_channel = variant & 1, with_bias = variant & 2;
          // Qnnpack accepts weight zero points (they force the portable path).
          const bool nonzero_zp = f == QFormula::Qnnpack && !onednn && variant == 3;
          Weights k = make_weights(r, cc.o, per_out, per_channel, nonzero_zp, with_bias);
          set_onednn_int8_enabled(onednn);
          auto p = PackedQConv2d::create(f, g, k.w.data(), k.scales.data(), k.zps.data(),
                                         static_cast<int64_t>(k.scales.size()),
                                         with_bias ? k.bias.data() : nullptr);
          set_onednn_int8_enabled(true);
          const std::vector<uint8_t> x = codes(r, cc.n * cc.h * cc.w * cc.c);
          // Two input scales on the same pack (qnnpack re-derives its integer bias).
          for (double xs : {0.013, 0.031}) {
            for (bool relu : {false, true}) {
              const int64_t zx = r.i(0, 255), zy = r.i(0, 255);
              const double ys = r.u(0.02, 0.2);
              std::vector<uint8_t> y(cc.n * oh * ow * cc.o, 7), want(y.size(), 9);
              p->run(x.data(), cc.n, cc.h, cc.w, xs, zx, y.data(), ys, zy, relu);
              qconv2d_ref(f, g, k.w.data(), k.scales.data(), k.zps.data(),
                          static_cast<int64_t>(k.scales.size()),
                          with_bias ? k.bias.data() : nullptr, x.data(), cc.n, cc.h, cc.w, xs, zx,
                          want.data(), ys, zy, relu);
              ASSERT_EQ(y, want) << "case c=" << cc.c << " o=" << cc.o << " g=" << cc.groups
                                 << " formula " << int(f) << " onednn " << onednn << " variant "
                                 << variant << " relu " << relu;
              for (uint8_t v : y) {
                zeros += v == 0;
                full += v == 255;
                if (relu) {
                  EXPECT_GE(v, zy);
                }
              }
              checked += static_cast<int64_t>(y.size());
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 100000);
  EXPECT_GT(zeros, 100);  // saturated outputs were exercised
  EXPECT_GT(full, 100);
}

// The oneDNN path is taken on this machine (VNNI) for symmetric weights, not on asymmetric ones.
TEST(QConvKernels, PathSelection) {
  const QConvGeometry g{8, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1};
  std::vector<int8_t> w(8 * 9, 3);
  const double s = 0.01;
  const int64_t z0 = 0, z3 = 3;
  auto sym = PackedQConv2d::create(QFormula::Qnnpack, g, w.data(), &s, &z0, 1, nullptr);
  auto asym = PackedQConv2d::create(QFormula::Qnnpack, g, w.data(), &s, &z3, 1, nullptr);
  EXPECT_FALSE(asym->uses_onednn());
  if (!sym->uses_onednn()) GTEST_SKIP() << "no VNNI on this CPU: the portable kernel runs";
  EXPECT_EQ(sym->formula(), QFormula::Qnnpack);
  EXPECT_EQ(sym->geometry().groups, 8);
}

TEST(QConvKernels, EmptyBatchAndEmptyOutputAreNoOps) {
  const QConvGeometry g{4, 6, 1, 3, 3, 1, 1, 0, 0, 1, 1};
  std::vector<int8_t> w(6 * 4 * 9, 1);
  const double s = 0.01;
  const int64_t z = 0;
  for (QFormula f : {QFormula::Qnnpack, QFormula::Onednn}) {
    auto p = PackedQConv2d::create(f, g, w.data(), &s, &z, 1, nullptr);
    std::vector<uint8_t> y(8, 42);
    p->run(nullptr, 0, 5, 5, 0.1, 0, y.data(), 0.1, 0, false);
    p->run(nullptr, 1, 2, 2, 0.1, 0, y.data(), 0.1, 0, false);  // OH = 0
    EXPECT_EQ(y, std::vector<uint8_t>(8, 42));
    auto l = PackedQLinear::create(f, 4, 3, w.data(), &s, &z, 1, nullptr);
    l->run(nullptr, 0, 0.1, 0, y.data(), 0.1, 0, false);
    std::vector<float> fy(3, 5.f);
    l->run_dynamic(nullptr, 0, fy.data(), false, false);
    EXPECT_EQ(y, std::vector<uint8_t>(8, 42));
    EXPECT_EQ(fy, std::vector<float>(3, 5.f));
    // No input features: every accumulator is 0, the output is the requantized bias.
    const float bias[3] = {0.5f, -0.25f, 1.f};
    auto l0 = PackedQLinear::create(f, 0, 3, w.data(), &s, &z, 1, bias);
    std::vector<uint8_t> y0(6, 1), want0(6, 2);
    l0->run(nullptr, 2, 0.1, 0, y0.data(), 0.05, 100, false);
    qlinear_ref(f, 0, 3, w.data(), &s, &z, 1, bias, nullptr, 2, 0.1, 0, want0.data(), 0.05, 100,
                false);
    EXPECT_EQ(y0, want0);
    EXPECT_EQ(want0[0], 110);  // 0.5 / 0.05 + 100
  }
}

// A pack used at 1 thread, then 2, then 1 again, and with another batch size (PyTorch 1.13's
// onednn engine fails there, spec § 7.3).
TEST(QConvKernels, AnotherThreadCountOrBatchSize) {
  Rng r(7);
  const QConvGeometry g{32, 192, 1, 1, 1, 1, 1, 0, 0, 1, 1};
  Weights k = make_weights(r, 192, 32, true, false, true);
  auto p = PackedQConv2d::create(QFormula::Onednn, g, k.w.data(), k.scales.data(), k.zps.data(),
                                 192, k.bias.data());
  const int saved = get_num_threads();
  for (int threads : {1, 2, 1}) {
    set_num_threads(threads);
    for (int64_t n : {1, 3}) {
      const std::vector<uint8_t> x = codes(r, n * 8 * 8 * 32);
      std::vector<uint8_t> y(n * 64 * 192), want(y.size());
      p->run(x.data(), n, 8, 8, 0.02, 3, y.data(), 0.1, 5, false);
      qconv2d_ref(QFormula::Onednn, g, k.w.data(), k.scales.data(), k.zps.data(), 192,
                  k.bias.data(), x.data(), n, 8, 8, 0.02, 3, want.data(), 0.1, 5, false);
      EXPECT_EQ(y, want) << threads << " threads, batch " << n;
    }
  }
  set_num_threads(saved);
}

// Over 2e8 multiply-adds oneDNN's first implementation is taken without measuring (Note
// [Choosing among oneDNN's int8 implementations]); its codes equal the reference too.
TEST(QConvKernels, LargeProblemEqualsRef) {
  Rng r(11);
  const QConvGeometry g{64, 256, 1, 1, 1, 1, 1, 0, 0, 1, 1};
  const int64_t n = 4, hw = 56;
  Weights k = make_weights(r, 256, 64, true, false, true);
  const std::vector<uint8_t> x = codes(r, n * hw * hw * 64);
  for (QFormula f : {QFormula::Onednn, QFormula::Qnnpack}) {
    auto p =
        PackedQConv2d::create(f, g, k.w.data(), k.scales.data(), k.zps.data(), 256, k.bias.data());
    std::vector<uint8_t> y(n * hw * hw * 256), want(y.size());
    p->run(x.data(), n, hw, hw, 0.02, 7, y.data(), 0.3, 4, true);
    qconv2d_ref(f, g, k.w.data(), k.scales.data(), k.zps.data(), 256, k.bias.data(), x.data(), n,
                hw, hw, 0.02, 7, want.data(), 0.3, 4, true);
    EXPECT_EQ(y, want) << "formula " << int(f);
  }
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(QConvKernels, PyTorchErrors) {
  const QConvGeometry g{2, 4, 1, 3, 3, 1, 1, 0, 0, 1, 1};
  std::vector<int8_t> w(4 * 2 * 9, 1);
  const double s = 0.1, s4[4] = {0.1, 0.1, 0.1, 0.1};
  const int64_t z3 = 3, zc[4] = {0, 1, 0, 0}, z0 = 0;
  EXPECT_EQ(
      error_of([&] { PackedQConv2d::create(QFormula::Onednn, g, w.data(), &s, &z3, 1, nullptr); }),
      "quantized::qconv_prepack: ONEDNN only supports symmetric quantization of weight, "
      "whose zero point must be 0.");
  EXPECT_EQ(error_of([&] {
              PackedQLinear::create(QFormula::Onednn, 6, 4, w.data(), &s, &z3, 1, nullptr);
            }),
            "quantized::linear_prepack: ONEDNN only supports symmetric quantization of weight, "
            "whose zero point must be 0, but got 3");
  EXPECT_EQ(error_of([&] {
              PackedQLinear::create(QFormula::Onednn, 6, 4, w.data(), s4, zc, 4, nullptr);
            }),
            "quantized::linear_prepack: ONEDNN only supports symmetric quantization of weight, "
            "whose zero point must be 0, but got 1, at index 1");
  // Qnnpack takes them.
  EXPECT_EQ(
      error_of([&] { PackedQConv2d::create(QFormula::Qnnpack, g, w.data(), &s, &z3, 1, nullptr); }),
      "(no error)");
  // The requantization scale must be normal and positive (torch prints it with 6 digits).
  auto p = PackedQConv2d::create(QFormula::Qnnpack, g, w.data(), &s, &z0, 1, nullptr);
  std::vector<uint8_t> x(25 * 2, 1), y(9 * 4);
  EXPECT_EQ(error_of([&] { p->run(x.data(), 1, 5, 5, 1e-3, 0, y.data(), 1e38, 0, false); }),
            "failed to create op with requantization scale: 1.00053e-42: requantization scale "
            "must be finite and positive");
  EXPECT_NE(error_of([&] {
              PackedQConv2d::create(QFormula::Qnnpack,
                                    QConvGeometry{3, 4, 2, 3, 3, 1, 1, 0, 0, 1, 1}, w.data(), &s,
                                    &z0, 1, nullptr);
            }).find("divisible by groups"),
            std::string::npos);
}

TEST(QLinearKernels, FastEqualsRef) {
  Rng r(99);
  const int64_t shapes[][3] = {{1, 1280, 1000}, {3, 64, 10}, {7, 33, 17}, {1, 5, 1}, {16, 128, 64}};
  for (const auto& sh : shapes) {
    const int64_t m = sh[0], K = sh[1], O = sh[2];
    for (QFormula f : {QFormula::Qnnpack, QFormula::Onednn}) {
      for (bool onednn : {true, false}) {
        for (int variant = 0; variant < 4; ++variant) {
          const bool per_channel = variant & 1, with_bias = variant & 2;
          const bool nonzero_zp = f == QFormula::Qnnpack && variant == 1;
          Weights k = make_weights(r, O, K, per_channel, nonzero_zp, with_bias);
          const int64_t np = static_cast<int64_t>(k.scales.size());
          const float* b = with_bias ? k.bias.data() : nullptr;
          set_onednn_int8_enabled(onednn);
          auto p = PackedQLinear::create(f, K, O, k.w.data(), k.scales.data(), k.zps.data(), np, b);
          set_onednn_int8_enabled(true);
          const std::vector<uint8_t> x = codes(r, m * K);
          for (bool relu : {false, true}) {
            const int64_t zx = r.i(0, 255), zy = r.i(0, 255);
            const double xs = r.u(0.005, 0.05), ys = r.u(0.05, 0.5);
            std::vector<uint8_t> y(m * O), want(m * O);
            p->run(x.data(), m, xs, zx, y.data(), ys, zy, relu);
            qlinear_ref(f, K, O, k.w.data(), k.scales.data(), k.zps.data(), np, b, x.data(), m, xs,
                        zx, want.data(), ys, zy, relu);
            ASSERT_EQ(y, want) << m << "x" << K << "->" << O << " formula " << int(f);
            // Dynamic: a float input with a negative shift, reduce_range both ways.
            std::vector<float> fx(m * K);
            for (auto& v : fx) v = static_cast<float>(r.u(-1.5, 2.5));
            for (bool reduce : {false, true}) {
              std::vector<float> fy(m * O), fwant(m * O);
              p->run_dynamic(fx.data(), m, fy.data(), reduce, relu);
              qlinear_dynamic_ref(f, K, O, k.w.data(), k.scales.data(), k.zps.data(), np, b,
                                  fx.data(), m, fwant.data(), reduce, relu);
              ASSERT_EQ(0, std::memcmp(fy.data(), fwant.data(), fy.size() * sizeof(float)))
                  << "dynamic " << m << "x" << K << "->" << O << " formula " << int(f);
            }
          }
        }
      }
    }
  }
}

// ChooseQuantizationParams values checked against torch 1.13 (torch.ops.quantized's dynamic
// linear reads the same), and the qnnpack formula on hand-computed codes.
TEST(QLinearKernels, DynamicQParams) {
  DynamicQParams q = choose_dynamic_qparams(-2.f, 0.5f, false);
  EXPECT_EQ(q.scale, static_cast<float>(2.5 / 255));
  EXPECT_EQ(q.zero_point, 204);
  q = choose_dynamic_qparams(-2.f, 0.5f, true);
  EXPECT_EQ(q.scale, static_cast<float>(2.5 / 127));
  EXPECT_EQ(q.zero_point, 102);
  q = choose_dynamic_qparams(0.f, 0.f, false);  // empty or all-zero input
  EXPECT_EQ(q.scale, 0.1f);
  EXPECT_EQ(q.zero_point, 0);
  q = choose_dynamic_qparams(1e-6f, 2e-6f, false);  // below SMALL_SCALE_THRESHOLD
  EXPECT_EQ(q.scale, 6.1e-5f);
  EXPECT_EQ(q.zero_point, 0);
}

TEST(QLinearKernels, QnnpackFormulaByHand) {
  // acc = (10-2)*3 + (4-2)*(-5) = 14; b_q = rint(1.0 / f32(0.5*0.1)) = 20; M = 0.05/0.25 = 0.2
  // y = rint(34 * 0.2) + 100 = 107 (6.8 -> 7).
  const int8_t w[2] = {3, -5};
  const double s = 0.5;
  const int64_t z = 0;
  const float b = 1.f;
  auto p = PackedQLinear::create(QFormula::Qnnpack, 2, 1, w, &s, &z, 1, &b);
  const uint8_t x[2] = {10, 4};
  uint8_t y = 0;
  p->run(x, 1, 0.1, 2, &y, 0.25, 100, false);
  EXPECT_EQ(y, 107);
}

}  // namespace
}  // namespace ember::cpu::quantized
