// Elementwise unary math: neg abs sign exp log log1p expm1 sqrt rsqrt sin cos tanh sigmoid relu
// logical_not bitwise_not, each with its in-place form.
//
// Output dtypes follow PyTorch: the floating functions (exp ... sigmoid) compute integer and bool
// inputs in the default floating dtype, so their in-place forms refuse integer tensors ("result
// type Float can't be cast to the desired output type Long"); logical_not returns bool (in place
// it writes 0/1 in self's dtype); the others keep the input's dtype.
#include "ember/ops/complex.h"
#include "ember/ops/math.h"

#include "../autograd/record.h"
#include "../backends/cpu/complex_kernels.h"
#include "../backends/cpu/unary_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "pointwise_helpers.h"

namespace ember {

using dispatch::OpId;
using cpu::UnaryOp;

namespace {

struct UnaryInfo {
  const char* name;
  const char* inplace_name;
  bool floating;  // integer inputs promote to the default floating dtype
};

constexpr UnaryInfo unary_info(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return {"neg", "neg_", false};
    case UnaryOp::Abs: return {"abs", "abs_", false};
    case UnaryOp::Sign: return {"sign", "sign_", false};
    case UnaryOp::Exp: return {"exp", "exp_", true};
    case UnaryOp::Log: return {"log", "log_", true};
    case UnaryOp::Log1p: return {"log1p", "log1p_", true};
    case UnaryOp::Expm1: return {"expm1", "expm1_", true};
    case UnaryOp::Sqrt: return {"sqrt", "sqrt_", true};
    case UnaryOp::Rsqrt: return {"rsqrt", "rsqrt_", true};
    case UnaryOp::Sin: return {"sin", "sin_", true};
    case UnaryOp::Cos: return {"cos", "cos_", true};
    case UnaryOp::Tanh: return {"tanh", "tanh_", true};
    case UnaryOp::Sigmoid: return {"sigmoid", "sigmoid_", true};
    case UnaryOp::Relu: return {"relu", "relu_", false};
    case UnaryOp::LogicalNot: return {"logical_not", "logical_not_", false};
    case UnaryOp::BitwiseNot: return {"bitwise_not", "bitwise_not_", false};
  }
  return {"unary", "unary_", false};
}

// Checks PyTorch makes before any kernel runs (so meta tensors see them too).
void check_unary_input(UnaryOp op, const Tensor& self) {
  EMBER_CHECK(!(op == UnaryOp::Neg && self.dtype() == kBool),
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
              "to invert a mask, use the `~` or `logical_not()` operator instead.");
  EMBER_CHECK(!(op == UnaryOp::Relu && self.dtype() == kBool),
              "Boolean inputs not supported for relu");
  EMBER_CHECK(!(op == UnaryOp::Sign && self.is_complex()),
              "Unlike NumPy, ember.sign is not intended to support complex numbers. Please use "
              "ember.sgn instead.");
  EMBER_CHECK(!(op == UnaryOp::Relu && self.is_complex()), "clamp is not supported for complex types");
  EMBER_CHECK(!((op == UnaryOp::Log1p || op == UnaryOp::Expm1) && self.is_complex()), "\"",
              unary_info(op).name, "_vml_cpu\" not implemented for '", scalar_type_name(self.dtype()), "'");
}

ScalarType unary_result_dtype(UnaryOp op, ScalarType in) {
  if (op == UnaryOp::LogicalNot) return kBool;
  if (op == UnaryOp::Abs) return to_real_value_type(in);  // |z| of a complex z is real
  if (unary_info(op).floating && !is_floating(in) && !is_complex(in)) return default_dtype();
  return in;
}

template <UnaryOp Op>
Tensor unary_impl(const Tensor& self) {
  constexpr UnaryInfo info = unary_info(Op);
  ops::check_not_quantized(info.name, {self});
  check_unary_input(Op, self);
  const ScalarType dtype = unary_result_dtype(Op, self.dtype());
  Tensor out = ops::new_output(self.sizes(), dtype, self.device(), {self});
  if (!out.is_meta()) {
    // logical_not reads any dtype and writes bool; abs of complex reads complex and writes
    // real; the others compute in the output's dtype.
    if (Op == UnaryOp::Abs && self.is_complex()) cpu::complex_abs_kernel(out, self);
    else cpu::unary_kernel(Op, out, Op == UnaryOp::LogicalNot ? self : ops::cast(self, dtype));
  }
  return out;
}

template <UnaryOp Op>
Tensor unary__impl(const Tensor& self) {
  constexpr UnaryInfo info = unary_info(Op);
  ops::check_not_quantized(info.inplace_name, {self});
  check_unary_input(Op, self);
  EMBER_CHECK(!(Op == UnaryOp::Abs && self.is_complex()), "In-place abs is not supported for complex tensors.");
  const ScalarType dtype =
      Op == UnaryOp::LogicalNot ? self.dtype() : unary_result_dtype(Op, self.dtype());
  ops::check_inplace_elementwise(info.inplace_name, self, self.sizes(), dtype);
  if (!self.is_meta()) cpu::unary_kernel(Op, self, self);
  return ops::mark_written(self);
}

// ---- autograd ----
// Each rule reads one saved tensor: self, or, where PyTorch writes the derivative in terms of the
// result (exp, expm1, sqrt, rsqrt, tanh, sigmoid, relu), the output, so that modifying either in
// place after the op fails the backward with PyTorch's version-counter error.
using autograd::OpNode;
using autograd::tensor_list;

enum class Saved { Nothing, Self, Result };

struct UnaryRule {
  const char* name;  // PyTorch 1.13's grad_fn name
  Saved saved;
};

constexpr UnaryRule unary_rule(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return {"NegBackward0", Saved::Nothing};
    case UnaryOp::Abs: return {"AbsBackward0", Saved::Self};
    case UnaryOp::Sign: return {"SignBackward0", Saved::Nothing};
    case UnaryOp::Exp: return {"ExpBackward0", Saved::Result};
    case UnaryOp::Log: return {"LogBackward0", Saved::Self};
    case UnaryOp::Log1p: return {"Log1PBackward0", Saved::Self};
    case UnaryOp::Expm1: return {"Expm1Backward0", Saved::Result};
    case UnaryOp::Sqrt: return {"SqrtBackward0", Saved::Result};
    case UnaryOp::Rsqrt: return {"RsqrtBackward0", Saved::Result};
    case UnaryOp::Sin: return {"SinBackward0", Saved::Self};
    case UnaryOp::Cos: return {"CosBackward0", Saved::Self};
    case UnaryOp::Tanh: return {"TanhBackward0", Saved::Result};
    case UnaryOp::Sigmoid: return {"SigmoidBackward0", Saved::Result};
    case UnaryOp::Relu: return {"ReluBackward0", Saved::Result};
    case UnaryOp::LogicalNot:
    case UnaryOp::BitwiseNot: break;  // never differentiable: no rule is registered
  }
  return {"", Saved::Nothing};
}

