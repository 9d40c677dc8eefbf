// Activations: hardtanh (a clamp, so integers work too), relu6 = hardtanh(0, 6), and the
// floating-only hardswish, hardsigmoid, gelu ('none' = erf form, 'tanh' approximation), silu.
#include "../autograd/record.h"
#include "../backends/cpu/activation_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "pointwise_helpers.h"

namespace ember {

using cpu::ActivationOp;
using dispatch::OpId;

namespace {

// ---- hardtanh ----
// As PyTorch: the limits never promote the result. On integer tensors they are truncated to
// integers first (a limit an int64 cannot hold is an error), and uint8 refuses negative ones.
std::pair<Scalar, Scalar> hardtanh_limits(const Tensor& self, const Scalar& min_val,
                                          const Scalar& max_val) {
  EMBER_CHECK(self.dtype() != kBool, "Bool inputs not supported for hardtanh");
  if (!is_integral(self.dtype(), /*include_bool=*/false)) return {min_val, max_val};
  ops::check_scalar_fits(min_val, kInt64);
  ops::check_scalar_fits(max_val, kInt64);
  const int64_t lo = min_val.to_int(), hi = max_val.to_int();
  EMBER_CHECK(self.dtype() != kUInt8 || (lo >= 0 && hi >= 0),
              "cannot do hardtanh on an unsigned type with negative limits");
  return {Scalar(lo), Scalar(hi)};
}

Tensor hardtanh_impl(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  ops::check_not_quantized("hardtanh", {self});
  auto [lo, hi] = hardtanh_limits(self, min_val, max_val);
  Tensor out = ops::new_output(self.sizes(), self.dtype(), self.device(), {self});
  if (!out.is_meta()) ops::clamp_into(out, self, lo, hi);
  return out;
}

Tensor hardtanh__impl(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  ops::check_not_quantized("hardtanh_", {self});
  auto [lo, hi] = hardtanh_limits(self, min_val, max_val);
  ops::check_no_internal_overlap("hardtanh_", self);
  if (!self.is_meta()) ops::clamp_into(self, self, lo, hi);
  return ops::mark_written(self);
}

Tensor relu6_impl(const Tensor& self) { return hardtanh(self, 0, 6); }

// ---- hardswish, hardsigmoid, silu, gelu ----
constexpr const char* activation_name(ActivationOp op, bool inplace) {
  switch (op) {
    case ActivationOp::Hardswish: return inplace ? "hardswish_" : "hardswish";
    case ActivationOp::Hardsigmoid: return inplace ? "hardsigmoid_" : "hardsigmoid";
    case ActivationOp::Silu: return inplace ? "silu_" : "silu";
    case ActivationOp::GeluErf:
    case ActivationOp::GeluTanh: return "gelu";
  }
  return "activation";
}

template <ActivationOp Op>
Tensor activation_impl(const Tensor& self) {
  ops::check_not_quantized(activation_name(Op, false), {self});
  Tensor out = ops::new_output(self.sizes(), self.dtype(), self.device(), {self});
  if (!out.is_meta()) cpu::activation_kernel(Op, out, self);
  return out;
}

template <ActivationOp Op>
Tensor activation__impl(const Tensor& self) {
  constexpr const char* name = activation_name(Op, true);
  ops::check_not_quantized(name, {self});
  ops::check_no_internal_overlap(name, self);
  if (!self.is_meta()) cpu::activation_kernel(Op, self, self);
  return ops::mark_written(self);
}

Tensor gelu_impl(const Tensor& self, const std::string& approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh",
              "approximate argument must be either none or tanh.");
  return approximate == "none" ? activation_impl<ActivationOp::GeluErf>(self)
                               : activation_impl<ActivationOp::GeluTanh>(self);
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// d hardtanh(self, min, max) = grad inside (min, max). The in-place form saves self's old value.
Tensor hardtanh_autograd(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  autograd::Recorder r("HardtanhBackward0", self);
  Tensor out = r.forward(
      [&] { return dispatch::call<hardtanh_impl>(OpId::hardtanh, self, min_val, max_val); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self");
  r.values("max_val", max_val, "min_val", min_val);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{hardtanh_backward(g[0], n.saved(self_), n.value(1).to_scalar(), n.value(0).to_scalar())};
  });
}

Tensor hardtanh__autograd(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  autograd::Recorder r("HardtanhBackward0", self);
  autograd::check_inplace_if(r, self);
  const size_t self_ = r ? r.save(ops::original_self(self), "self") : 0;
  r.forward(
      [&] { return dispatch::call<hardtanh__impl>(OpId::hardtanh_, self, min_val, max_val); });
  if (!r) return self;
  r.values("max_val", max_val, "min_val", min_val);
  r.finish_inplace(self, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{hardtanh_backward(g[0], n.saved(self_), n.value(1).to_scalar(), n.value(0).to_scalar())};
  });
  return self;
}

// The derivatives of the parameter-free activations, times the incoming gradient `g`: PyTorch's
// backward ops (activation_backward.cpp).
template <ActivationOp Op>
Tensor activation_backward(const Tensor& g, const Tensor& x) {
  if constexpr (Op == ActivationOp::Hardswish) {
    return hardswish_backward(g, x);
  } else if constexpr (Op == ActivationOp::Hardsigmoid) {
    return hardsigmoid_backward(g, x);
  } else {
    static_assert(Op == ActivationOp::Silu);
    return silu_backward(g, x);
  }
}

constexpr const char* activation_grad_fn(ActivationOp op) {
  switch (op) {
    case ActivationOp::Hardswish: return "HardswishBackward0";
    case ActivationOp::Hardsigmoid: return "HardsigmoidBackward0";
    case ActivationOp::Silu: return "SiluBackward0";
    case ActivationOp::GeluErf:
    case ActivationOp::GeluTanh: return "GeluBackward0";
  }
  return "";
}

template <ActivationOp Op, OpId id>
Tensor activation_autograd(const Tensor& self) {
  autograd::Recorder r(activation_grad_fn(Op), self);
  Tensor out = r.forward([&] { return dispatch::call<activation_impl<Op>>(id, self); });
  if (!r) return out;
  r.save(self, "self");
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{activation_backward<Op>(g[0], n.saved(0))};
  });
}

