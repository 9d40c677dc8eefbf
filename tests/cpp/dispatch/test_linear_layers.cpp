// The acceptance test: an override at the function layer sees the public op (linear);
// one at the dispatch layer (a wrapper subclass with virtual hooks) sees the primitive ops it
// decomposes into — as in PyTorch 1.13: t, then addmm with a bias, mm without.
#include "subclasses.h"

namespace ember {
namespace {

using testing::DispatchTest;
using testing::expect_values;
using testing::function_sub;
using testing::LogDispatchMode;
using testing::LogFunctionMode;
using testing::make_tensor;
using testing::unwrap;
using testing::wrap;
using testing::Wrapper;
using testing::wrapper_of;

using LinearLayers = DispatchTest;

// x [2, 3], w [4, 3], b [4]. x @ w.T = [[-2, 4, 5, 6], [-2, 13, 11, 15]] (by hand).
Tensor input() { return make_tensor({1, 2, 3, 4, 5, 6}, {2, 3}); }
Tensor weight() { return make_tensor({1, 0, -1, 2, 1, 0, 0, 1, 1, 1, 1, 1}, {4, 3}); }
Tensor bias() { return make_tensor({0.5, -1, 2, 0}, {4}); }
const std::vector<double> kWithBias = {-1.5, 3, 7, 6, -1.5, 12, 13, 15};
const std::vector<double> kNoBias = {-2, 4, 5, 6, -2, 13, 11, 15};

TEST_F(LinearLayers, FunctionLayerSeesLinearDispatchLayerSeesItsPrimitives) {
  // The function layer: the public op, whole.
  Tensor fx = function_sub(input(), "Fn");
  Tensor y = linear(fx, weight(), bias());
  EXPECT_EQ(take_log(), Log{"Fn:aten::linear"});
  expect_values(y, {2, 4}, kWithBias);

  // The dispatch layer (a wrapper weight): the primitives linear decomposes into.
  Tensor ww = wrap(weight());
  Tensor wy = linear(input(), ww, bias());
  EXPECT_EQ(take_log(), (Log{"Wrapper:aten::t", "Wrapper:aten::addmm"}));
  ASSERT_NE(wrapper_of(wy), nullptr);
  expect_values(unwrap(wy), {2, 4}, kWithBias);
  Tensor wn = linear(input(), ww);
  EXPECT_EQ(take_log(), (Log{"Wrapper:aten::t", "Wrapper:aten::mm"}));
  expect_values(unwrap(wn), {2, 4}, kNoBias);

  // One subclass with both hooks sees both: linear above, its primitives below.
  Wrapper::with_function = true;
  Tensor both = wrap(weight());
  Tensor by = linear(input(), both, bias());
  EXPECT_EQ(take_log(),
            (Log{"Wrapper.function:aten::linear", "Wrapper:aten::t", "Wrapper:aten::addmm"}));
  expect_values(unwrap(by), {2, 4}, kWithBias);
}

TEST_F(LinearLayers, ModesSeeTheSameSplit) {
  Tensor x = input(), w = weight(), b = bias();
  Tensor y;
  {
    FunctionModeGuard fmode(make_intrusive<LogFunctionMode>("function"));
    DispatchModeGuard dmode(make_intrusive<LogDispatchMode>("dispatch"));
    y = linear(x, w, b);
  }
  EXPECT_EQ(take_log(), (Log{"function:aten::linear", "dispatch:aten::t", "dispatch:aten::addmm"}));
  expect_values(y, {2, 4}, kWithBias);
}

}  // namespace
}  // namespace ember
