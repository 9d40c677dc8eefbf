// gradcheck's C++ API on complex functions (Note [Complex gradcheck]): wrong complex backwards
// (the gradient not conjugated, a wrong imaginary part) fail with torch 1.13's messages, right
// ones pass, in slow and fast mode; and the checks after the Jacobians (undefined output
// gradients, options ember refuses). The Python tests compare the same cases with torch itself.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/function.h"
#include "ember/autograd/gradcheck.h"
#include "ember/ops/complex.h"

namespace ember {
namespace {

using autograd::AutogradContext;
using autograd::tensor_list;

Tensor z3() {
  return complex(testing::from_values({0.3, -1.2, 0.5}, {3}, kFloat64),
                 testing::from_values({0.7, 0.4, -0.9}, {3}, kFloat64))
      .requires_grad_();
}

// z * z, with the gradient g * 2z instead of g * conj(2z).
struct SquareNotConjugated : autograd::Function<SquareNotConjugated> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list g) {
    return {g[0] * 2 * ctx->get_saved_variables()[0]};
  }
};

struct Square : autograd::Function<Square> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list g) {
    return {g[0] * conj_physical(ctx->get_saved_variables()[0] * 2)};
  }
};

// |z|^2 (complex to real), with the gradient conjugated by mistake (2 conj(z) instead of 2z).
struct AbsSquareConjugated : autograd::Function<AbsSquareConjugated> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return abs(x) * abs(x);
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list g) {
    return {g[0] * 2 * conj_physical(ctx->get_saved_variables()[0])};
  }
};

// 3z whose gradient keeps only the real part of the incoming one.
struct ImaginaryPartDropped : autograd::Function<ImaginaryPartDropped> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x * 3; }
  static tensor_list backward(AutogradContext*, tensor_list g) {
    return {(real(g[0]) * 3).to(g[0].dtype())};
  }
};

template <class F>
autograd::DifferentiableFn unary() {
  return [](const tensor_list& in) { return tensor_list{F::apply(in[0])}; };
}

std::string failure(const autograd::DifferentiableFn& f, const tensor_list& in,
                    const autograd::GradcheckOptions& o = {}) {
  try {
    autograd::gradcheck(f, in, o);
  } catch (const autograd::GradcheckError& e) {
    return e.what();
  }
  return "";
}

TEST(CgradGradcheck, WrongComplexBackwardsFailWithTorchsMessages) {
  // Texts as torch 1.13 gives them for the same functions and inputs (the numbers: the
  // numerical column of z -> z^2's imaginary part is 2y + 2ix; the backward gave 2z's).
  const std::string sq_msg = failure(unary<SquareNotConjugated>(), {z3()});
  EXPECT_EQ(sq_msg.rfind("While considering the imaginary part of complex outputs only, Jacobian "
                         "mismatch for output 0 with respect to input 0,\nnumerical:tensor([[ "
                         "1.4000+0.6000j,  0.0000+0.0000j,  0.0000+0.0000j],\n", 0), 0u) << sq_msg;
  EXPECT_NE(sq_msg.find("0.0000+0.0000j, -1.8000+1.0000j]]"), std::string::npos) << sq_msg;
  EXPECT_NE(sq_msg.find("\nanalytical:tensor([[-1.4000+0.6000j,"), std::string::npos) << sq_msg;
  EXPECT_NE(sq_msg.find("1.8000+1.0000j]]"), std::string::npos) << sq_msg;
  const std::string abs_msg = failure(unary<AbsSquareConjugated>(), {z3()});
  EXPECT_EQ(abs_msg.rfind("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:"
                          "tensor([[ 0.6000+1.4000j,", 0), 0u) << abs_msg;
  const std::string imag_msg = failure(unary<ImaginaryPartDropped>(), {z3()});
  EXPECT_EQ(imag_msg.rfind("While considering the imaginary part of complex outputs only, ", 0), 0u)
      << imag_msg;
}

TEST(CgradGradcheck, RightComplexBackwardsPassInBothModes) {
  autograd::GradcheckOptions fast;
  fast.fast_mode = true;
  for (const auto& o : {autograd::GradcheckOptions{}, fast}) {
    EXPECT_TRUE(autograd::gradcheck(unary<Square>(), {z3()}, o));
    EXPECT_TRUE(autograd::gradcheck(
        [](const tensor_list& in) { return tensor_list{exp(in[0]) * conj_physical(in[0])}; },
        {z3()}, o));
    EXPECT_TRUE(autograd::gradcheck(
        [](const tensor_list& in) { return tensor_list{abs(in[0]), real(in[0]) * in[0]}; },
        {z3()}, o));
  }
  EXPECT_TRUE(autograd::gradgradcheck(
      [](const tensor_list& in) { return tensor_list{sin(in[0]) * in[0]}; }, {z3()}));
}

TEST(CgradGradcheck, FastModeFailsAndReportsTheSlowJacobians) {
  autograd::GradcheckOptions fast;
  fast.fast_mode = true;
  const std::string msg = failure(unary<SquareNotConjugated>(), {z3()}, fast);
  EXPECT_EQ(msg.rfind("While considering the imaginary part of complex outputs only, Jacobian "
                      "mismatch for output 0 with respect to input 0,\nnumerical:tensor(", 0), 0u)
      << msg;
  EXPECT_NE(msg.find("in slow mode:\n\nNumerical:\n tensor([[ 1.4000+0.6000j,"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("The max per-element difference (slow mode) is: "), std::string::npos);
  fast.raise_exception = false;
  EXPECT_FALSE(autograd::gradcheck(unary<AbsSquareConjugated>(), {z3()}, fast));
}

// Undefined output gradients must come back as undefined or zero input gradients.
struct OnesWhenUndefined : autograd::Function<OnesWhenUndefined> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    ctx->set_materialize_grads(false);
    return x * 2;
  }
  static tensor_list backward(AutogradContext*, tensor_list g) {
    return {g[0].defined() ? g[0] * 2 : ones({3}, kFloat64)};
  }
};

TEST(CgradGradcheck, UndefinedOutputGradients) {
  const Tensor x = testing::from_values({1, 2, 3}, {3}, kFloat64).requires_grad_();
  EXPECT_EQ(failure(unary<OnesWhenUndefined>(), {x}),
            "Expected all input grads to be undefined or zero when all output grads are undefined "
            "or zero. Please look at \"Notes about undefined output gradients\" in "
            "\"tools/autograd/derivatives.yaml\"");
  autograd::GradcheckOptions off;
  off.check_undefined_grad = false;
  EXPECT_TRUE(autograd::gradcheck(unary<OnesWhenUndefined>(), {x}, off));
}

TEST(CgradGradcheck, ForwardAdAndVmapChecksAreRefused) {
  const Tensor x = testing::from_values({1, 2}, {2}, kFloat64).requires_grad_();
  auto f = [](const tensor_list& in) { return tensor_list{in[0] * 2}; };
  autograd::GradcheckOptions fwd;
  fwd.check_forward_ad = true;
  testing::expect_error([&] { autograd::gradcheck(f, {x}, fwd); },
                        "gradcheck: check_forward_ad=True needs forward-mode AD",
                        ErrorKind::NotImplemented);
  autograd::GradcheckOptions none;
  none.check_backward_ad = false;
  testing::expect_error([&] { autograd::gradcheck(f, {x}, none); },
                        "Expected at least one of check_forward_ad or check_backward_ad to be True",
                        ErrorKind::Assertion);
}

}  // namespace
}  // namespace ember
