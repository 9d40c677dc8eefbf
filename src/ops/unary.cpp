// Elementwise unary math: neg abs sign exp log log1p expm1 sqrt rsqrt sin cos tanh sigmoid relu
// logical_not bitwise_not, each with its in-place form.
//
// Output dtypes follow PyTorch: the floating functions (exp ... sigmoid) compute integer and bool
// inputs in the default floating dtype, so their in-place forms refuse integer tensors ("result
// type Float can't be cast to the desired output type Long"); logical_not returns bool (in place
// it writes 0/1 in self's dtype); the others keep the input's dtype.
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
}

ScalarType unary_result_dtype(UnaryOp op, ScalarType in) {
  if (op == UnaryOp::LogicalNot) return kBool;
  if (unary_info(op).floating && !is_floating(in)) return default_dtype();
  return in;
}

template <UnaryOp Op>
Tensor unary_impl(const Tensor& self) {
  constexpr UnaryInfo info = unary_info(Op);
  ops::check_not_quantized(info.name, {self});
  check_unary_input(Op, self);
  const ScalarType dtype = unary_result_dtype(Op, self.dtype());
  Tensor out = ops::new_output(self.sizes(), dtype, self.device());
  if (!out.is_meta()) {
    // logical_not reads any dtype and writes bool; the others compute in the output's dtype.
    cpu::unary_kernel(Op, out, Op == UnaryOp::LogicalNot ? self : ops::cast(self, dtype));
  }
  return out;
}

template <UnaryOp Op>
Tensor unary__impl(const Tensor& self) {
  constexpr UnaryInfo info = unary_info(Op);
  ops::check_not_quantized(info.inplace_name, {self});
  check_unary_input(Op, self);
  const ScalarType dtype =
      Op == UnaryOp::LogicalNot ? self.dtype() : unary_result_dtype(Op, self.dtype());
  ops::check_inplace_elementwise(info.inplace_name, self, self.sizes(), dtype);
  if (!self.is_meta()) cpu::unary_kernel(Op, self, self);
  return ops::mark_written(self);
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

Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator~(const Tensor& a) { return bitwise_not(a); }

}  // namespace ember