// d op(x) for incoming gradient `g`, with `s` the saved self or result (unary_rule).
template <UnaryOp Op>
Tensor unary_backward(const Tensor& g, const Tensor& s) {
  if constexpr (Op == UnaryOp::Neg) return -g;
  // Complex inputs: PyTorch's convention, grad * conj(f'(z)) (Note [Complex autograd]); conj
  // is the identity on real tensors, so the real formulas are unchanged.
  if constexpr (Op == UnaryOp::Abs) return s.is_complex() ? g * sgn(s) : g * s.sign();  // 0 at 0, as sgn
  if constexpr (Op == UnaryOp::Sign) return zeros_like(g);
  if constexpr (Op == UnaryOp::Exp) return g * conj_if_complex(s);
  if constexpr (Op == UnaryOp::Log) return g / conj_if_complex(s);
  if constexpr (Op == UnaryOp::Log1p) return g / (s + 1);
  if constexpr (Op == UnaryOp::Expm1) return g * (s + 1);
  if constexpr (Op == UnaryOp::Sqrt) return g / conj_if_complex(mul(s, 2));
  if constexpr (Op == UnaryOp::Rsqrt) return mul(g, -0.5) * conj_if_complex(s.pow(3));
  if constexpr (Op == UnaryOp::Sin) return g * conj_if_complex(s.cos());
  if constexpr (Op == UnaryOp::Cos) return g * conj_if_complex(-s.sin());
  if constexpr (Op == UnaryOp::Tanh) { if (s.is_complex()) return g * conj_if_complex(1 - s * s); }
  if constexpr (Op == UnaryOp::Sigmoid) { if (s.is_complex()) return g * conj_if_complex(s * (1 - s)); }
  // PyTorch's ops of their own (Note [Backward formulas call ops]); relu's is
  // threshold_backward(grad, result, 0): zero where result <= 0, so a NaN passes the gradient.
  if constexpr (Op == UnaryOp::Tanh) return tanh_backward(g, s);
  if constexpr (Op == UnaryOp::Sigmoid) return sigmoid_backward(g, s);
  if constexpr (Op == UnaryOp::Relu) return threshold_backward(g, s, 0);
  return Tensor();
}

