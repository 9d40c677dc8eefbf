// The first derivatives of the activations as ops of their own, as PyTorch has them:
// threshold_backward (relu), tanh_backward, sigmoid_backward, hardtanh_backward, gelu_backward,
// hardswish_backward, hardsigmoid_backward, silu_backward.
//
// Note [Backward formulas call ops]
// A backward formula runs on whatever tensors the forward saw: a wrapper subclass (no data of
// its own, its payload in Python fields) or tensors under a TorchDispatchMode. So a formula
// never calls a CPU kernel directly; it calls ops, which reach the handler (which unwraps and
// calls back) or the backend. Where PyTorch's formula is one op of its own, ember's is that op,
// so handlers see PyTorch's names (threshold_backward, not le + where), with PyTorch's schema,
// and its own backward rule for double backward.
#include <cmath>

#include "../autograd/record.h"
#include "../backends/cpu/activation_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "pointwise_helpers.h"

namespace ember {

using dispatch::OpId;

namespace {

// The result of a backward op of (grad, self): their promoted dtype and broadcast shape, laid
// out as an elementwise result of both (a channels_last gradient stays channels_last).
struct BackwardOperands {
  Tensor out, grad, self;
};

BackwardOperands backward_operands(const char* op, const Tensor& grad, const Tensor& self) {
  ops::check_not_quantized(op, {grad, self});
  const Device device = ops::common_device(op, {grad, self});
  const ScalarType dtype = result_type(grad, self);
  Tensor out = ops::new_output(broadcast_shapes(grad.sizes(), self.sizes()), dtype, device,
                               {grad, self});
  if (out.is_meta()) return {out, grad, self};
  return {out, ops::cast(grad, dtype), ops::cast(self, dtype)};
}

Tensor threshold_backward_impl(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  auto [out, g, s] = backward_operands("threshold_backward", grad_output, self);
  if (!out.is_meta()) cpu::threshold_backward_kernel(out, g, s, threshold);
  return out;
}

Tensor tanh_backward_impl(const Tensor& grad_output, const Tensor& output) {
  auto [out, g, y] = backward_operands("tanh_backward", grad_output, output);
  if (!out.is_meta()) cpu::tanh_backward_kernel(out, g, y);
  return out;
}

Tensor sigmoid_backward_impl(const Tensor& grad_output, const Tensor& output) {
  auto [out, g, y] = backward_operands("sigmoid_backward", grad_output, output);
  if (!out.is_meta()) cpu::sigmoid_backward_kernel(out, g, y);
  return out;
}

Tensor hardtanh_backward_impl(const Tensor& grad_output, const Tensor& self, const Scalar& min_val,
                              const Scalar& max_val) {
  auto [out, g, s] = backward_operands("hardtanh_backward", grad_output, self);
  if (!out.is_meta())
    cpu::hardtanh_backward_kernel(out, g, s, min_val.to_double(), max_val.to_double());
  return out;
}

Tensor gelu_backward_impl(const Tensor& grad_output, const Tensor& self, const std::string& approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh",
              "approximate argument must be either none or tanh.");
  auto [out, g, s] = backward_operands("gelu_backward", grad_output, self);
  if (!out.is_meta()) cpu::gelu_backward_kernel(out, g, s, approximate == "tanh");
  return out;
}

// hardswish, hardsigmoid and silu: bodies of Tensor ops on plain tensors (below every layer).
// hardswish and hardsigmoid follow PyTorch 1.13's (vectorized) CPU kernels at their kinks and
// at NaN: hardswish' is 0 below -3, 1 from 3 up, x/3 + 1/2 between (NaN propagates);
// hardsigmoid' is 1/6 strictly inside (-3, 3), else 0.
void check_floating_backward(const char* kernel, const Tensor& grad, const Tensor& self) {
  const ScalarType dtype = result_type(grad, self);
  EMBER_CHECK(is_floating(dtype), "\"", kernel, "\" not implemented for '", scalar_type_name(dtype), "'");
}
Tensor zero_number() { return wrapped_scalar_tensor(0.0); }

Tensor hardswish_backward_impl(const Tensor& grad_output, const Tensor& self) {
  ops::check_not_quantized("hardswish_backward", {grad_output, self});
  check_floating_backward("hardswish_backward_cpu", grad_output, self);
  const Tensor& g = grad_output;
  return where(self < -3, zero_number(), where(self >= 3, g, g * (self / 3 + 0.5)));
}

Tensor hardsigmoid_backward_impl(const Tensor& grad_output, const Tensor& self) {
  ops::check_not_quantized("hardsigmoid_backward", {grad_output, self});
  check_floating_backward("hardsigmoid_backward", grad_output, self);
  // PyTorch's kernel multiplies by 1/6 as a float constant, whatever the dtype.
  return where(logical_and(self > -3, self < 3), mul(grad_output, static_cast<double>(1.0f / 6.0f)),
               zero_number());
}

// grad * sigmoid(x) * (1 + x * (1 - sigmoid(x))).
Tensor silu_backward_impl(const Tensor& grad_output, const Tensor& self) {
  ops::check_not_quantized("silu_backward", {grad_output, self});
  check_floating_backward("silu_backward_cpu", grad_output, self);
  const Tensor s = self.sigmoid();
  return grad_output * s * (1 + self * (1 - s));
}

// ---- autograd (double backward) ----
using autograd::OpNode;
using autograd::tensor_list;

// d threshold_backward(g, self, th) = threshold_backward(grad, self, th) for g; 0 for self
// (piecewise constant in self). hardtanh_backward likewise.
Tensor threshold_backward_autograd(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  autograd::Recorder r("ThresholdBackwardBackward0", grad_output, self);
  Tensor out = r.forward([&] {
    return dispatch::call<threshold_backward_impl>(OpId::threshold_backward, grad_output, self, threshold);
  });
  if (!r) return out;
  const size_t self_ = r.save(self, "self");
  r.values("threshold", threshold);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{n.needs(0) ? threshold_backward(g[0], n.saved(self_), n.value(0).to_scalar()) : Tensor(),
                       n.needs(1) ? zeros_like(g[0]) : Tensor()};
  });
}

