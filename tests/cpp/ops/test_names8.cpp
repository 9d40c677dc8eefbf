// names8's ops from C++: segment_reduce (values PyTorch 1.13 gives, its backward, meta, errors),
// choose_qparams_optimized, the fbgemm int8 linear against FBGEMM's steps written out, and the
// quantized cells' shapes.
#include <cmath>
#include <limits>

#include "ember/autograd/autograd.h"
#include "ember/ops/segment_reduce.h"
#include "ember/quantization/fbgemm_legacy.h"
#include "ember/warning.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::from_values;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(SegmentReduce, ValuesAsTorch) {
  const Tensor d = from_values({1, 2, 3, 4, 5, 6}, {6});
  const Tensor L = from_values({2, 0, 3, 1}, {4}, kInt64);
  // torch.segment_reduce(torch.tensor([1., 2, 3, 4, 5, 6]), r, lengths=torch.tensor([2, 0, 3, 1]))
  expect_values(segment_reduce(d, "sum", L), {4}, {3, 0, 12, 6});
  expect_values(segment_reduce(d, "mean", L), {4}, {1.5, kNaN, 4, 6});
  expect_values(segment_reduce(d, "max", L), {4}, {2, -kInf, 5, 6});
  expect_values(segment_reduce(d, "min", L), {4}, {1, kInf, 3, 6});
  expect_values(segment_reduce(d, "prod", L), {4}, {2, 1, 60, 6});
  expect_values(segment_reduce(d, "mean", L, std::nullopt, std::nullopt, 0, false, Scalar(2.5)), {4},
                {2.75, 2.5, 4.8333333, 8.5});
  const Tensor offsets = from_values({0, 2, 2, 5, 6}, {5}, kInt32);
  expect_values(segment_reduce(d, "max", std::nullopt, std::nullopt, offsets), {4}, {2, -kInf, 5, 6});
}

TEST(SegmentReduce, BackwardMetaAndErrors) {
  const Tensor d = from_values({3, 1, 3, -2, -2, 0}, {6}, kFloat64).requires_grad_(true);
  const Tensor L = from_values({3, 3}, {2}, kInt64);
  const Tensor out = segment_reduce(d, "max", L);
  EXPECT_EQ(out.grad_fn()->name(), "SegmentReduceBackward0");
  auto g = autograd::grad({out}, {d}, {from_values({-1, 2}, {2}, kFloat64)});
  // tied maxima: torch divides only positive gradients among them
  expect_values(g[0], {6}, {-1, 0, -1, 0, 0, 2});
  const Tensor m = segment_reduce(empty({6, 3}, TensorOptions(kFloat32).device(Device("meta"))), "sum", L);
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.sizes().vec(), (std::vector<int64_t>{2, 3}));
  expect_error([&] { segment_reduce(d.detach(), "foo", L); }, "unsupported reduction given! foo");
  expect_error([&] { segment_reduce(d.detach(), "sum"); }, "Either lengths or offsets must be defined");
  expect_error([&] { segment_reduce(d.detach(), "sum", from_values({2, 2}, {2}, kInt64)); },
               "Expected all rows of lengths along axis to sum");
  expect_error([&] { segment_reduce(d.detach().to(kInt64), "sum", L); },
               "\"_segment_reduce_cpu\" not implemented for 'Long'");
}

TEST(ChooseQparamsOptimized, ConstantAndErrors) {
  auto [mx, mn] = choose_qparams_optimized(ones({10}), 10, 200, 0.16, 4);
  expect_values(mx, {1}, {1});
  expect_values(mn, {1}, {1});
  // a range search never widens the range
  const Tensor x = from_values({-3, -1, 0, 0.5, 2, 4, 4.5, -2.5}, {8});
  auto [hi, lo] = choose_qparams_optimized(x, 8, 100, 0.5, 2);
  EXPECT_LE(hi.item<float>(), 4.5f);
  EXPECT_GE(lo.item<float>(), -3.0f);
  expect_error([&] { choose_qparams_optimized(x, 9, 200, 0.16, 8); }, "numel 9 greater than input_tensor.numel() 8");
}

TEST(Fbgemm, Int8LinearIsItsIntegerDefinition) {
  WarningCapture quiet;
  const Tensor w = from_values({0.5, -1.0, 0.25, 2.0, -0.75, 1.5}, {2, 3});
  auto [q, col, scale, zp] = fbgemm_linear_quantize_weight(w);
  ASSERT_EQ(q.dtype(), kInt8);
  const Tensor packed = fbgemm_pack_quantized_matrix(q);
  const Tensor x = from_values({1.0, -2.0, 0.5, 0.0, 3.0, -1.0}, {2, 3});
  const Tensor b = from_values({0.1, -0.2}, {2});
  const Tensor y = fbgemm_linear_int8_weight_fp32_activation(x, q, packed, col, scale, zp, b);
  // FBGEMM's steps in float, written out: the activation's uint8 parameters over
  // [min(x, 0), max(x, 0)] = [-2, 3], x * (1 / scale) + zero_point fused and rounded half to even
  // (at x = 0.5 the float inverse and a division round to different sides of 127.5), int32
  // products without the zero points' cross terms, then scaled and biased.
  const float a_scale = static_cast<float>(5.0 / 255.0);
  const int32_t a_zp = 102;  // round(2 / a_scale)
  const float inv = 1.0f / a_scale;
  const std::vector<double> xs = testing::values(x), qs = testing::values(q), bs = testing::values(b);
  const Tensor yc = y.contiguous();
  for (int m = 0; m < 2; ++m) {
    for (int n = 0; n < 2; ++n) {
      int32_t raw = 0;
      for (int k = 0; k < 3; ++k) {
        const float xq = std::clamp(std::nearbyint(std::fma(static_cast<float>(xs[m * 3 + k]), inv,
                                                            static_cast<float>(a_zp))), 0.0f, 255.0f);
        raw += (static_cast<int32_t>(xq) - a_zp) * (static_cast<int32_t>(qs[n * 3 + k]) - static_cast<int32_t>(zp));
      }
      float want = static_cast<float>(raw) * a_scale * static_cast<float>(scale);
      want += static_cast<float>(bs[n]);
      EXPECT_EQ(yc.data_ptr<float>()[m * 2 + n], want) << m << ", " << n;
    }
  }
  expect_error([&] { fbgemm_linear_int8_weight_fp32_activation(x, q, zeros({8}, kUInt8), col, scale, zp, b); },
               "expected a packed weight made by fbgemm_pack_quantized_matrix");
}

TEST(Fbgemm, QuantizedCellsShapes) {
  WarningCapture quiet;
  const Tensor w_ih = randn({12, 3}), w_hh = randn({12, 3}), b = randn({12});
  auto [qi, ci, si, zi] = fbgemm_linear_quantize_weight(w_ih);
  auto [qh, ch, sh, zh] = fbgemm_linear_quantize_weight(w_hh);
  const Tensor pi = fbgemm_pack_quantized_matrix(qi), ph = fbgemm_pack_quantized_matrix(qh);
  const Tensor x = randn({2, 3}), h = randn({2, 3}), c = randn({2, 3});
  auto [hy, cy] = quantized_lstm_cell(x, std::vector<Tensor>{h, c}, qi, qh, b, b, pi, ph, ci, ch, si, sh, zi, zh);
  EXPECT_EQ(hy.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(cy.sizes().vec(), (std::vector<int64_t>{2, 3}));
}

}  // namespace
}  // namespace ember
