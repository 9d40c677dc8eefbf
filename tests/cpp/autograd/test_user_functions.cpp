// User-defined Functions in C++: the examples of "Extending torch.autograd" and the error cases
// (texts as PyTorch's, spec §6-7).
#include <gtest/gtest.h>

#include "../../../examples/cpp/autograd_functions.h"
#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/gradcheck.h"
#include "ember/warning.h"

namespace ember {
namespace {

using autograd::AutogradContext;
using autograd::tensor_list;

Tensor randn64(IntArrayRef sizes) { return randn(sizes, kFloat64); }

TEST(UserFunctions, LinearFunctionGradcheckBothStyles) {
  manual_seed(0);
  Tensor x = randn64({4, 3}).requires_grad_();
  Tensor w = randn64({5, 3}).requires_grad_();
  Tensor b = randn64({5}).requires_grad_();
  auto combined = [](const tensor_list& in) {
    return tensor_list{examples::LinearFunction::apply(in[0], in[1], std::optional<Tensor>(in[2]))};
  };
  auto split = [](const tensor_list& in) {
    return tensor_list{examples::LinearFunctionSplit::apply(in[0], in[1], in[2])};
  };
  EXPECT_TRUE(autograd::gradcheck(combined, {x, w, b}));
  EXPECT_TRUE(autograd::gradcheck(split, {x, w, b}));
  Tensor y = examples::LinearFunction::apply(x, w, std::optional<Tensor>(b));
  EXPECT_EQ(y.grad_fn()->name(), "LinearFunctionBackward");
  EXPECT_EQ(examples::LinearFunctionSplit::apply(x, w, b).grad_fn()->name(),
            "LinearFunctionSplitBackward");
  // Without a bias: its gradient slot stays undefined.
  Tensor y2 = examples::LinearFunction::apply(x, w, std::optional<Tensor>());
  y2.sum().backward();
  testing::expect_values(x.grad(), {4, 3}, testing::values(w.sum({0}).expand({4, 3})));
}

TEST(UserFunctions, MulConstantWithAndWithoutMaterializedGrads) {
  Tensor x = testing::from_values({1, 2, 3}, {3}, kFloat64).requires_grad_();
  Tensor y = examples::MulConstant::apply(x, 2.5);
  y.sum().backward();
  testing::expect_values(x.grad(), {3}, {2.5, 2.5, 2.5});
  EXPECT_TRUE(autograd::gradcheck(
      [](const tensor_list& in) { return tensor_list{examples::MulConstant::apply(in[0], 3.0)}; },
      {x}));
  // Only the first output is used: the second's gradient arrives undefined (not zeros).
  Tensor z = testing::from_values({1, 2}, {2}, kFloat64).requires_grad_();
  tensor_list outs = examples::MulConstantNoMaterialize::apply(z, 2.0);
  outs[0].sum().backward();
  testing::expect_values(z.grad(), {2}, {2, 2});
}

TEST(UserFunctions, MyCubeDoubleBackwardIsSixX) {
  Tensor x = testing::from_values({1, -2, 0.5}, {3}, kFloat64).requires_grad_();
  tensor_list outs = examples::MyCube::apply(x);
  auto g = autograd::grad({outs[0].sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  testing::expect_values(g[0], {3}, {3, 12, 0.75});
  auto gg = autograd::grad({g[0].sum()}, {x});
  testing::expect_values(gg[0], {3}, {6, -12, 3});
  auto cube = [](const tensor_list& in) { return tensor_list{examples::MyCube::apply(in[0])[0]}; };
  EXPECT_TRUE(autograd::gradcheck(cube, {x}));
  EXPECT_TRUE(autograd::gradgradcheck(cube, {x}));
}

TEST(UserFunctions, MarkDirtyReturnsTheInputWithNewHistory) {
  Tensor leaf = testing::from_values({1, 2}, {2}, kFloat64).requires_grad_();
  Tensor a = leaf * 2.0;
  Tensor out = examples::AddOneInplace::apply(a);
  EXPECT_TRUE(out.is_same(a));
  EXPECT_EQ(a.grad_fn()->name(), "AddOneInplaceBackward");
  testing::expect_values(a, {2}, {3, 5});
  out.sum().backward();
  testing::expect_values(leaf.grad(), {2}, {2, 2});
  testing::expect_error([&] { examples::AddOneInplace::apply(leaf); },
                        "a leaf Variable that requires grad has been used in an in-place operation.");
  testing::expect_values(leaf, {2}, {2, 3});  // the forward ran: PyTorch checks afterwards too
}

struct ReturnsNonInputDirty : autograd::Function<ReturnsNonInputDirty> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    Tensor y = x * 2;
    ctx->mark_dirty({y});
    return y;
  }
  static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0] * 2}; }
};

