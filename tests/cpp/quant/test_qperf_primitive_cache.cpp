// The oneDNN int8 primitive cache looks primitives up with a reused per-thread key vector
// (onednn_int8.cpp): calls that alternate between shapes, batch sizes, thread counts, output
// kinds (u8, u8 + ReLU, s32 for the qnnpack formula) and packed weights of the same shape with
// other scales must each still get their own primitive. Every call is checked against the
// scalar reference bit for bit, on depthwise, stride-2, 1x1, odd-sized and empty problems.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "backends/cpu/quantized/qconv.h"
#include "ember/parallel.h"

namespace ember::cpu::quantized {
namespace {

struct Case {
  QConvGeometry g;
  int64_t h, w;
  std::vector<int8_t> weight;
  std::vector<double> scales;
  std::vector<int64_t> zero_points;
  std::vector<float> bias;
};

Case make_case(std::mt19937& gen, const QConvGeometry& g, int64_t h, int64_t w) {
  Case c{g, h, w, {}, {}, {}, {}};
  std::uniform_int_distribution<int> code(-127, 127);
  std::uniform_real_distribution<double> scale(0.002, 0.02);
  std::uniform_real_distribution<float> bias(-2.f, 2.f);
  c.weight.resize(g.out_channels * (g.in_channels / g.groups) * g.kernel_h * g.kernel_w);
  for (auto& v : c.weight) v = static_cast<int8_t>(code(gen));
  for (int64_t o = 0; o < g.out_channels; ++o) {
    c.scales.push_back(scale(gen));
    c.zero_points.push_back(0);
    c.bias.push_back(bias(gen));
  }
  return c;
}

TEST(QperfPrimitiveCache, AlternatingCallsEqualRef) {
  std::mt19937 gen(5);
  //                      in  out  groups kh kw sh sw ph pw dh dw
  const QConvGeometry dw{24, 24, 24, 3, 3, 1, 1, 1, 1, 1, 1};
  const QConvGeometry dw2{24, 24, 24, 3, 3, 2, 2, 1, 1, 1, 1};
  const QConvGeometry pw{24, 40, 1, 1, 1, 1, 1, 0, 0, 1, 1};
  const QConvGeometry odd{5, 7, 1, 3, 2, 2, 1, 1, 0, 1, 1};
  std::vector<Case> cases{make_case(gen, dw, 13, 11), make_case(gen, dw2, 13, 11),
                          make_case(gen, pw, 9, 9), make_case(gen, odd, 7, 10),
                          make_case(gen, dw, 13, 11)};  // same shape as the first, other weights
  std::uniform_int_distribution<int> code(0, 255);
  const int threads_before = get_num_threads();
  for (QFormula f : {QFormula::Onednn, QFormula::Qnnpack}) {
    std::vector<std::unique_ptr<PackedQConv2d>> packs;
    for (const Case& c : cases) {
      packs.push_back(PackedQConv2d::create(f, c.g, c.weight.data(), c.scales.data(),
                                            c.zero_points.data(), c.g.out_channels,
                                            c.bias.data()));
    }
    for (int round = 0; round < 3; ++round) {
      for (int threads : {1, 2}) {
        set_num_threads(threads);
        for (size_t i = 0; i < cases.size(); ++i) {
          const Case& c = cases[i];
          for (int64_t n : {1, 2, 0}) {
            for (bool relu : {false, true}) {
              const double x_scale = round == 2 ? 0.05 : 0.03, y_scale = 0.07 + 0.01 * i;
              const int64_t zx = 100 + round, zy = relu ? 3 : 120;
              std::vector<uint8_t> x(n * c.h * c.w * c.g.in_channels);
              for (auto& v : x) v = static_cast<uint8_t>(code(gen));
              const int64_t out = n * c.g.out_h(c.h) * c.g.out_w(c.w) * c.g.out_channels;
              std::vector<uint8_t> y(out, 1), want(out, 2);
              packs[i]->run(x.data(), n, c.h, c.w, x_scale, zx, y.data(), y_scale, zy, relu);
              qconv2d_ref(f, c.g, c.weight.data(), c.scales.data(), c.zero_points.data(),
                          c.g.out_channels, c.bias.data(), x.data(), n, c.h, c.w, x_scale, zx,
                          want.data(), y_scale, zy, relu);
              ASSERT_EQ(y, want) << "case " << i << " formula " << static_cast<int>(f)
                                 << " round " << round << " threads " << threads << " n " << n
                                 << " relu " << relu;
            }
          }
        }
      }
    }
  }
  set_num_threads(threads_before);
}

TEST(QperfPrimitiveCache, LinearAlternatingBatchEqualsRef) {
  std::mt19937 gen(9);
  std::uniform_int_distribution<int> wcode(-127, 127), xcode(0, 255);
  const int64_t K = 37, O = 19;
  std::vector<int8_t> w(K * O);
  for (auto& v : w) v = static_cast<int8_t>(wcode(gen));
  std::vector<double> scales(O, 0.01);
  std::vector<int64_t> zps(O, 0);
  std::vector<float> bias(O, 0.25f);
  auto p = PackedQLinear::create(QFormula::Onednn, K, O, w.data(), scales.data(), zps.data(), O,
                                 bias.data());
  for (int round = 0; round < 2; ++round) {
    for (int64_t m : {1, 5, 1, 64, 3}) {
      std::vector<uint8_t> x(m * K);
      for (auto& v : x) v = static_cast<uint8_t>(xcode(gen));
      std::vector<uint8_t> y(m * O, 1), want(m * O, 2);
      p->run(x.data(), m, 0.04, 128, y.data(), 0.1, 64, false);
      qlinear_ref(QFormula::Onednn, K, O, w.data(), scales.data(), zps.data(), O, bias.data(),
                  x.data(), m, 0.04, 128, want.data(), 0.1, 64, false);
      ASSERT_EQ(y, want) << "m " << m << " round " << round;
    }
  }
}

}  // namespace
}  // namespace ember::cpu::quantized
