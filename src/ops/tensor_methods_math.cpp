// Tensor methods for math.h's unary functions and equal / allclose (libtorch has them as
// methods: t.square(), a.equal(b)).
#include "ember/ops/math.h"
#include "ember/ops/pointwise.h"

namespace ember {

#define EMBER_MATH_METHOD(name)                                   \
  Tensor Tensor::name() const { return ::ember::name(*this); }    \
  Tensor& Tensor::name##_() { return ::ember::name##_(*this); }
EMBER_MATH_METHOD(square)
EMBER_MATH_METHOD(reciprocal)
EMBER_MATH_METHOD(floor)
EMBER_MATH_METHOD(ceil)
EMBER_MATH_METHOD(round)
EMBER_MATH_METHOD(trunc)
EMBER_MATH_METHOD(frac)
EMBER_MATH_METHOD(tan)
EMBER_MATH_METHOD(asin)
EMBER_MATH_METHOD(acos)
EMBER_MATH_METHOD(atan)
EMBER_MATH_METHOD(sinh)
EMBER_MATH_METHOD(cosh)
EMBER_MATH_METHOD(log2)
EMBER_MATH_METHOD(log10)
EMBER_MATH_METHOD(exp2)
EMBER_MATH_METHOD(erf)
#undef EMBER_MATH_METHOD

bool Tensor::equal(const Tensor& other) const { return ::ember::equal(*this, other); }
bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return ::ember::allclose(*this, other, rtol, atol, equal_nan);
}

}  // namespace ember