TEST(UserFunctions, MarkDirtyOnANonInputWarns) {
  Tensor x = ones({2}, kFloat64).requires_grad_();
  WarningCapture warnings;
  ReturnsNonInputDirty::apply(x);
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_EQ(warnings.messages[0],
            "Only input Tensors should be given to ctx.mark_dirty(). If a Tensor is not an input, "
            "there is no need to pass it to mark_dirty().");
}

TEST(UserFunctions, MarkNonDifferentiableIndices) {
  Tensor x = testing::from_values({3, 1, 2}, {3}, kFloat64).requires_grad_();
  tensor_list outs = examples::SortFunction::apply(x);
  EXPECT_TRUE(outs[0].requires_grad());
  EXPECT_FALSE(outs[1].requires_grad());
  testing::expect_values(outs[0], {3}, {1, 2, 3});
  (outs[0] * testing::from_values({10, 20, 30}, {3}, kFloat64)).sum().backward();
  testing::expect_values(x.grad(), {3}, {30, 10, 20});
}

struct SeesIndexGrad : autograd::Function<SeesIndexGrad> {
  static inline Tensor seen;
  static tensor_list forward(AutogradContext* ctx, const Tensor& x) {
    Tensor idx = arange(3, kInt64);
    ctx->mark_non_differentiable({idx});
    return {x * 1, idx};
  }
  static tensor_list backward(AutogradContext*, tensor_list g) {
    seen = g[1];
    return {g[0]};
  }
};

TEST(UserFunctions, NonDifferentiableOutputGetsZerosOfItsDtype) {
  Tensor x = ones({3}, kFloat64).requires_grad_();
  SeesIndexGrad::apply(x)[0].sum().backward();
  ASSERT_TRUE(SeesIndexGrad::seen.defined());
  EXPECT_EQ(SeesIndexGrad::seen.dtype(), kInt64);
  testing::expect_values(SeesIndexGrad::seen, {3}, {0, 0, 0});
}

struct TooFew : autograd::Function<TooFew> {
  static Tensor forward(AutogradContext*, const Tensor& a, const Tensor& b) { return a * b; }
  static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0]}; }
};
struct TooMany : autograd::Function<TooMany> {
  static Tensor forward(AutogradContext*, const Tensor& a) { return a * 2; }
  static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0], g[0]}; }
};
struct ExtraUndefined : autograd::Function<ExtraUndefined> {
  static Tensor forward(AutogradContext*, const Tensor& a) { return a * 2; }
  static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0] * 2, Tensor(), Tensor()}; }
};
struct GradForInt : autograd::Function<GradForInt> {
  static Tensor forward(AutogradContext*, const Tensor& a, int64_t k) { return a * k; }
  static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0], g[0]}; }
};
struct BadShape : autograd::Function<BadShape> {
  static Tensor forward(AutogradContext*, const Tensor& a) { return a * 2; }
  static tensor_list backward(AutogradContext*, tensor_list) { return {ones({4}, kFloat64)}; }
};
struct Float64Grad : autograd::Function<Float64Grad> {
  static Tensor forward(AutogradContext*, const Tensor& a) { return a * 2; }
  static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0].to(kFloat64)}; }
};

TEST(UserFunctions, BackwardResultChecks) {
  Tensor a = ones({3}, kFloat64).requires_grad_();
  Tensor b = ones({3}, kFloat64).requires_grad_();
  testing::expect_error([&] { TooFew::apply(a, b).sum().backward(); },
                        "function TooFewBackward returned an incorrect number of gradients (expected 2, got 1)");
  testing::expect_error([&] { TooMany::apply(a).sum().backward(); },
                        "function TooManyBackward returned an incorrect number of gradients (expected 1, got 2)");
  ExtraUndefined::apply(a).sum().backward();
  testing::expect_values(a.grad(), {3}, {2, 2, 2});
  testing::expect_error([&] { GradForInt::apply(a, int64_t{3}).sum().backward(); },
                        "function GradForIntBackward returned a gradient different that is defined at "
                        "position 2, but the corresponding forward input was not a Variable");
  testing::expect_error([&] { BadShape::apply(a).sum().backward(); },
                        "Function BadShapeBackward returned an invalid gradient at index 0 - got [4] "
                        "but expected shape compatible with [3]");
  Tensor f = ones({3}, kFloat32).requires_grad_();
  Float64Grad::apply(f).sum().backward();
  EXPECT_EQ(f.grad().dtype(), kFloat32);
}

struct SavesTwo : autograd::Function<SavesTwo> {
  static Tensor forward(AutogradContext* ctx, const Tensor& a) {
    Tensor y = a.exp();
    ctx->save_for_backward({y});
    return y;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list g) {
    return {g[0] * ctx->get_saved_variables()[0]};
  }
};