// The one tensor a rule reads (slot 0 of its node), if it saves one.
template <UnaryOp Op>
Tensor saved_of(OpNode& n) {
  return unary_rule(Op).saved == Saved::Nothing ? Tensor() : n.saved(0);
}

template <UnaryOp Op, OpId id>
Tensor unary_autograd(const Tensor& self) {
  constexpr UnaryRule rule = unary_rule(Op);
  autograd::Recorder r(rule.name, self);
  Tensor out = r.forward([&] { return dispatch::call<unary_impl<Op>>(id, self); });
  if (!r) return out;
  if (rule.saved == Saved::Self) r.save(self, "self");
  r.finish(out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{unary_backward<Op>(g[0], saved_of<Op>(n))};
  });
  if (rule.saved == Saved::Result) r.save_output(out, "result");
  return out;
}

template <UnaryOp Op, OpId id>
Tensor unary__autograd(const Tensor& self) {
  constexpr UnaryRule rule = unary_rule(Op);
  autograd::Recorder r(rule.name, self);
  autograd::check_inplace_if(r, self);
  // A rule reading self needs its value from before the write.
  if (r && rule.saved == Saved::Self) r.save(ops::original_self(self), "self");
  r.forward([&] { return dispatch::call<unary__impl<Op>>(id, self); });
  if (!r) return self;
  r.finish_inplace(self, [](OpNode& n, const tensor_list& g) {
    return tensor_list{unary_backward<Op>(g[0], saved_of<Op>(n))};
  });
  if (rule.saved == Saved::Result) r.save_output(self, "result");
  return self;
}

}  // namespace

