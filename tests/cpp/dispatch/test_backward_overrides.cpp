// The override layers across backward (issue 12): torch_dispatch handlers see the ops backward
// runs (ones_like whole, the detaches of Note [Detach through the dispatch layer]), so a
// wrapper's gradient is a wrapper; backward's formulas stay below the function layer (Note
// [Backward and torch_function]); the function-mode stack of src/dispatch/layers.h.
#include "../../../src/dispatch/layers.h"
#include <cmath>

#include "ember/autograd/autograd.h"
#include "subclasses.h"

namespace ember {
namespace {

using dispatch::local_state;
using testing::DispatchTest;
using testing::expect_values;
using testing::LogDispatchMode;
using testing::LogFunctionMode;
using testing::make_tensor;
using testing::unwrap;
using testing::wrap;
using testing::wrapper_of;

using BackwardOverrides = DispatchTest;

TEST_F(BackwardOverrides, WrapperGradientIsAWrapperMadeByItsHandler) {
  Tensor w = wrap(make_tensor({1, 2, 3}, {3}));
  w.requires_grad_(true);
  Tensor y = (w * 2).sum();
  take_log();
  y.backward();
  EXPECT_EQ(take_log(), (Log{"Wrapper:aten::ones_like", "Wrapper:aten::expand",
                             "Wrapper:aten::mul.Tensor", "Wrapper:aten::detach",
                             "Wrapper:aten::detach"}));
  ASSERT_NE(wrapper_of(w.grad()), nullptr);
  expect_values(unwrap(w.grad()), {3}, {2, 2, 2});
  (w * 2).sum().backward();  // accumulates in place, on the wrapper
  take_log();
  expect_values(unwrap(w.grad()), {3}, {4, 4, 4});
}

TEST_F(BackwardOverrides, ModeSeesSavedOutputsDetachedAndOnesLikeWhole) {
  Tensor x = make_tensor({0, 1}, {2});
  x.requires_grad_(true);
  DispatchModeGuard mode(make_intrusive<LogDispatchMode>("mode"));
  Tensor y = x.exp().sum();
  y.backward();
  EXPECT_EQ(take_log(),
            (Log{"mode:aten::exp", "mode:aten::detach", "mode:aten::sum", "mode:aten::ones_like",
                 "mode:aten::expand", "mode:aten::detach", "mode:aten::mul.Tensor",
                 "mode:aten::detach", "mode:aten::detach"}));
  EXPECT_NEAR(x.grad()[1].item().to_double(), std::exp(1.0), 1e-5);
  take_log();
}

TEST_F(BackwardOverrides, FormulasStayBelowTheFunctionLayer) {
  Tensor x = make_tensor({1, 2}, {2});
  x.requires_grad_(true);
  Tensor h = x * 2;
  h.retain_grad();  // its hook is the engine's too: clone and add stay hidden
  Tensor y = (h * h).sum();
  {
    FunctionModeGuard mode(make_intrusive<LogFunctionMode>("fmode"));
    y.backward();
  }
  // Only the ones_like backward starts from (PyTorch makes it in Python): not expand, mul, ...
  EXPECT_EQ(take_log(), Log{"fmode:aten::ones_like"});
  expect_values(x.grad(), {2}, {8, 16});
  expect_values(h.grad(), {2}, {4, 8});
}

TEST_F(BackwardOverrides, FunctionModeStackIsOneStack) {
  auto a = make_intrusive<LogFunctionMode>("a");
  auto b = make_intrusive<LogFunctionMode>("b");
  EXPECT_EQ(dispatch::function_mode_count(), 0u);
  Tensor one = ones({1});
  {
    FunctionModeGuard ga(a);
    dispatch::push_function_mode(b);
    EXPECT_EQ(dispatch::function_mode_count(), 2u);
    EXPECT_EQ(dispatch::function_mode_at(1), b.get());
    EXPECT_TRUE(local_state().included.has(DispatchKey::FunctionOverride));
    ember::add(one, one);
    EXPECT_EQ(take_log(), Log{"b:aten::add.Tensor"});  // the innermost only; it redispatches
    EXPECT_EQ(dispatch::pop_function_mode().get(), b.get());
  }
  EXPECT_EQ(dispatch::function_mode_count(), 0u);
  EXPECT_FALSE(local_state().included.has(DispatchKey::FunctionOverride));
  testing::expect_error([] { dispatch::pop_function_mode(); },
                        "trying to pop from an empty torch function mode stack");
}

TEST_F(BackwardOverrides, LikeFactoriesReachTheDispatchLayerWhole) {
  Tensor t = ones({2, 2});
  DispatchModeGuard mode(make_intrusive<LogDispatchMode>("mode"));
  zeros_like(t);
  ones_like(t);
  empty_like(t);
  full_like(t, 3);
  EXPECT_EQ(take_log(), (Log{"mode:aten::zeros_like", "mode:aten::ones_like",
                             "mode:aten::empty_like", "mode:aten::full_like"}));
  EXPECT_FALSE(find_op("aten::ones_like").is_composite());
}

}  // namespace
}  // namespace ember