template <ActivationOp Op, OpId id>
Tensor activation__autograd(const Tensor& self) {
  autograd::Recorder r(activation_grad_fn(Op), self);
  autograd::check_inplace_if(r, self);
  if (r) r.save(ops::original_self(self), "self");  // the rule reads self's value from before the write
  r.forward([&] { return dispatch::call<activation__impl<Op>>(id, self); });
  if (!r) return self;
  r.finish_inplace(self, [](OpNode& n, const tensor_list& g) {
    return tensor_list{activation_backward<Op>(g[0], n.saved(0))};
  });
  return self;
}

// d gelu(self) = gelu_backward(grad, self) (Note [gelu's derivatives]).
Tensor gelu_autograd(const Tensor& self, const std::string& approximate) {
  autograd::Recorder r("GeluBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<gelu_impl>(OpId::gelu, self, approximate); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self");
  r.values("approximate", approximate);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{gelu_backward(g[0], n.saved(self_), n.value(0).to_string_value())};
  });
}

}  // namespace

Tensor hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  return dispatch::call<hardtanh_impl>(OpId::hardtanh, self, min_val, max_val);
}
Tensor& hardtanh_(Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  dispatch::call<hardtanh__impl>(OpId::hardtanh_, self, min_val, max_val);
  return self;
}
Tensor relu6(const Tensor& self) { return dispatch::call<relu6_impl>(OpId::relu6, self); }
Tensor hardswish(const Tensor& self) {
  return dispatch::call<activation_impl<ActivationOp::Hardswish>>(OpId::hardswish, self);
}
Tensor& hardswish_(Tensor& self) {
  dispatch::call<activation__impl<ActivationOp::Hardswish>>(OpId::hardswish_, self);
  return self;
}
Tensor hardsigmoid(const Tensor& self) {
  return dispatch::call<activation_impl<ActivationOp::Hardsigmoid>>(OpId::hardsigmoid, self);
}
Tensor& hardsigmoid_(Tensor& self) {
  dispatch::call<activation__impl<ActivationOp::Hardsigmoid>>(OpId::hardsigmoid_, self);
  return self;
}
Tensor gelu(const Tensor& self, const std::string& approximate) {
  return dispatch::call<gelu_impl>(OpId::gelu, self, approximate);
}
Tensor silu(const Tensor& self) {
  return dispatch::call<activation_impl<ActivationOp::Silu>>(OpId::silu, self);
}
Tensor& silu_(Tensor& self) {
  dispatch::call<activation__impl<ActivationOp::Silu>>(OpId::silu_, self);
  return self;
}

using UnaryFn = Tensor (*)(const Tensor&);
using UnaryInplaceFn = Tensor& (*)(Tensor&);
EMBER_REGISTER_OP(hardtanh, static_cast<Tensor (*)(const Tensor&, const Scalar&, const Scalar&)>(&hardtanh));
EMBER_REGISTER_OP(hardtanh_, static_cast<Tensor& (*)(Tensor&, const Scalar&, const Scalar&)>(&hardtanh_));
EMBER_REGISTER_OP(relu6, static_cast<UnaryFn>(&relu6));
EMBER_REGISTER_OP(hardswish, static_cast<UnaryFn>(&hardswish));
EMBER_REGISTER_OP(hardswish_, static_cast<UnaryInplaceFn>(&hardswish_));
EMBER_REGISTER_OP(hardsigmoid, static_cast<UnaryFn>(&hardsigmoid));
EMBER_REGISTER_OP(hardsigmoid_, static_cast<UnaryInplaceFn>(&hardsigmoid_));
EMBER_REGISTER_OP(gelu, static_cast<Tensor (*)(const Tensor&, const std::string&)>(&gelu));
EMBER_REGISTER_OP(silu, static_cast<UnaryFn>(&silu));
EMBER_REGISTER_OP(silu_, static_cast<UnaryInplaceFn>(&silu_));

// relu6 is a composite (hardtanh records).
EMBER_REGISTER_AUTOGRAD(hardtanh, &hardtanh_autograd);
EMBER_REGISTER_AUTOGRAD(hardtanh_, &hardtanh__autograd);
EMBER_REGISTER_AUTOGRAD(hardswish,
                        (&activation_autograd<ActivationOp::Hardswish, OpId::hardswish>));
EMBER_REGISTER_AUTOGRAD(hardswish_,
                        (&activation__autograd<ActivationOp::Hardswish, OpId::hardswish_>));
EMBER_REGISTER_AUTOGRAD(hardsigmoid,
                        (&activation_autograd<ActivationOp::Hardsigmoid, OpId::hardsigmoid>));
EMBER_REGISTER_AUTOGRAD(hardsigmoid_,
                        (&activation__autograd<ActivationOp::Hardsigmoid, OpId::hardsigmoid_>));
EMBER_REGISTER_AUTOGRAD(silu, (&activation_autograd<ActivationOp::Silu, OpId::silu>));
EMBER_REGISTER_AUTOGRAD(silu_, (&activation__autograd<ActivationOp::Silu, OpId::silu_>));
EMBER_REGISTER_AUTOGRAD(gelu, &gelu_autograd);

}  // namespace ember