Tensor hardtanh_backward_autograd(const Tensor& grad_output, const Tensor& self, const Scalar& min_val,
                                  const Scalar& max_val) {
  autograd::Recorder r("HardtanhBackwardBackward0", grad_output, self);
  Tensor out = r.forward([&] {
    return dispatch::call<hardtanh_backward_impl>(OpId::hardtanh_backward, grad_output, self,
                                                  min_val, max_val);
  });
  if (!r) return out;
  const size_t self_ = r.save(self, "self");
  r.values("max_val", max_val, "min_val", min_val);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{
        n.needs(0) ? hardtanh_backward(g[0], n.saved(self_), n.value(1).to_scalar(), n.value(0).to_scalar()) : Tensor(),
        n.needs(1) ? zeros_like(g[0]) : Tensor()};
  });
}

// tanh_backward(go, y) = go (1 - y^2): d go = tanh_backward(grad, y), d y = -2 y go grad.
Tensor tanh_backward_autograd(const Tensor& grad_output, const Tensor& output) {
  autograd::Recorder r("TanhBackwardBackward0", grad_output, output);
  Tensor out = r.forward(
      [&] { return dispatch::call<tanh_backward_impl>(OpId::tanh_backward, grad_output, output); });
  if (!r) return out;
  const size_t go_ = r.save_if(r.needs(1), grad_output, "grad_output"), y_ = r.save(output, "output");
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor y = n.saved(y_);
    return tensor_list{n.needs(0) ? tanh_backward(g[0], y) : Tensor(),
                       n.needs(1) ? g[0] * mul(y, -2) * n.saved(go_) : Tensor()};
  });
}

// sigmoid_backward(go, y) = go (1 - y) y: d go = sigmoid_backward(grad, y),
// d y = grad go (1 - 2 y).
Tensor sigmoid_backward_autograd(const Tensor& grad_output, const Tensor& output) {
  autograd::Recorder r("SigmoidBackwardBackward0", grad_output, output);
  Tensor out = r.forward([&] {
    return dispatch::call<sigmoid_backward_impl>(OpId::sigmoid_backward, grad_output, output);
  });
  if (!r) return out;
  const size_t go_ = r.save_if(r.needs(1), grad_output, "grad_output"), y_ = r.save(output, "output");
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor y = n.saved(y_);
    return tensor_list{n.needs(0) ? sigmoid_backward(g[0], y) : Tensor(),
                       n.needs(1) ? g[0] * n.saved(go_) * (mul(y, -2) + 1) : Tensor()};
  });
}

