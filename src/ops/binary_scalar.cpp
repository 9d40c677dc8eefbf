// mul.Scalar and div.Scalar: a tensor times / over a number, as PyTorch's C++ calls them
// (`at::mul(t, 2)`). Python's `t * 2` is mul.Tensor with a wrapped number, in PyTorch and here;
// these rows exist for the backward formulas that PyTorch writes with a Scalar (mean's
// `grad / n`, pow's `exponent * ...`), so that a __torch_dispatch__ handler sees PyTorch's op.
// Their bodies are the Tensor ops with the number wrapped (it promotes weakly, as in PyTorch).
#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "ember/ops/factory.h"
#include "ember/ops/pointwise.h"

namespace ember {

using dispatch::OpId;

namespace {

Tensor mul_scalar_impl(const Tensor& self, const Scalar& other) {
  return mul(self, wrapped_scalar_tensor(other));
}
Tensor div_scalar_impl(const Tensor& self, const Scalar& other) {
  return div(self, wrapped_scalar_tensor(other));
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// MulBackward1: d(self * other) = grad * other.
Tensor mul_scalar_autograd(const Tensor& self, const Scalar& other) {
  autograd::Recorder r("MulBackward1", self);
  Tensor out = r.forward([&] { return dispatch::call<mul_scalar_impl>(OpId::mul_Scalar, self, other); });
  if (!r) return out;
  r.values("other", other);
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{mul(g[0], n.value(0).to_scalar())};
  });
}

// DivBackward1: d(self / other) = grad / other.
Tensor div_scalar_autograd(const Tensor& self, const Scalar& other) {
  autograd::Recorder r("DivBackward1", self);
  Tensor out = r.forward([&] { return dispatch::call<div_scalar_impl>(OpId::div_Scalar, self, other); });
  if (!r) return out;
  r.values("other", other);
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{div(g[0], n.value(0).to_scalar())};
  });
}

}  // namespace

Tensor mul(const Tensor& self, const Scalar& other) {
  return dispatch::call<mul_scalar_impl>(OpId::mul_Scalar, self, other);
}
Tensor div(const Tensor& self, const Scalar& other) {
  return dispatch::call<div_scalar_impl>(OpId::div_Scalar, self, other);
}

EMBER_REGISTER_OP(mul_Scalar, static_cast<Tensor (*)(const Tensor&, const Scalar&)>(&mul));
EMBER_REGISTER_OP(div_Scalar, static_cast<Tensor (*)(const Tensor&, const Scalar&)>(&div));
EMBER_REGISTER_AUTOGRAD(mul_Scalar, &mul_scalar_autograd);
EMBER_REGISTER_AUTOGRAD(div_Scalar, &div_scalar_autograd);

}  // namespace ember
