// The fast max_pool2d kernels (Note [Fast max pooling]) against their *_ref loops: values and
// indices bit for bit, with ties, NaNs and -inf windows, over the tile path (no clipped window),
// the row path (padding, ceil_mode), channels_last and strided inputs, and three dtypes; and the
// backward's scatter, overlapping windows included.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "../testing.h"
#include "backends/cpu/pooling_kernels.h"
#include "ember/ember.h"

namespace ember {
namespace {

using cpu::Pool2dParams;

// Few distinct values (many ties), a NaN every 23rd element and -inf runs.
Tensor tricky(IntArrayRef sizes) {
  Tensor t = empty(sizes, kFloat64);
  double* p = t.data_ptr<double>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int64_t k = (i * 7919) % 13;
    p[i] = k == 5 && i % 23 == 0 ? std::nan("") : k < 2 ? -std::numeric_limits<double>::infinity()
                                                        : static_cast<double>(k % 4);
  }
  return t;
}

void expect_same(const Tensor& a, const Tensor& b) {
  const auto va = testing::values(a), vb = testing::values(b);
  ASSERT_EQ(va.size(), vb.size());
  for (size_t i = 0; i < va.size(); ++i) {
    if (std::isnan(vb[i])) {
      EXPECT_TRUE(std::isnan(va[i])) << "at " << i;
    } else {
      EXPECT_EQ(va[i], vb[i]) << "at " << i;
    }
  }
}

struct Case {
  std::vector<int64_t> sizes;
  Pool2dParams p;
  bool ceil;
};

TEST(PoolingKernels, MaxPoolFastMatchesRef) {
  const std::vector<Case> cases = {
      {{2, 3, 8, 8}, {2, 2, 2, 2, 0, 0, 1, 1}, false},    // tiles: the digits CNN's pools
      {{3, 2, 4, 4}, {2, 2, 2, 2, 0, 0, 1, 1}, false},    // tiles spanning many planes
      {{2, 2, 9, 7}, {3, 2, 2, 1, 0, 0, 1, 1}, false},    // tiles, overlapping windows
      {{2, 2, 9, 11}, {2, 3, 1, 2, 0, 0, 2, 2}, false},   // tiles, dilation
      {{1, 2, 70, 150}, {3, 3, 2, 2, 1, 1, 1, 1}, false}, // rows: padding, rows > one tile
      {{2, 2, 7, 7}, {3, 3, 2, 2, 1, 1, 1, 1}, false},    // rows: small, padding
      {{2, 2, 8, 9}, {3, 3, 2, 2, 0, 0, 1, 1}, true},     // rows: ceil_mode clips the last
      {{2, 2, 7, 9}, {3, 2, 2, 1, 1, 0, 2, 1}, true},     // rows: dilation, padding, ceil
  };
  for (const Case& c : cases) {
    for (ScalarType dt : {kFloat32, kFloat64, kBFloat16}) {
      for (int layout = 0; layout < 3; ++layout) {
        Tensor x = tricky(c.sizes).to(dt);
        if (layout == 1) x = x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
        if (layout == 2) {  // unit columns, padded rows: a strided view
          std::vector<int64_t> big = c.sizes;
          big[3] += 3;
          x = tricky(big).to(dt).narrow(3, 1, c.sizes[3]);
        }
        const Pool2dParams& p = c.p;
        auto [shape_out, shape_idx] = max_pool2d_with_indices(
            x, {p.kh, p.kw}, {p.sh, p.sw}, {p.ph, p.pw}, {p.dh, p.dw}, c.ceil);
        Tensor o1 = empty(shape_out.sizes(), dt), i1 = empty(shape_out.sizes(), kInt64);
        Tensor o2 = empty(shape_out.sizes(), dt), i2 = empty(shape_out.sizes(), kInt64);
        cpu::max_pool2d_kernel(o1, i1, x, p);
        cpu::max_pool2d_kernel_ref(o2, i2, x, p);
        SCOPED_TRACE(::testing::Message() << "sizes " << x.sizes() << " k " << p.kh << "x" << p.kw
                                          << " dtype " << scalar_type_name(dt) << " layout " << layout);
        expect_same(o1, o2);
        expect_same(i1, i2);
        expect_same(shape_out, o2);  // the op (whichever path) agrees too
        expect_same(shape_idx, i2);

        // Backward: the flat-index scatter against the division one (duplicates add in order).
        Tensor go = testing::iota(shape_out.sizes(), dt, 1.0) * 0.25;
        Tensor g1 = empty(x.sizes(), dt), g2 = empty(x.sizes(), dt);
        g1.fill_(7.0);  // the kernels zero their output first
        cpu::max_pool2d_backward_kernel(g1, go, i2);
        cpu::max_pool2d_backward_kernel_ref(g2, go, i2);
        expect_same(g1, g2);
      }
    }
  }
}

TEST(PoolingKernels, MaxPoolChannelsLastMatchesRef) {
  // Note [Channels-last max pooling]: 8-channel float32 blocks plus a lane-by-lane tail
  // (19 = 8 + 8 + 3; 8 exactly; 5 only the tail), clipped windows, dilation, ceil_mode.
  const std::vector<Case> cases = {
      {{2, 19, 9, 9}, {3, 3, 2, 2, 1, 1, 1, 1}, false},  // ResNet's stem pool
      {{1, 8, 7, 10}, {2, 3, 2, 1, 1, 0, 2, 2}, true},
      {{2, 5, 6, 6}, {2, 2, 2, 2, 0, 0, 1, 1}, false},
  };
  for (const Case& c : cases) {
    for (ScalarType dt : {kFloat32, kFloat64, kBFloat16}) {
      const Tensor x = tricky(c.sizes).to(dt).contiguous(MemoryFormat::ChannelsLast);
      const Pool2dParams& p = c.p;
      auto [o1, i1] = max_pool2d_with_indices(x, {p.kh, p.kw}, {p.sh, p.sw}, {p.ph, p.pw},
                                              {p.dh, p.dw}, c.ceil);
      ASSERT_TRUE(o1.is_contiguous(MemoryFormat::ChannelsLast));  // so the channels_last loop ran
      Tensor o2 = empty(o1.sizes(), dt), i2 = empty(o1.sizes(), kInt64);
      cpu::max_pool2d_kernel_ref(o2, i2, x, p);
      SCOPED_TRACE(::testing::Message() << "sizes " << x.sizes() << " dtype " << scalar_type_name(dt));
      expect_same(o1, o2);
      expect_same(i1, i2);
    }
  }
}

TEST(PoolingKernels, MaxPoolTiesNanAndInfAsTorch) {
  // torch 1.13: ties take the first maximum; with NaNs the last NaN wins; an all -inf window
  // keeps its first index.
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  Tensor x = testing::from_values({1, 1, nan, 2, -inf, -inf, 1, 0, nan, 3, -inf, -inf}, {1, 1, 2, 6});
  auto [y, idx] = max_pool2d_with_indices(x, {2, 2}, {2, 2});
  testing::expect_values(y, {1, 1, 1, 3}, {1, nan, -inf});
  testing::expect_values(idx, {1, 1, 1, 3}, {0, 8, 4}, 0, 0);
}

}  // namespace
}  // namespace ember