// hardswish_backward(go, x) is linear in go; d x = grad go / 3 inside (-3, 3), else 0.
// hardsigmoid_backward's derivative in x is 0 (piecewise constant).
template <OpId id>
Tensor hard_activation_backward_autograd(const Tensor& grad_output, const Tensor& self) {
  constexpr bool swish = id == OpId::hardswish_backward;
  constexpr auto impl = swish ? hardswish_backward_impl : hardsigmoid_backward_impl;
  autograd::Recorder r(swish ? "HardswishBackwardBackward0" : "HardsigmoidBackwardBackward0",
                       grad_output, self);
  Tensor out = r.forward([&] { return dispatch::call<impl>(id, grad_output, self); });
  if (!r) return out;
  const size_t go_ = r.save_if(swish && r.needs(1), grad_output, swish ? "grad_output" : nullptr);
  const size_t self_ = r.save(self, "self");
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor x = n.saved(self_);
    Tensor dx;
    if (n.needs(1)) {
      dx = swish ? where(logical_and(x > -3, x < 3), div(g[0] * n.saved(go_), 3), zero_number())
                 : zeros_like(g[0]);
    }
    return tensor_list{n.needs(0) ? (swish ? hardswish_backward(g[0], x) : hardsigmoid_backward(g[0], x))
                                  : Tensor(),
                       dx};
  });
}

// silu_backward(go, x) = go silu'(x): d go = silu_backward(grad, x),
// d x = grad go silu''(x), silu'' = s (1 - s) (2 + x (1 - 2 s)).
Tensor silu_backward_autograd(const Tensor& grad_output, const Tensor& self) {
  autograd::Recorder r("SiluBackwardBackward0", grad_output, self);
  Tensor out = r.forward(
      [&] { return dispatch::call<silu_backward_impl>(OpId::silu_backward, grad_output, self); });
  if (!r) return out;
  const size_t go_ = r.save_if(r.needs(1), grad_output), self_ = r.save(self);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor x = n.saved(self_);
    Tensor dx;
    if (n.needs(1)) {
      const Tensor s = x.sigmoid();
      dx = g[0] * n.saved(go_) * (s * (1 - s) * (2 + x * (1 - mul(s, 2))));
    }
    return tensor_list{n.needs(0) ? silu_backward(g[0], x) : Tensor(), dx};
  });
}

// Note [gelu's derivatives]
// gelu' needs the normal CDF (erf), which no Tensor op computes, so, as in PyTorch, the first
// derivative is an op of its own, gelu_backward(grad, self) = grad * gelu'(self), recorded as
// GeluBackwardBackward0. Its own derivatives are Tensor ops (gelu'' needs only exp, or tanh for
// the approximation), so gelu is differentiable to any order.

// gelu''(x) for the two forms.
Tensor gelu_second_derivative(const Tensor& x, bool tanh_form) {
  if (!tanh_form) {
    // d/dx [Phi(x) + x phi(x)] = phi(x) (2 - x^2), phi the standard normal density.
    const double inv_sqrt_2pi = M_2_SQRTPI * M_SQRT1_2 * 0.5;
    const Tensor x2 = x * x;
    return (-0.5 * x2).exp() * inv_sqrt_2pi * (2 - x2);
  }
  // gelu'(x) = (1 + t) / 2 + x (1 - t^2) h / 2 with t = tanh(u), u = b (x + k x^3) and
  // h = u' = b (1 + 3 k x^2), so gelu''(x) = (1 - t^2) (h - x t h^2 + 3 b k x^2).
  const double b = M_SQRT2 * M_2_SQRTPI * 0.5, k = 0.044715;
  const Tensor x2 = x * x;
  const Tensor t = (b * (x + k * x2 * x)).tanh();
  const Tensor h = b * (1 + 3 * k * x2);
  return (1 - t * t) * (h - x * t * h * h + 3 * b * k * x2);
}