TEST(UserFunctions, SavedTensorsAreVersionCheckedAndFreed) {
  Tensor leaf = ones({3}, kFloat32).requires_grad_();
  Tensor x = leaf * 1.0;
  Tensor y = SavesTwo::apply(x);
  Tensor z = y.sum();
  {
    NoGradGuard no_grad;
    y.add_(1);
  }
  testing::expect_error([&] { z.backward(); },
                        "one of the variables needed for gradient computation has been modified by an "
                        "inplace operation: [ember.FloatTensor [3]], which is output 0 of "
                        "SavesTwoBackward, is at version 1; expected version 0 instead. Hint:");
  Tensor y2 = SavesTwo::apply(x);
  Tensor z2 = y2.sum();
  z2.backward();
  testing::expect_error([&] { z2.backward(); }, "Trying to backward through the graph a second time");
}

struct NeedsGrad : autograd::Function<NeedsGrad> {
  static inline std::vector<bool> seen;
  static Tensor forward(AutogradContext* ctx, const Tensor& a, const Tensor& b, int64_t) {
    seen = {ctx->needs_input_grad(0), ctx->needs_input_grad(1), ctx->needs_input_grad(2)};
    return a * b;
  }
  static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0], Tensor(), Tensor()}; }
};

TEST(UserFunctions, NeedsInputGradAndNoRecording) {
  Tensor a = ones({2}, kFloat64).requires_grad_();
  Tensor b = ones({2}, kFloat64);
  NeedsGrad::apply(a, b, int64_t{3});
  EXPECT_EQ(NeedsGrad::seen, (std::vector<bool>{true, false, false}));
  Tensor out = NeedsGrad::apply(b, b, int64_t{3});
  EXPECT_FALSE(out.requires_grad());
  EXPECT_EQ(out.grad_fn(), nullptr);
}

struct Identity : autograd::Function<Identity> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x; }
  static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0]}; }
};

TEST(UserFunctions, InputReturnedAsIsIsANewViewThatRefusesInplace) {
  Tensor x = ones({3}, kFloat64).requires_grad_();
  Tensor out = Identity::apply(x);
  EXPECT_FALSE(out.is_same(x));
  EXPECT_EQ(out.grad_fn()->name(), "IdentityBackward");
  testing::expect_error([&] { out.mul_(2.0); },
                        "Output 0 of IdentityBackward is a view and is being modified inplace. This "
                        "view was created inside a custom Function (or because an input was returned "
                        "as-is) and the autograd logic to handle view+inplace would override the "
                        "custom backward associated with the custom Function, leading to incorrect "
                        "gradients. This behavior is forbidden. You can fix this by cloning the output "
                        "of the custom Function.");
}

TEST(UserFunctions, OnceDifferentiableRefusesDoubleBackward) {
  Tensor x = testing::from_values({0.5, 1}, {2}, kFloat64).requires_grad_();
  Tensor y = examples::ExpOnce::apply(x);
  // As PyTorch: the error node is attached only when the incoming gradients require grad.
  Tensor go = ones({2}, kFloat64).requires_grad_();
  auto g = autograd::grad({y}, {x}, {go}, std::nullopt, /*create_graph=*/true);
  testing::expect_values(g[0], {2}, {std::exp(0.5), std::exp(1.0)});
  testing::expect_error([&] { g[0].sum().backward(); },
                        "trying to differentiate twice a function that was marked with "
                        "@once_differentiable");
}

struct WrongBackward : autograd::Function<WrongBackward> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x * 2; }
  static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0] * 3}; }
};

TEST(UserFunctions, GradcheckReportsJacobians) {
  Tensor x = ones({2}, kFloat64).requires_grad_();
  auto f = [](const tensor_list& in) { return tensor_list{WrongBackward::apply(in[0])}; };
  try {
    autograd::gradcheck(f, {x});
    ADD_FAILURE() << "gradcheck passed a wrong backward";
  } catch (const autograd::GradcheckError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:", 0), 0u) << msg;
    EXPECT_NE(msg.find("analytical:tensor([[3., 0.],\n        [0., 3.]]"), std::string::npos) << msg;
  }
  autograd::GradcheckOptions quiet;
  quiet.raise_exception = false;
  EXPECT_FALSE(autograd::gradcheck(f, {x}, quiet));
  autograd::GradcheckOptions fast = quiet;
  fast.fast_mode = true;
  fast.raise_exception = true;
  testing::expect_error([&] { autograd::gradcheck(f, {x}, fast); }, "in fast mode");
  // No input requires grad: a ValueError even with raise_exception=false.
  testing::expect_error([&] { autograd::gradcheck(f, {ones({2}, kFloat64)}, quiet); },
                        "gradcheck expects at least one input tensor to require gradient, but none "
                        "of the them have requires_grad=True.",
                        ErrorKind::Value);
  WarningCapture warnings;
  autograd::gradcheck([](const tensor_list& in) { return tensor_list{in[0] * 2}; },
                      {ones({2}, kFloat32).requires_grad_()}, quiet);
  ASSERT_FALSE(warnings.messages.empty());
  EXPECT_EQ(warnings.messages[0].rfind("Input #0 requires gradient and is not a double precision "
                                       "floating point or complex.", 0), 0u);
}

}  // namespace
}  // namespace ember
