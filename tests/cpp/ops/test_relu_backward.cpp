// relu's backward is the threshold_backward op (one fused kernel): without and with create_graph
// (where it records ThresholdBackwardBackward0) it gives the same values and layout, a NaN
// result passing the gradient and a zero result blocking it, in NCHW and channels_last, float32
// and float64.
#include <gtest/gtest.h>

#include <cmath>

#include "../testing.h"
#include "ember/autograd/autograd.h"

namespace ember {
namespace {

TEST(ReluBackward, FusedAndGraphPathsAgree) {
  const double nan = std::nan("");
  for (ScalarType dt : {kFloat32, kFloat64}) {
    for (bool cl : {false, true}) {
      Tensor base = testing::from_values({-1, 0, 2, nan, 3, -0.5, 0.25, -2, 1, 0, nan, 4}, {1, 3, 2, 2}, dt);
      if (cl) base = base.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
      Tensor go = testing::iota({1, 3, 2, 2}, dt, 1.0);
      for (bool inplace : {false, true}) {
        Tensor x = base.clone().requires_grad_();
        Tensor y = inplace ? x.clone().relu_() : x.relu();
        auto fused = autograd::grad({y}, {x}, {go}, true, false);
        // A grad_output that requires grad: the create_graph result is differentiable in it.
        auto graph = autograd::grad({y}, {x}, {go.clone().requires_grad_()}, true, true);
        EXPECT_FALSE(fused[0].requires_grad());
        EXPECT_TRUE(graph[0].requires_grad());
        const std::vector<double> expect{0, 0, 3, 4, 5, 0, 7, 0, 9, 0, 11, 12};
        testing::expect_values(fused[0], {1, 3, 2, 2}, expect, 0, 0);
        testing::expect_values(graph[0], {1, 3, 2, 2}, expect, 0, 0);
        EXPECT_EQ(fused[0].strides().vec(), graph[0].strides().vec());
      }
    }
  }
}

}  // namespace
}  // namespace ember