Tensor gelu_backward_autograd(const Tensor& grad_output, const Tensor& self, const std::string& approximate) {
  autograd::Recorder r("GeluBackwardBackward0", grad_output, self);
  Tensor out = r.forward([&] {
    return dispatch::call<gelu_backward_impl>(OpId::gelu_backward, grad_output, self, approximate);
  });
  if (!r) return out;
  const size_t go_ = r.save_if(r.needs(1), grad_output, "grad_output"), self_ = r.save(self, "self");
  const bool tanh_form = approximate == "tanh";
  r.values("approximate", approximate);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor x = n.saved(self_);
    return tensor_list{
        n.needs(0) ? gelu_backward(g[0], x, approximate) : Tensor(),
        n.needs(1) ? g[0] * n.saved(go_) * gelu_second_derivative(x, tanh_form) : Tensor()};
  });
}

}  // namespace

Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  return dispatch::call<threshold_backward_impl>(OpId::threshold_backward, grad_output, self, threshold);
}
Tensor tanh_backward(const Tensor& grad_output, const Tensor& output) {
  return dispatch::call<tanh_backward_impl>(OpId::tanh_backward, grad_output, output);
}
Tensor sigmoid_backward(const Tensor& grad_output, const Tensor& output) {
  return dispatch::call<sigmoid_backward_impl>(OpId::sigmoid_backward, grad_output, output);
}
Tensor hardtanh_backward(const Tensor& grad_output, const Tensor& self, const Scalar& min_val,
                         const Scalar& max_val) {
  return dispatch::call<hardtanh_backward_impl>(OpId::hardtanh_backward, grad_output, self, min_val,
                                                max_val);
}
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self, const std::string& approximate) {
  return dispatch::call<gelu_backward_impl>(OpId::gelu_backward, grad_output, self, approximate);
}

Tensor hardswish_backward(const Tensor& grad_output, const Tensor& self) {
  return dispatch::call<hardswish_backward_impl>(OpId::hardswish_backward, grad_output, self);
}
Tensor hardsigmoid_backward(const Tensor& grad_output, const Tensor& self) {
  return dispatch::call<hardsigmoid_backward_impl>(OpId::hardsigmoid_backward, grad_output, self);
}
Tensor silu_backward(const Tensor& grad_output, const Tensor& self) {
  return dispatch::call<silu_backward_impl>(OpId::silu_backward, grad_output, self);
}

EMBER_REGISTER_OP(hardswish_backward, &hardswish_backward);
EMBER_REGISTER_OP(hardsigmoid_backward, &hardsigmoid_backward);
EMBER_REGISTER_OP(silu_backward, &silu_backward);
EMBER_REGISTER_AUTOGRAD(hardswish_backward, &hard_activation_backward_autograd<OpId::hardswish_backward>);
EMBER_REGISTER_AUTOGRAD(hardsigmoid_backward, &hard_activation_backward_autograd<OpId::hardsigmoid_backward>);
EMBER_REGISTER_AUTOGRAD(silu_backward, &silu_backward_autograd);
EMBER_REGISTER_OP(threshold_backward, &threshold_backward);
EMBER_REGISTER_OP(tanh_backward, &tanh_backward);
EMBER_REGISTER_OP(sigmoid_backward, &sigmoid_backward);
EMBER_REGISTER_OP(hardtanh_backward, &hardtanh_backward);
EMBER_REGISTER_OP(gelu_backward, &gelu_backward);
EMBER_REGISTER_AUTOGRAD(threshold_backward, &threshold_backward_autograd);
EMBER_REGISTER_AUTOGRAD(tanh_backward, &tanh_backward_autograd);
EMBER_REGISTER_AUTOGRAD(sigmoid_backward, &sigmoid_backward_autograd);
EMBER_REGISTER_AUTOGRAD(hardtanh_backward, &hardtanh_backward_autograd);
EMBER_REGISTER_AUTOGRAD(gelu_backward, &gelu_backward_autograd);

}  // namespace ember
