// Kernels added for the int8 model's speed, against their scalar references bit for bit:
// the NCHW -> NHWC reordering of codes (the convolutions' input), and the vectorised generic
// quantized add at the edges of its formula (values beyond 2^22 and beyond int32 range, where
// the vector quantizer gives INT32_MIN; zero points at the ends of the code range; ReLU).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "backends/cpu/quantized/qconv.h"
#include "backends/cpu/quantized/qelementwise_kernels.h"

#include "quant/kernel_rng.h"

namespace ember::cpu::quantized {
namespace {

using kernel_test::Rng;

TEST(QLayout, NchwToNhwcEqualsRef) {
  Rng r(7);
  for (int64_t c : {1, 2, 3, 4, 5, 16, 17, 64, 130}) {
    for (int64_t n : {1, 2}) {
      for (int64_t hw : {1, 7, 63, 64, 65, 224 * 3 + 1}) {
        std::vector<uint8_t> x(n * c * hw);
        for (auto& v : x) v = static_cast<uint8_t>(r.i(0, 255));
        std::vector<uint8_t> y(x.size(), 1), want(x.size(), 2);
        nchw_to_nhwc(x.data(), n, c, hw, y.data());
        nchw_to_nhwc_ref(x.data(), n, c, hw, want.data());
        ASSERT_EQ(y, want) << "n " << n << " c " << c << " hw " << hw;
      }
    }
  }
  // The definition itself: element (b, ch, p) lands at (b, p, ch).
  const uint8_t x[12] = {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};  // 1 x 3 x 4
  uint8_t y[12];
  nchw_to_nhwc_ref(x, 1, 3, 4, y);
  const uint8_t want[12] = {0, 10, 20, 1, 11, 21, 2, 12, 22, 3, 13, 23};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(y[i], want[i]) << i;
}

template <class T>
void check_add_edges() {
  Rng r(11);
  const int64_t n = 64 * 5 + 13;  // a vector part and a scalar tail
  std::vector<T> a(n), b(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<T>(r.i(qmin_of<T>(), qmax_of<T>()));
    b[i] = static_cast<T>(r.i(qmin_of<T>(), qmax_of<T>()));
  }
  const QParams ins[] = {{0.02, qmin_of<T>()}, {0.5, qmax_of<T>()}, {1e6, 3}, {3e-5, 0}};
  // Output scales: ordinary, tiny (|x / s| beyond 2^22), tinier (beyond int32).
  const QParams outs[] = {{0.05, (qmin_of<T>() + qmax_of<T>()) / 2}, {1e-6, qmin_of<T>()},
                          {1e-12, qmax_of<T>()}, {7.0, 1}};
  for (const QParams& pa : ins) {
    for (const QParams& pb : ins) {
      for (const QParams& py : outs) {
        for (bool relu : {false, true}) {
          std::vector<T> y(n), want(n);
          qadd_generic<T>(a.data(), b.data(), y.data(), n, n, pa, pb, py, relu);
          qadd_generic_ref<T>(a.data(), b.data(), want.data(), n, n, pa, pb, py, relu);
          ASSERT_EQ(y, want) << "scales " << pa.scale << " " << pb.scale << " " << py.scale
                             << " relu " << relu;
        }
      }
    }
  }
}

TEST(QAddKernel, VectorisedEqualsRefAtTheEdges) {
  check_add_edges<uint8_t>();
  check_add_edges<int8_t>();
}

}  // namespace
}  // namespace ember::cpu::quantized
