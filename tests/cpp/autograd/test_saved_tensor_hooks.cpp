// Saved-tensor hooks from C++ (Note [Saved tensor hooks]): pack / unpack calls, what the graph
// keeps, history re-attached for double backward, the in-place check, nesting, the disabling
// guard, and custom Functions' saved tensors.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/ember.h"

namespace ember {
namespace {

using autograd::SavedTensorsHooksGuard;

TEST(SavedTensorHooks, PackAndUnpackRunAroundTheGraph) {
  Tensor a = ones({3}).requires_grad_();
  Tensor b = full({3}, 2.0).requires_grad_();
  int packs = 0, unpacks = 0;
  Tensor y;
  {
    SavedTensorsHooksGuard hooks([&](const Tensor& t) { ++packs; return t.clone(); },
                                 [&](const Tensor& p) { ++unpacks; return p; });
    y = (a * b).sum();
  }
  EXPECT_EQ(packs, 2);  // mul saves both operands
  EXPECT_EQ(unpacks, 0);
  y.backward();
  EXPECT_EQ(unpacks, 2);
  EXPECT_TRUE(equal(a.grad(), b.detach()));
  EXPECT_TRUE(equal(b.grad(), a.detach()));
}

TEST(SavedTensorHooks, WhatPackReturnsIsWhatBackwardSees) {
  // Keep a bfloat16 copy: the gradient is computed from the rounded values.
  Tensor x = testing::from_values({1.0, 1.00390625 + 0.001, 3.0}, {3}, kFloat32).requires_grad_();
  Tensor y;
  {
    SavedTensorsHooksGuard hooks([](const Tensor& t) { return t.to(kBFloat16); },
                                 [](const Tensor& p) { return p.to(kFloat32); });
    y = (x * x).sum();
  }
  y.backward();
  EXPECT_TRUE(equal(x.grad(), x.detach().to(kBFloat16).to(kFloat32) * 2.0));
  EXPECT_FALSE(equal(x.grad(), x.detach() * 2.0));
}

TEST(SavedTensorHooks, NoVersionCheckOnPackedTensors) {
  Tensor c = ones({3}).requires_grad_() * 1.0;
  Tensor d;
  {
    SavedTensorsHooksGuard hooks([](const Tensor& t) { return t.clone(); }, [](const Tensor& p) { return p; });
    d = (c * c).sum();
  }
  {
    NoGradGuard no_grad;
    c.add_(1.0);  // would make an unhooked backward refuse
  }
  EXPECT_NO_THROW(d.backward());
}

TEST(SavedTensorHooks, DoubleBackwardThroughUnpackedTensors) {
  Tensor a = full({3}, 2.0, kFloat64).requires_grad_();
  Tensor w;
  {
    SavedTensorsHooksGuard hooks([](const Tensor& t) { return t * 1.0; }, [](const Tensor& p) { return p; });
    w = (a * a * a).sum();
  }
  Tensor g = autograd::grad({w}, {a}, {}, std::nullopt, /*create_graph=*/true)[0];
  EXPECT_TRUE(equal(g.detach(), full({3}, 12.0, kFloat64)));  // 3 a^2
  g.sum().backward();
  EXPECT_TRUE(equal(a.grad(), full({3}, 12.0, kFloat64)));  // 6 a
}

TEST(SavedTensorHooks, PackMustNotModifyItsInput) {
  Tensor a = ones({2}).requires_grad_();
  SavedTensorsHooksGuard hooks([](const Tensor& t) { return t.detach().add_(0.0); },
                               [](const Tensor& p) { return p; });
  testing::expect_error([&] { (a * 1.0).exp(); }, "A saved tensor pack hook is modifying its input in place.");
}

TEST(SavedTensorHooks, InnermostPairAppliesAndHooksArePerThread) {
  Tensor a = ones({2}).requires_grad_();
  int outer = 0, inner = 0, other_thread = 0;
  SavedTensorsHooksGuard o([&](const Tensor& t) { ++outer; return t; }, [](const Tensor& p) { return p; });
  {
    SavedTensorsHooksGuard i([&](const Tensor& t) { ++inner; return t; }, [](const Tensor& p) { return p; });
    (void)(a * a);
  }
  EXPECT_EQ(inner, 2);
  EXPECT_EQ(outer, 0);
  std::thread([&] {
    Tensor z = a * a;  // no hooks on this thread
    other_thread = z.defined() ? 1 : 0;
  }).join();
  EXPECT_EQ(other_thread, 1);
  EXPECT_EQ(outer, 0);
  EXPECT_EQ(inner, 2);
}

TEST(SavedTensorHooks, DisablingGuard) {
  {
    autograd::DisableSavedTensorsHooksGuard off("hooks are off here");
    testing::expect_error(
        [] { SavedTensorsHooksGuard h([](const Tensor& t) { return t; }, [](const Tensor& p) { return p; }); },
        "hooks are off here");
  }
  SavedTensorsHooksGuard h([](const Tensor& t) { return t; }, [](const Tensor& p) { return p; });
  testing::expect_error([] { autograd::DisableSavedTensorsHooksGuard off("not while pushed"); },
                        "not while pushed");
  EXPECT_FALSE(autograd::saved_tensors_hooks_disabled_message().has_value());
}

struct Square : autograd::Function<Square> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static autograd::tensor_list backward(autograd::AutogradContext* ctx, autograd::tensor_list g) {
    return {g[0] * ctx->get_saved_variables()[0] * 2.0};
  }
};

TEST(SavedTensorHooks, CustomFunctionsSavedTensorsArePacked) {
  Tensor x = full({2}, 3.0, kFloat64).requires_grad_();
  int packs = 0, unpacks = 0;
  Tensor y;
  {
    SavedTensorsHooksGuard hooks([&](const Tensor& t) { ++packs; return t.clone(); },
                                 [&](const Tensor& p) { ++unpacks; return p; });
    y = Square::apply(x).sum();
  }
  EXPECT_EQ(packs, 1);
  y.backward();
  EXPECT_EQ(unpacks, 1);
  EXPECT_TRUE(equal(x.grad(), full({2}, 6.0, kFloat64)));
}

TEST(SavedTensorHooks, ReleasedGraphStillRefusesASecondBackward) {
  Tensor a = ones({2}).requires_grad_();
  Tensor y;
  {
    SavedTensorsHooksGuard hooks([](const Tensor& t) { return t.clone(); }, [](const Tensor& p) { return p; });
    y = (a * a).sum();
  }
  y.backward();
  testing::expect_error([&] { y.backward(); }, "Trying to backward through the graph a second time");
}

}  // namespace
}  // namespace ember
