// Elementwise ops: unary math, binary arithmetic with broadcasting and type promotion,
// comparisons, logical and bitwise ops, activations, clamp / where / masked_fill.
//
//   auto y = ember::add(a, b, /*alpha=*/2);          // a + 2 * b
//   auto q = ember::div(a, b, "floor");              // rounding modes: none, "trunc", "floor"
//   auto r = ember::where(a > 0, a, ember::zeros_like(a));
#pragma once

#include <optional>
#include <string>

#include "ember/tensor.h"

namespace ember {

// ---- binary arithmetic (binary.cpp) ----
Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor mul(const Tensor& self, const Tensor& other);
Tensor div(const Tensor& self, const Tensor& other,
           std::optional<std::string> rounding_mode = std::nullopt);
/// mul.Scalar / div.Scalar (binary_scalar.cpp): `ember::mul(t, 2)`; operators (`t * 2`) are
/// mul.Tensor with a wrapped number, as Python's are in PyTorch.
Tensor mul(const Tensor& self, const Scalar& other);
Tensor div(const Tensor& self, const Scalar& other);
Tensor remainder(const Tensor& self, const Tensor& other);
Tensor pow(const Tensor& self, const Tensor& exponent);
Tensor pow(const Tensor& self, const Scalar& exponent);
Tensor maximum(const Tensor& self, const Tensor& other);
Tensor minimum(const Tensor& self, const Tensor& other);
Tensor bitwise_and(const Tensor& self, const Tensor& other);
Tensor bitwise_or(const Tensor& self, const Tensor& other);
Tensor bitwise_xor(const Tensor& self, const Tensor& other);
Tensor& add_(Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor& sub_(Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor& mul_(Tensor& self, const Tensor& other);
Tensor& div_(Tensor& self, const Tensor& other,
             std::optional<std::string> rounding_mode = std::nullopt);
Tensor& remainder_(Tensor& self, const Tensor& other);
Tensor& pow_(Tensor& self, const Tensor& exponent);
Tensor& pow_(Tensor& self, const Scalar& exponent);
Tensor& bitwise_and_(Tensor& self, const Tensor& other);
Tensor& bitwise_or_(Tensor& self, const Tensor& other);
Tensor& bitwise_xor_(Tensor& self, const Tensor& other);

// ---- comparisons and logical ops (compare.cpp); results are bool ----
Tensor eq(const Tensor& self, const Tensor& other);
Tensor ne(const Tensor& self, const Tensor& other);
Tensor lt(const Tensor& self, const Tensor& other);
Tensor le(const Tensor& self, const Tensor& other);
Tensor gt(const Tensor& self, const Tensor& other);
Tensor ge(const Tensor& self, const Tensor& other);
Tensor logical_and(const Tensor& self, const Tensor& other);
Tensor logical_or(const Tensor& self, const Tensor& other);
Tensor logical_xor(const Tensor& self, const Tensor& other);
/// True when shapes are equal and all elements are equal.
bool equal(const Tensor& self, const Tensor& other);
/// |a - b| <= atol + rtol * |b| everywhere (NaNs equal when equal_nan).
bool allclose(const Tensor& self, const Tensor& other, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false);

// ---- unary math (unary.cpp) ----
#define EMBER_UNARY_FNS(name) \
  Tensor name(const Tensor& self); \
  Tensor& name##_(Tensor& self);
EMBER_UNARY_FNS(neg)
EMBER_UNARY_FNS(abs)
EMBER_UNARY_FNS(sign)
EMBER_UNARY_FNS(exp)
EMBER_UNARY_FNS(log)
EMBER_UNARY_FNS(log1p)
EMBER_UNARY_FNS(expm1)
EMBER_UNARY_FNS(sqrt)
EMBER_UNARY_FNS(rsqrt)
EMBER_UNARY_FNS(sin)
EMBER_UNARY_FNS(cos)
EMBER_UNARY_FNS(tanh)
EMBER_UNARY_FNS(sigmoid)
EMBER_UNARY_FNS(relu)
EMBER_UNARY_FNS(logical_not)
EMBER_UNARY_FNS(bitwise_not)
#undef EMBER_UNARY_FNS

// ---- activations (activation.cpp) ----
Tensor hardtanh(const Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1);
Tensor& hardtanh_(Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1);
Tensor relu6(const Tensor& self);
Tensor hardswish(const Tensor& self);
Tensor& hardswish_(Tensor& self);
Tensor hardsigmoid(const Tensor& self);
Tensor& hardsigmoid_(Tensor& self);
/// approximate: "none" (erf) or "tanh".
Tensor gelu(const Tensor& self, const std::string& approximate = "none");
Tensor silu(const Tensor& self);
Tensor& silu_(Tensor& self);

// ---- first derivatives as ops, as PyTorch's (activation_backward.cpp) ----
//   ember::threshold_backward(grad, relu_result, 0)  // grad where relu_result > 0, else 0
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, const Scalar& threshold);
Tensor tanh_backward(const Tensor& grad_output, const Tensor& output);      // grad (1 - y^2)
Tensor sigmoid_backward(const Tensor& grad_output, const Tensor& output);   // grad (1 - y) y
Tensor hardtanh_backward(const Tensor& grad_output, const Tensor& self, const Scalar& min_val,
                         const Scalar& max_val);
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self,
                     const std::string& approximate = "none");
Tensor hardswish_backward(const Tensor& grad_output, const Tensor& self);
Tensor hardsigmoid_backward(const Tensor& grad_output, const Tensor& self);
Tensor silu_backward(const Tensor& grad_output, const Tensor& self);

// ---- clamp / where / masked_fill (pointwise.cpp) ----
Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor& clamp_(Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value);

// ---- addcmul / addcdiv (addcmul.cpp): self + value * tensor1 (* or /) tensor2 ----
Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);
Tensor& addcmul_(Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);
Tensor& addcdiv_(Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);

// ---- type promotion (src/core/type_promotion.cpp) ----
/// torch.result_type: the dtype an elementwise op on these operands computes in. 0-d tensors and
/// wrapped numbers (scalars) only raise the category (bool < integer < floating), never the width.
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const Scalar& b);
ScalarType result_type(ArrayRef<Tensor> operands);
/// Whether a value of dtype `from` may be written into `to` by an in-place op
/// (PyTorch's canCast: no float into int, no int/float into bool).
bool can_cast(ScalarType from, ScalarType to);

}  // namespace ember
