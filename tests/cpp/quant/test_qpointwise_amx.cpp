// The AMX 1x1 int8 kernel (Note [1x1 int8 convolutions on AMX tiles]) against the scalar
// reference qconv2d_ref, bit for bit, for both formulas: channel counts below, at and across
// the 16 / 64 tile edges (1, 3, 16, 24, 63, 64, 65, 200 inputs; 1, 15, 16, 17, 24, 40, 96
// outputs), pixel counts from 1 to several blocks with ragged tails, input zero points at 0,
// 255 and between, weights at -128 / 127 and all-127 rows (sums near int32's limits for long
// rows), output scales that saturate at both ends, +-bias, +-ReLU, per-tensor and per-channel
// weights; the kernel called directly and through a packed conv (which must take it); and the
// switch that returns a pack to oneDNN with the same codes.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <vector>

#include "backends/cpu/quantized/qconv.h"
#include "backends/cpu/quantized/qpointwise_amx.h"
#include "backends/cpu/quantized/requant.h"

#include "quant/kernel_rng.h"

namespace ember::cpu::quantized {
namespace {

using kernel_test::Rng;

QConvGeometry pointwise(int64_t in, int64_t out) {
  return QConvGeometry{in, out, 1, 1, 1, 1, 1, 0, 0, 1, 1};
}

struct Data {
  std::vector<int8_t> w;
  std::vector<double> scales;
  std::vector<int64_t> zps;
  std::vector<float> bias;
  std::vector<uint8_t> x;
};

Data make(Rng& r, int64_t in, int64_t out, int64_t pixels, bool per_channel, bool with_bias) {
  Data s;
  s.w.resize(out * in);
  for (auto& v : s.w) v = static_cast<int8_t>(r.i(-128, 127));
  s.w[0] = -128;
  if (s.w.size() > 1) s.w[1] = 127;
  if (out > 2) std::fill(s.w.begin() + 2 * in, s.w.begin() + 3 * in, int8_t{127});
  const int64_t nw = per_channel ? out : 1;
  for (int64_t i = 0; i < nw; ++i) s.scales.push_back(r.u(0.002, 0.02));
  s.zps.assign(nw, 0);
  if (with_bias) {
    for (int64_t i = 0; i < out; ++i) s.bias.push_back(static_cast<float>(r.u(-2, 2)));
  }
  s.x.resize(pixels * in);
  for (auto& v : s.x) v = static_cast<uint8_t>(r.i(0, 255));
  if (!s.x.empty()) s.x.back() = 255;  // the last code, read from the padded copy
  return s;
}

TEST(QPointwiseAmx, EqualsRefForBothFormulas) {
  if (!detail::amx_int8_usable()) GTEST_SKIP() << "no AMX int8 on this CPU / OS";
  Rng r(1312);
  const int64_t ins[] = {1, 3, 16, 24, 63, 64, 65, 200};
  const int64_t outs[] = {1, 15, 16, 17, 24, 40, 96};
  const int64_t pixel_counts[] = {1, 5, 16, 17, 31, 32, 33, 49, 100};
  const struct {
    double xs;
    int64_t zx;
    double ys;
    int64_t zy;
  } qps[] = {{0.05, 128, 0.1, 100}, {0.02, 0, 0.04, 255}, {0.1, 255, 1e-5, 3}, {0.3, 17, 1e4, 0}};
  int checked = 0;
  for (int64_t in : ins) {
    for (int64_t out : outs) {
      const int64_t pixels = pixel_counts[(in + out) % 9];
      const QConvGeometry g = pointwise(in, out);
      const bool per_channel = (in + out) % 2 == 0, with_bias = out % 3 != 0;
      Data s = make(r, in, out, pixels, per_channel, with_bias);
      const float* b = with_bias ? s.bias.data() : nullptr;
      const detail::AmxWeights aw(s.w.data(), out, in);
      const auto& q = qps[(in * 7 + out) % 4];
      for (QFormula f : {QFormula::Onednn, QFormula::Qnnpack}) {
        for (bool relu : {false, true}) {
          const detail::WeightParams wp = detail::expand_weight_params(
              f, "test", out, s.scales.data(), s.zps.data(), static_cast<int64_t>(s.zps.size()));
          const detail::Requant rq = detail::make_requant(f, wp, b, q.xs, q.ys, q.zy, relu);
          std::vector<uint8_t> got(pixels * out, 7), want(pixels * out, 9);
          detail::pointwise_amx_run(aw, s.x.data(), pixels, static_cast<int32_t>(q.zx), rq,
                                    got.data());
          qconv2d_ref(f, g, s.w.data(), s.scales.data(), s.zps.data(),
                      static_cast<int64_t>(s.zps.size()), b, s.x.data(), 1, 1, pixels, q.xs, q.zx,
                      want.data(), q.ys, q.zy, relu);
          ASSERT_EQ(got, want) << "in " << in << " out " << out << " pixels " << pixels
                               << " zx " << q.zx << " relu " << relu;
          auto p = PackedQConv2d::create(f, g, s.w.data(), s.scales.data(), s.zps.data(),
                                         static_cast<int64_t>(s.zps.size()), b);
          std::vector<uint8_t> packed(pixels * out, 5);
          p->run(s.x.data(), 1, 1, pixels, q.xs, q.zx, packed.data(), q.ys, q.zy, relu);
          ASSERT_EQ(packed, want) << "packed: in " << in << " out " << out;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 8 * 7 * 2 * 2);
}

// A MobileNetV2-sized layer as the model runs it (batch 1, NHWC 28x28, 32 -> 192), the exact
// sums wrapping modulo 2^32 where 127 * 255 * in passes int32's range (in = 70,000).
TEST(QPointwiseAmx, LargeLayerAndWrappingSums) {
  if (!detail::amx_int8_usable()) GTEST_SKIP() << "no AMX int8 on this CPU / OS";
  Rng r(5);
  for (const auto& [in, out, pixels] :
       {std::tuple<int64_t, int64_t, int64_t>{32, 192, 28 * 28}, {70000, 3, 2}}) {
    Data s = make(r, in, out, pixels, true, true);
    if (in == 70000) {
      std::fill(s.w.begin(), s.w.end(), int8_t{127});
      std::fill(s.x.begin(), s.x.end(), uint8_t{255});
    }
    const QConvGeometry g = pointwise(in, out);
    for (QFormula f : {QFormula::Onednn, QFormula::Qnnpack}) {
      auto p = PackedQConv2d::create(f, g, s.w.data(), s.scales.data(), s.zps.data(), out,
                                     s.bias.data());
      std::vector<uint8_t> got(pixels * out), want(pixels * out);
      p->run(s.x.data(), 1, 1, pixels, 0.04, 0, got.data(), 0.5, 128, false);
      qconv2d_ref(f, g, s.w.data(), s.scales.data(), s.zps.data(), out, s.bias.data(),
                  s.x.data(), 1, 1, pixels, 0.04, 0, want.data(), 0.5, 128, false);
      ASSERT_EQ(got, want) << "in " << in;
    }
  }
}

// The packed linear takes the same kernel from kAmxMinRows rows (fewer go to oneDNN, checked
// too): static (both formulas, rows from 1 to several blocks,
// the classifier's 1280 -> 1000) and dynamic (float input quantized per call, sums dequantized).
TEST(QPointwiseAmx, LinearStaticAndDynamicEqualRef) {
  if (!detail::amx_int8_usable()) GTEST_SKIP() << "no AMX int8 on this CPU / OS";
  Rng r(77);
  for (const auto& [in, out, m] : {std::tuple<int64_t, int64_t, int64_t>{1280, 1000, 1},
                                   {20, 33, 5},
                                   {64, 16, 32},
                                   {100, 7, 70}}) {
    Data s = make(r, in, out, m, true, out != 7);
    const float* b = out != 7 ? s.bias.data() : nullptr;
    std::vector<float> xf(m * in);
    for (auto& v : xf) v = static_cast<float>(r.u(-3, 5));
    for (QFormula f : {QFormula::Onednn, QFormula::Qnnpack}) {
      auto p = PackedQLinear::create(f, in, out, s.w.data(), s.scales.data(), s.zps.data(), out, b);
      std::vector<uint8_t> got(m * out, 1), want(m * out, 2);
      p->run(s.x.data(), m, 0.03, 7, got.data(), 0.2, 60, true);
      qlinear_ref(f, in, out, s.w.data(), s.scales.data(), s.zps.data(), out, b, s.x.data(), m,
                  0.03, 7, want.data(), 0.2, 60, true);
      ASSERT_EQ(got, want) << "in " << in << " out " << out << " m " << m;
      for (bool reduce_range : {false, true}) {
        std::vector<float> dyn(m * out, 1.f), dyn_want(m * out, 2.f);
        p->run_dynamic(xf.data(), m, dyn.data(), reduce_range, false);
        qlinear_dynamic_ref(f, in, out, s.w.data(), s.scales.data(), s.zps.data(), out, b,
                            xf.data(), m, dyn_want.data(), reduce_range, false);
        ASSERT_EQ(dyn, dyn_want) << "dynamic: in " << in << " out " << out << " m " << m;
      }
    }
  }
}

// The A tiles read 64 codes per row from the input with its own row stride, past a row's end into
// the next pixel's codes: never past the input's end. The input here ends at a page that may not
// be read (a tile load there would fault), for row lengths around the 64-code tiles and pixel
// counts around the 32-pixel blocks.
TEST(QPointwiseAmx, NeverReadsPastTheInput) {
  if (!detail::amx_int8_usable()) GTEST_SKIP() << "no AMX int8 on this CPU / OS";
  const int64_t page = sysconf(_SC_PAGESIZE);
  Rng r(3);
  for (int64_t in : {1, 16, 24, 63, 64, 65, 100, 130}) {
    for (int64_t rows : {1, 8, 31, 32, 33, 64, 65, 97}) {
      const int64_t bytes = rows * in, pages = (bytes + page - 1) / page + 1;
      void* map = mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
      ASSERT_NE(map, MAP_FAILED);
      auto* base = static_cast<uint8_t*>(map);
      ASSERT_EQ(mprotect(base + (pages - 1) * page, page, PROT_NONE), 0);
      uint8_t* x = base + (pages - 1) * page - bytes;  // the last code is the page's last byte
      for (int64_t i = 0; i < bytes; ++i) x[i] = static_cast<uint8_t>(r.i(0, 255));
      const int64_t out = 20;
      Data s = make(r, in, out, 0, true, true);
      const detail::AmxWeights aw(s.w.data(), out, in);
      const detail::WeightParams wp = detail::expand_weight_params(
          QFormula::Onednn, "test", out, s.scales.data(), s.zps.data(), out);
      const detail::Requant rq =
          detail::make_requant(QFormula::Onednn, wp, s.bias.data(), 0.05, 0.1, 128, false);
      std::vector<uint8_t> got(rows * out), want(rows * out);
      detail::pointwise_amx_run(aw, x, rows, 100, rq, got.data());
      qconv2d_ref(QFormula::Onednn, pointwise(in, out), s.w.data(), s.scales.data(),
                  s.zps.data(), out, s.bias.data(), x, 1, 1, rows, 0.05, 100, want.data(), 0.1,
                  128, false);
      EXPECT_EQ(got, want) << "in " << in << " rows " << rows;
      munmap(map, pages * page);
    }
  }
}

// The switch that benchmarks use: off, a packed 1x1 conv takes oneDNN's kernel, same codes.
TEST(QPointwiseAmx, DisabledFallsBackWithSameCodes) {
  if (!detail::amx_int8_usable()) GTEST_SKIP() << "no AMX int8 on this CPU / OS";
  Rng r(9);
  const int64_t in = 96, out = 24, h = 9, w = 11;
  Data s = make(r, in, out, 2 * h * w, true, true);
  const QConvGeometry g = pointwise(in, out);
  auto p = PackedQConv2d::create(QFormula::Onednn, g, s.w.data(), s.scales.data(), s.zps.data(),
                                 out, s.bias.data());
  std::vector<uint8_t> amx(2 * h * w * out), onednn(amx.size()), want(amx.size());
  p->run(s.x.data(), 2, h, w, 0.05, 120, amx.data(), 0.08, 90, true);
  detail::set_pointwise_amx_enabled(false);
  p->run(s.x.data(), 2, h, w, 0.05, 120, onednn.data(), 0.08, 90, true);
  detail::set_pointwise_amx_enabled(true);
  qconv2d_ref(QFormula::Onednn, g, s.w.data(), s.scales.data(), s.zps.data(), out,
              s.bias.data(), s.x.data(), 2, h, w, 0.05, 120, want.data(), 0.08, 90, true);
  EXPECT_EQ(amx, want);
  EXPECT_EQ(onednn, want);
}

}  // namespace
}  // namespace ember::cpu::quantized