// The frontend pair, the Tensor methods and the boxed registrations of one unary op.
#define EMBER_UNARY_OP(name, Op)                                                  \
  Tensor name(const Tensor& self) {                                               \
    return dispatch::call<unary_impl<UnaryOp::Op>>(OpId::name, self);             \
  }                                                                               \
  Tensor& name##_(Tensor& self) {                                                 \
    dispatch::call<unary__impl<UnaryOp::Op>>(OpId::name##_, self);                \
    return self;                                                                  \
  }                                                                               \
  Tensor Tensor::name() const { return ember::name(*this); }                      \
  Tensor& Tensor::name##_() { return ember::name##_(*this); }                     \
  EMBER_REGISTER_OP(name, static_cast<Tensor (*)(const Tensor&)>(&ember::name));  \
  EMBER_REGISTER_OP(name##_, static_cast<Tensor& (*)(Tensor&)>(&ember::name##_));

EMBER_UNARY_OP(neg, Neg)
EMBER_UNARY_OP(abs, Abs)
EMBER_UNARY_OP(sign, Sign)
EMBER_UNARY_OP(exp, Exp)
EMBER_UNARY_OP(log, Log)
EMBER_UNARY_OP(log1p, Log1p)
EMBER_UNARY_OP(expm1, Expm1)
EMBER_UNARY_OP(sqrt, Sqrt)
EMBER_UNARY_OP(rsqrt, Rsqrt)
EMBER_UNARY_OP(sin, Sin)
EMBER_UNARY_OP(cos, Cos)
EMBER_UNARY_OP(tanh, Tanh)
EMBER_UNARY_OP(sigmoid, Sigmoid)
EMBER_UNARY_OP(relu, Relu)
EMBER_UNARY_OP(logical_not, LogicalNot)
EMBER_UNARY_OP(bitwise_not, BitwiseNot)
#undef EMBER_UNARY_OP

// logical_not and bitwise_not (bool or integer results, or no gradient) get no rule.
// (One registration per line: EMBER_REGISTER_AUTOGRAD names its variable by __LINE__.)
EMBER_REGISTER_AUTOGRAD(neg, (&unary_autograd<UnaryOp::Neg, OpId::neg>));
EMBER_REGISTER_AUTOGRAD(neg_, (&unary__autograd<UnaryOp::Neg, OpId::neg_>));
EMBER_REGISTER_AUTOGRAD(abs, (&unary_autograd<UnaryOp::Abs, OpId::abs>));
EMBER_REGISTER_AUTOGRAD(abs_, (&unary__autograd<UnaryOp::Abs, OpId::abs_>));
EMBER_REGISTER_AUTOGRAD(sign, (&unary_autograd<UnaryOp::Sign, OpId::sign>));
EMBER_REGISTER_AUTOGRAD(sign_, (&unary__autograd<UnaryOp::Sign, OpId::sign_>));
EMBER_REGISTER_AUTOGRAD(exp, (&unary_autograd<UnaryOp::Exp, OpId::exp>));
EMBER_REGISTER_AUTOGRAD(exp_, (&unary__autograd<UnaryOp::Exp, OpId::exp_>));
EMBER_REGISTER_AUTOGRAD(log, (&unary_autograd<UnaryOp::Log, OpId::log>));
EMBER_REGISTER_AUTOGRAD(log_, (&unary__autograd<UnaryOp::Log, OpId::log_>));
EMBER_REGISTER_AUTOGRAD(log1p, (&unary_autograd<UnaryOp::Log1p, OpId::log1p>));
EMBER_REGISTER_AUTOGRAD(log1p_, (&unary__autograd<UnaryOp::Log1p, OpId::log1p_>));
EMBER_REGISTER_AUTOGRAD(expm1, (&unary_autograd<UnaryOp::Expm1, OpId::expm1>));
EMBER_REGISTER_AUTOGRAD(expm1_, (&unary__autograd<UnaryOp::Expm1, OpId::expm1_>));
EMBER_REGISTER_AUTOGRAD(sqrt, (&unary_autograd<UnaryOp::Sqrt, OpId::sqrt>));
EMBER_REGISTER_AUTOGRAD(sqrt_, (&unary__autograd<UnaryOp::Sqrt, OpId::sqrt_>));
EMBER_REGISTER_AUTOGRAD(rsqrt, (&unary_autograd<UnaryOp::Rsqrt, OpId::rsqrt>));
EMBER_REGISTER_AUTOGRAD(rsqrt_, (&unary__autograd<UnaryOp::Rsqrt, OpId::rsqrt_>));
EMBER_REGISTER_AUTOGRAD(sin, (&unary_autograd<UnaryOp::Sin, OpId::sin>));
EMBER_REGISTER_AUTOGRAD(sin_, (&unary__autograd<UnaryOp::Sin, OpId::sin_>));
EMBER_REGISTER_AUTOGRAD(cos, (&unary_autograd<UnaryOp::Cos, OpId::cos>));
EMBER_REGISTER_AUTOGRAD(cos_, (&unary__autograd<UnaryOp::Cos, OpId::cos_>));
EMBER_REGISTER_AUTOGRAD(tanh, (&unary_autograd<UnaryOp::Tanh, OpId::tanh>));
EMBER_REGISTER_AUTOGRAD(tanh_, (&unary__autograd<UnaryOp::Tanh, OpId::tanh_>));
EMBER_REGISTER_AUTOGRAD(sigmoid, (&unary_autograd<UnaryOp::Sigmoid, OpId::sigmoid>));
EMBER_REGISTER_AUTOGRAD(sigmoid_, (&unary__autograd<UnaryOp::Sigmoid, OpId::sigmoid_>));
EMBER_REGISTER_AUTOGRAD(relu, (&unary_autograd<UnaryOp::Relu, OpId::relu>));
EMBER_REGISTER_AUTOGRAD(relu_, (&unary__autograd<UnaryOp::Relu, OpId::relu_>));

Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator~(const Tensor& a) { return bitwise_not(a); }

}  // namespace ember
