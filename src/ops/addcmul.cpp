// addcmul / addcdiv: self + value * tensor1 * tensor2 and self + value * tensor1 / tensor2, the
// fused steps optimizers use (Adam's second moment and update), with their backward rules.
#include "../autograd/record.h"
#include "../backends/cpu/addcmul_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/pointwise.h"
#include "pointwise_helpers.h"

namespace ember {

using dispatch::OpId;

namespace {

enum class Kind { Mul, Div };

const char* op_name(Kind k, bool inplace) {
  if (k == Kind::Mul) return inplace ? "addcmul_" : "addcmul";
  return inplace ? "addcdiv_" : "addcdiv";
}

void check_operands(Kind k, bool inplace, const Tensor& self, const Tensor& t1, const Tensor& t2) {
  ops::check_not_quantized(op_name(k, inplace), {self, t1, t2});
  if (k == Kind::Div) {
    EMBER_CHECK(!(is_integral(t1.dtype(), true) && is_integral(t2.dtype(), true)),
                "Integer division with addcdiv is no longer supported, and in a future release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
                "behavior can be implemented as (input + value * ember.trunc(tensor1 / tensor2))"
                ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
                "for float inputs. The future addcdiv behavior is just the latter implementation: "
                "(input + value * tensor1 / tensor2), for all dtypes.");
  }
}

void run_kernel(Kind k, const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                const Scalar& value) {
  if (k == Kind::Mul) {
    cpu::addcmul_kernel(out, self, t1, t2, value);
  } else {
    cpu::addcdiv_kernel(out, self, t1, t2, value);
  }
}

template <Kind K>
Tensor addc_impl(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  check_operands(K, false, self, t1, t2);
  const ScalarType dtype = result_type({self, t1, t2});
  const Device device = ops::common_device(op_name(K, false), {self, t1, t2});
  Tensor out = ops::new_output(ops::broadcast_all({self, t1, t2}), dtype, device, {self, t1, t2});
  if (!out.is_meta()) {
    run_kernel(K, out, ops::cast(self, dtype), ops::cast(t1, dtype), ops::cast(t2, dtype), value);
  }
  return out;
}

template <Kind K>
Tensor addc__impl(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  const char* name = op_name(K, true);
  check_operands(K, true, self, t1, t2);
  const ScalarType dtype = result_type({self, t1, t2});
  ops::common_device(name, {self, t1, t2});
  ops::check_inplace_elementwise(name, self, ops::broadcast_all({self, t1, t2}), dtype);
  const Tensor a = ops::inplace_input(self, t1), b = ops::inplace_input(self, t2);
  ops::write_inplace(self, dtype, [&](const Tensor& out) {
    run_kernel(K, out, ops::cast(self, dtype), ops::cast(a, dtype), ops::cast(b, dtype), value);
  });
  return ops::mark_written(self);
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// AddcmulBackward0: d/dself = grad, d/dt1 = grad * t2 * value, d/dt2 = grad * t1 * value.
// AddcdivBackward0: d/dt1 = grad * value / t2, d/dt2 = -grad * value * t1 / t2^2.
template <Kind K>
OpNode::Formula addc_formula(size_t t1_, size_t t2_, const Scalar& value) {
  const double v = value.to_double();
  return [=](OpNode& n, const tensor_list& g) {
    const Tensor a = n.saved(t1_), b = n.saved(t2_);
    Tensor ga, gb;
    if constexpr (K == Kind::Mul) {
      if (n.needs(1)) ga = g[0] * b * v;
      if (n.needs(2)) gb = g[0] * a * v;
    } else {
      if (n.needs(1)) ga = g[0] * (v / b);
      if (n.needs(2)) gb = -g[0] * v * a / (b * b);
    }
    return tensor_list{n.needs(0) ? g[0] : Tensor(), ga, gb};
  };
}

template <Kind K>
Tensor addc_autograd(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  constexpr OpId id = K == Kind::Mul ? OpId::addcmul : OpId::addcdiv;
  autograd::Recorder r(K == Kind::Mul ? "AddcmulBackward0" : "AddcdivBackward0", self, t1, t2);
  Tensor out = r.forward([&] { return dispatch::call<addc_impl<K>>(id, self, t1, t2, value); });
  if (!r) return out;
  // t1's gradient reads t2, and t2's reads t1 (and t2 itself for addcdiv).
  const size_t t1_ = r.save_if(r.needs(2), t1, "tensor1");
  const size_t t2_ = r.save_if(r.needs(1) || (K == Kind::Div && r.needs(2)), t2, "tensor2");
  r.values("value", value);
  return r.finish(out, addc_formula<K>(t1_, t2_, value));
}

template <Kind K>
Tensor addc__autograd(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  constexpr OpId id = K == Kind::Mul ? OpId::addcmul_ : OpId::addcdiv_;
  autograd::Recorder r(K == Kind::Mul ? "AddcmulBackward0" : "AddcdivBackward0", self, t1, t2);
  autograd::check_inplace_if(r, self);
  const size_t t1_ = r ? r.save_if(r.needs(2), t1, "tensor1") : 0;
  const size_t t2_ = r ? r.save_if(r.needs(1) || (K == Kind::Div && r.needs(2)), t2, "tensor2") : 0;
  r.forward([&] { return dispatch::call<addc__impl<K>>(id, self, t1, t2, value); });
  if (!r) return self;
  r.values("value", value);
  r.finish_inplace(self, addc_formula<K>(t1_, t2_, value));
  return self;
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(addcmul, &addc_autograd<Kind::Mul>);
EMBER_REGISTER_AUTOGRAD(addcdiv, &addc_autograd<Kind::Div>);
EMBER_REGISTER_AUTOGRAD(addcmul_, &addc__autograd<Kind::Mul>);
EMBER_REGISTER_AUTOGRAD(addcdiv_, &addc__autograd<Kind::Div>);

// ---- frontends and boxed registration ----
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return dispatch::call<addc_impl<Kind::Mul>>(OpId::addcmul, self, t1, t2, value);
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return dispatch::call<addc_impl<Kind::Div>>(OpId::addcdiv, self, t1, t2, value);
}
Tensor& addcmul_(Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  dispatch::call<addc__impl<Kind::Mul>>(OpId::addcmul_, self, t1, t2, value);
  return self;
}
Tensor& addcdiv_(Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  dispatch::call<addc__impl<Kind::Div>>(OpId::addcdiv_, self, t1, t2, value);
  return self;
}

using AddcFn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const Scalar&);
using AddcInplaceFn = Tensor& (*)(Tensor&, const Tensor&, const Tensor&, const Scalar&);
EMBER_REGISTER_OP(addcmul, static_cast<AddcFn>(&addcmul));
EMBER_REGISTER_OP(addcdiv, static_cast<AddcFn>(&addcdiv));
EMBER_REGISTER_OP(addcmul_, static_cast<AddcInplaceFn>(&addcmul_));
EMBER_REGISTER_OP(addcdiv_, static_cast<AddcInplaceFn>(&addcdiv_));

Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ember::addcmul(*this, t1, t2, value);
}
Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return ember::addcmul_(*this, t1, t2, value);
}
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ember::addcdiv(*this, t1, t2, value);
}
Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return ember::addcdiv_(*this, t1, t2, value);
}

}  // namespace ember
