// ember::utils::checkpoint (Note [Non-reentrant checkpoint]): gradients equal the uncheckpointed
// run's (with dropout, from the saved RNG state), the function runs once more in backward and
// not at all without one, parameters captured by the function get gradients, saved activations
// are not kept, retain_graph reuses the recomputation, and a nondeterministic function is caught.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/ember.h"

namespace ember {
namespace {

using autograd::tensor_list;

TEST(Checkpoint, GradientsEqualTheUncheckpointedRun) {
  manual_seed(3);
  nn::Linear lin(5, 4);
  Tensor x = randn({6, 5}).requires_grad_();
  int runs = 0;
  auto block = [&](const tensor_list& in) -> tensor_list {
    ++runs;
    return {nn::functional::dropout(lin.forward(in[0]).tanh(), 0.5, true)};
  };
  manual_seed(11);
  Tensor ref = block({x})[0].pow(2).sum();
  ref.backward();
  const Tensor gx = x.grad().clone(), gw = lin.weight().grad().clone();
  x.set_grad(Tensor());
  lin.weight().set_grad(Tensor());
  lin.bias().set_grad(Tensor());

  manual_seed(11);
  runs = 0;
  Tensor y = utils::checkpoint(block, {x})[0].pow(2).sum();
  EXPECT_EQ(runs, 1);
  const Tensor after_forward = get_rng_state();
  y.backward();
  EXPECT_EQ(runs, 2);                                  // recomputed once
  EXPECT_TRUE(equal(get_rng_state(), after_forward));  // the caller's RNG is left alone
  EXPECT_TRUE(equal(x.grad(), gx));
  EXPECT_TRUE(equal(lin.weight().grad(), gw));
}

TEST(Checkpoint, ParametersGetGradientsWithoutInputsThatRequireGrad) {
  nn::Linear lin(3, 2);
  Tensor x = randn({4, 3});
  Tensor y = utils::checkpoint([&](const tensor_list& in) -> tensor_list { return {lin.forward(in[0]).relu()}; },
                               {x})[0];
  ASSERT_TRUE(y.requires_grad());
  y.sum().backward();
  ASSERT_TRUE(lin.weight().grad().defined());
  EXPECT_TRUE(equal(lin.bias().grad(), (lin.forward(x) > 0).to(kFloat32).sum(0)));
}

TEST(Checkpoint, KeepsNoActivations) {
  Tensor x = randn({8}).requires_grad_();
  int packs = 0;
  Tensor y;
  {
    // Count what the inner graph would have kept: the checkpoint's placeholders replace them.
    autograd::SavedTensorsHooksGuard outer([&](const Tensor& t) { ++packs; return t; },
                                           [](const Tensor& t) { return t; });
    y = utils::checkpoint([](const tensor_list& in) -> tensor_list { return {in[0].exp().sin()}; }, {x})[0];
  }
  EXPECT_EQ(packs, 0);  // the innermost pair (the checkpoint's) took every save
  y.sum().backward();
  EXPECT_TRUE(allclose(x.grad(), x.detach().exp() * x.detach().exp().cos()));
}

TEST(Checkpoint, RetainGraphReusesTheRecomputation) {
  Tensor x = randn({5}, kFloat64).requires_grad_();
  int runs = 0;
  Tensor y = utils::checkpoint([&](const tensor_list& in) -> tensor_list { ++runs; return {in[0].pow(3)}; },
                               {x})[0].sum();
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  EXPECT_EQ(runs, 2);
  EXPECT_TRUE(allclose(x.grad(), x.detach().pow(2) * 6.0));
}

TEST(Checkpoint, NondeterministicFunctionIsCaught) {
  Tensor x = randn({3}).requires_grad_();
  int runs = 0;
  Tensor y = utils::checkpoint([&](const tensor_list& in) -> tensor_list {
                                 Tensor t = in[0].exp();
                                 if (runs++ > 0) t = t.sin().cos();  // saves more the second time
                                 return {t};
                               },
                               {x})[0].sum();
  testing::expect_error([&] { y.backward(); }, "the recomputation saved more tensors than the forward did");
}

}  // namespace
}  // namespace ember
