// The direct 3x3 depthwise int8 kernel (Note [Direct 3x3 depthwise int8 kernel]) against the
// scalar reference qconv2d_ref, bit for bit: stride 1 and 2, sizes from 1x1 to odd and wide,
// 16 to 160 channels, batch 2, per-tensor and per-channel weights, with and without bias, +-ReLU,
// input zero points at 0, 255 and between, output scales that saturate at both ends (and
// values beyond int32), weights at -128 / 127, wide rows, and the kernel called directly as well
// as through a packed conv (which must take it). Shapes it does not serve fall back to oneDNN
// and still equal the reference.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "backends/cpu/quantized/qconv.h"
#include "backends/cpu/quantized/qdepthwise.h"
#include "backends/cpu/quantized/requant.h"

#include "quant/kernel_rng.h"

namespace ember::cpu::quantized {
namespace {

using kernel_test::Rng;

QConvGeometry dw_geometry(int64_t c, int64_t stride) {
  return QConvGeometry{c, c, c, 3, 3, stride, stride, 1, 1, 1, 1};
}

struct Case {
  int64_t c, stride, n, h, w;
};

const Case kCases[] = {
    {16, 1, 1, 1, 1},
    {16, 2, 1, 1, 1},
    {32, 1, 1, 2, 3},
    {32, 2, 1, 2, 3},
    {16, 1, 2, 5, 7},
    {48, 2, 2, 7, 5},
    {144, 1, 1, 9, 8},
    {144, 2, 1, 9, 8},
    {96, 2, 1, 12, 12},
    {160, 1, 1, 7, 7},
    {32, 1, 1, 29, 31},
    {64, 2, 1, 30, 31},
    // wide rows (the ring of Q rows at 300 columns), 80 channels
    {16, 1, 1, 3, 300},
    {32, 2, 1, 5, 150},
    {64, 1, 1, 4, 70},
    {80, 1, 1, 3, 140},
};

struct DwData {
  std::vector<int8_t> w;
  std::vector<double> scales;
  std::vector<int64_t> zps;
  std::vector<float> bias;
  std::vector<uint8_t> x;
};

DwData make(Rng& r, const Case& k, bool per_channel, bool with_bias) {
  DwData s;
  s.w.resize(k.c * 9);
  for (auto& v : s.w) v = static_cast<int8_t>(r.i(-128, 127));
  s.w[0] = -128;  // the ends of the weight range
  s.w[1] = 127;
  const int64_t nw = per_channel ? k.c : 1;
  for (int64_t i = 0; i < nw; ++i) s.scales.push_back(r.u(0.002, 0.02));
  s.zps.assign(nw, 0);
  if (with_bias) {
    for (int64_t i = 0; i < k.c; ++i) s.bias.push_back(static_cast<float>(r.u(-2, 2)));
  }
  s.x.resize(k.n * k.h * k.w * k.c);
  for (auto& v : s.x) v = static_cast<uint8_t>(r.i(0, 255));
  return s;
}

TEST(QSpeedDepthwise, DirectKernelEqualsRef) {
  const QConvGeometry probe = dw_geometry(16, 1);
  if (!detail::dw3x3_applies(probe)) GTEST_SKIP() << "no AVX-512 VNNI / VBMI on this CPU";
  Rng r(2024);
  int checked = 0;
  for (const Case& k : kCases) {
    const QConvGeometry g = dw_geometry(k.c, k.stride);
    ASSERT_TRUE(detail::dw3x3_applies(g));
    for (bool per_channel : {false, true}) {
      for (bool with_bias : {false, true}) {
        DwData s = make(r, k, per_channel, with_bias);
        const int64_t oh = g.out_h(k.h), ow = g.out_w(k.w), count = k.n * oh * ow * k.c;
        // (x scale, x zero point, y scale, y zero point): ordinary; codes at the ends of the
        // range; a tiny output scale (everything saturates); a tinier one (values beyond
        // int32, the kernel's clamped path); a huge one (everything at z_y).
        const struct {
          double xs;
          int64_t zx;
          double ys;
          int64_t zy;
        } qps[] = {{0.05, 128, 0.1, 100},
                   {0.02, 0, 0.04, 255},
                   {0.1, 255, 1e-5, 3},
                   {0.1, 0, 1e-9, 0},
                   {0.3, 17, 1e4, 0}};
        for (const auto& q : qps) {
          for (bool relu : {false, true}) {
            const float* b = with_bias ? s.bias.data() : nullptr;
            detail::WeightParams wp =
                detail::expand_weight_params(QFormula::Onednn, "test", k.c, s.scales.data(),
                                             s.zps.data(), static_cast<int64_t>(s.scales.size()));
            const detail::Requant rq =
                detail::make_requant(QFormula::Onednn, wp, b, q.xs, q.ys, q.zy, relu);
            const detail::Dw3x3Weights dw(s.w.data(), k.c);
            std::vector<uint8_t> got(count, 7), want(count, 9);
            detail::dw3x3_run(dw, g, s.x.data(), k.n, k.h, k.w, static_cast<int32_t>(q.zx), rq,
                              got.data());
            qconv2d_ref(QFormula::Onednn, g, s.w.data(), s.scales.data(), s.zps.data(),
                        static_cast<int64_t>(s.scales.size()), b, s.x.data(), k.n, k.h, k.w, q.xs,
                        q.zx, want.data(), q.ys, q.zy, relu);
            ASSERT_EQ(got, want) << "c " << k.c << " stride " << k.stride << " n " << k.n << " h "
                                 << k.h << " w " << k.w << " zx " << q.zx << " relu " << relu;
            // Through a packed conv: the same codes (it runs the direct kernel).
            auto p = PackedQConv2d::create(QFormula::Onednn, g, s.w.data(), s.scales.data(),
                                           s.zps.data(), static_cast<int64_t>(s.scales.size()), b);
            std::vector<uint8_t> packed(count, 5);
            p->run(s.x.data(), k.n, k.h, k.w, q.xs, q.zx, packed.data(), q.ys, q.zy, relu);
            ASSERT_EQ(packed, want);
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 16 * 2 * 2 * 5 * 2);
}

// The switch that benchmarks use: off, a packed conv takes oneDNN's kernel, with the same codes.
TEST(QSpeedDepthwise, DisabledFallsBackToOnednnWithSameCodes) {
  if (!detail::dw3x3_applies(dw_geometry(16, 1))) GTEST_SKIP() << "no AVX-512 VNNI / VBMI";
  Rng r(7);
  const Case k{32, 2, 1, 11, 13};
  const QConvGeometry g = dw_geometry(k.c, k.stride);
  DwData s = make(r, k, true, true);
  auto p = PackedQConv2d::create(QFormula::Onednn, g, s.w.data(), s.scales.data(), s.zps.data(),
                                 k.c, s.bias.data());
  const int64_t count = g.out_h(k.h) * g.out_w(k.w) * k.c;
  std::vector<uint8_t> direct(count), onednn(count), want(count);
  p->run(s.x.data(), 1, k.h, k.w, 0.05, 120, direct.data(), 0.08, 90, true);
  detail::set_dw3x3_enabled(false);
  p->run(s.x.data(), 1, k.h, k.w, 0.05, 120, onednn.data(), 0.08, 90, true);
  detail::set_dw3x3_enabled(true);
  qconv2d_ref(QFormula::Onednn, g, s.w.data(), s.scales.data(), s.zps.data(), k.c, s.bias.data(),
              s.x.data(), 1, k.h, k.w, 0.05, 120, want.data(), 0.08, 90, true);
  EXPECT_EQ(direct, want);
  EXPECT_EQ(onednn, want);
}

// Geometries outside the kernel: not claimed (and computed elsewhere).
TEST(QSpeedDepthwise, AppliesOnlyToItsGeometry) {
  if (!detail::dw3x3_applies(dw_geometry(16, 1))) GTEST_SKIP() << "no AVX-512 VNNI / VBMI";
  EXPECT_TRUE(detail::dw3x3_applies(dw_geometry(960, 1)));
  EXPECT_FALSE(detail::dw3x3_applies(dw_geometry(24, 1)));  // not a multiple of 16
  EXPECT_FALSE(detail::dw3x3_applies(dw_geometry(16, 3)));  // stride 3
  EXPECT_FALSE(detail::dw3x3_applies(QConvGeometry{32, 32, 16, 3, 3, 1, 1, 1, 1, 1, 1}));
  EXPECT_FALSE(detail::dw3x3_applies(QConvGeometry{16, 32, 16, 3, 3, 1, 1, 1, 1, 1, 1}));
  EXPECT_FALSE(detail::dw3x3_applies(QConvGeometry{16, 16, 16, 3, 3, 1, 1, 0, 0, 1, 1}));
  EXPECT_FALSE(detail::dw3x3_applies(QConvGeometry{16, 16, 16, 3, 3, 1, 1, 1, 1, 2, 2}));
  EXPECT_FALSE(detail::dw3x3_applies(QConvGeometry{16, 16, 16, 5, 5, 1, 1, 2, 2, 1, 1}));
  EXPECT_FALSE(detail::dw3x3_applies(QConvGeometry{16, 16, 16, 3, 3, 1, 2, 1, 1, 1, 1}));
}

}  // namespace
}  // namespace ember::cpu::quantized
