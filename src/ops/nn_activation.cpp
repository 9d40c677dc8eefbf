// The parameterised activations of issue 16. elu and leaky_relu are Primitives with their own
// backward ops (elu_backward, leaky_relu_backward), as PyTorch has them, so handlers and grad_fn
// names match (EluBackward0, LeakyReluBackward0). The rest are Composite rows whose bodies call
// primitives: selu and celu are elu with PyTorch's constants (their grad_fn is elu's, as in
// PyTorch's selu), softplus / mish / log_sigmoid keep the exponential's argument bounded so that
// neither the value nor the gradient overflows.
#include <cmath>

#include "../autograd/record.h"
#include "../backends/cpu/copy_kernel.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/generator.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/random.h"
#include "ember/ops/reduce.h"
#include "pointwise_helpers.h"

namespace ember {

using dispatch::OpId;

namespace {

void check_floating(const char* kernel, ScalarType dtype) {
  EMBER_CHECK(is_floating(dtype), "\"", kernel, "\" not implemented for '", scalar_type_name(dtype),
              "'");
}


// ---- elu ----
Tensor elu_impl(const Tensor& self, const Scalar& alpha, const Scalar& scale,
                const Scalar& input_scale) {
  ops::check_not_quantized("elu", {self});
  check_floating("elu_cpu", self.dtype());
  const double a = alpha.to_double(), s = scale.to_double(), is = input_scale.to_double();
  if (self.is_meta()) return empty_like(self);
  return where(self > 0, self * s, expm1(self * is) * (a * s));
}

// PyTorch's elu_backward: from the input (is_result false) or from the output (elu_ saves it).
Tensor elu_backward_impl(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                         const Scalar& input_scale, bool is_result, const Tensor& x) {
  ops::check_not_quantized("elu_backward", {grad_output, x});
  check_floating("elu_backward_cpu", result_type(grad_output, x));
  const double negcoef = alpha.to_double() * scale.to_double(), poscoef = scale.to_double(),
               negiptcoef = input_scale.to_double();
  if (is_result) {
    EMBER_CHECK(alpha.to_double() >= 0,
                "In-place elu backward calculation is triggered with a negative slope which is not "
                "supported. This is caused by calling in-place forward function with a negative "
                "slope, please call out-of-place version instead.");
  }
  if (grad_output.is_meta() || x.is_meta())
    return empty(broadcast_shapes(grad_output.sizes(), x.sizes()),
                 TensorOptions(result_type(grad_output, x)).device(kMeta));
  const Tensor neg = is_result ? grad_output * ((x + negcoef) * negiptcoef)
                               : grad_output * (exp(x * negiptcoef) * (negiptcoef * negcoef));
  return where(x <= 0, neg, grad_output * poscoef);
}

// ---- leaky_relu ----
Tensor leaky_relu_impl(const Tensor& self, const Scalar& negative_slope) {
  ops::check_not_quantized("leaky_relu", {self});
  check_floating("leaky_relu_cpu", self.dtype());
  if (self.is_meta()) return empty_like(self);
  return where(self > 0, self, self * negative_slope.to_double());
}

Tensor leaky_relu_backward_impl(const Tensor& grad_output, const Tensor& self,
                                const Scalar& negative_slope, bool self_is_result) {
  ops::check_not_quantized("leaky_relu_backward", {grad_output, self});
  EMBER_CHECK(!self_is_result || negative_slope.to_double() >= 0.0,
              "In-place leakyReLu backward calculation is triggered with a negative slope which is "
              "not supported. This is caused by calling in-place forward function with a negative "
              "slope, please call out-of-place version instead. File an issue at "
              "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
              "backward calculation with negative slope");
  check_floating("leaky_relu_backward_cpu", result_type(grad_output, self));
  if (grad_output.is_meta() || self.is_meta())
    return empty(broadcast_shapes(grad_output.sizes(), self.sizes()),
                 TensorOptions(result_type(grad_output, self)).device(kMeta));
  return where(self > 0, grad_output, grad_output * negative_slope.to_double());
}

// In place: the out-of-place values written into self (PyTorch's elu_ / leaky_relu_).
Tensor elu__impl(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  ops::check_no_internal_overlap("elu_", self);
  const Tensor out = elu_impl(self, alpha, scale, input_scale);
  if (!self.is_meta()) cpu::copy_kernel(self, out);
  return ops::mark_written(self);
}

Tensor leaky_relu__impl(const Tensor& self, const Scalar& negative_slope) {
  ops::check_no_internal_overlap("leaky_relu_", self);
  const Tensor out = leaky_relu_impl(self, negative_slope);
  if (!self.is_meta()) cpu::copy_kernel(self, out);
  return ops::mark_written(self);
}

// ---- composites ----
Tensor selu_impl(const Tensor& self) {
  return elu(self, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 1);
}

Tensor celu_impl(const Tensor& self, const Scalar& alpha) {
  EMBER_CHECK(alpha.to_double() != 0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  return elu(self, alpha, 1.0, 1.0 / alpha.to_double());
}

// log1p(exp(beta x)) / beta below the threshold, x above it; the exponential sees a clamped
// argument so that the branch not taken stays finite (and so does its gradient).
Tensor softplus_impl(const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  check_floating("softplus_cpu", self.dtype());
  const double b = beta.to_double(), th = threshold.to_double();
  const Tensor bx = self * b;
  return where(bx > th, self, log1p(exp(clamp(bx, std::nullopt, Scalar(th)))) / b);
}

Tensor mish_impl(const Tensor& self) {
  check_floating("mish_cpu", self.dtype());
  return self * tanh(softplus(self, 1, 20));
}

Tensor glu_impl(const Tensor& self, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "glu does not support scalars because halving size must be even");
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = self.size(d);
  EMBER_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension ", d, " is size ", n);
  return self.narrow(d, 0, n / 2) * sigmoid(self.narrow(d, n / 2, n / 2));
}

// min(x, 0) - log1p(exp(-|x|)): PyTorch's stable form.
Tensor log_sigmoid_impl(const Tensor& self) {
  check_floating("log_sigmoid_cpu", self.dtype());
  return clamp(self, std::nullopt, Scalar(0.0)) - log1p(exp(-abs(self)));
}

Tensor softshrink_impl(const Tensor& self, const Scalar& lambd) {
  const double l = lambd.to_double();
  EMBER_CHECK(l >= 0, "lambda must be greater or equal to 0, but found to be ", l, ".");
  check_floating("softshrink_cpu", self.dtype());
  return where(self > l, self - l, where(self < -l, self + l, zeros_like(self)));
}

Tensor hardshrink_impl(const Tensor& self, const Scalar& lambd) {
  check_floating("hardshrink_cpu", self.dtype());
  const double l = lambd.to_double();
  return where(logical_and(self >= -l, self <= l), zeros_like(self), self);
}

// PyTorch's prelu: one weight, or one per channel (dim 1).
Tensor prelu_impl(const Tensor& self, const Tensor& weight) {
  const int64_t nw = weight.numel();
  EMBER_CHECK(weight.dim() <= 1, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = ",
              weight.dim());
  Tensor w = weight;
  if (nw != 1) {
    EMBER_CHECK(self.dim() > 0, "Not allow zero-dim input tensor.");
    const int64_t channels = self.dim() >= 2 ? self.size(1) : 1;
    EMBER_CHECK(nw == channels, "Mismatch of parameter numbers and input channel size. Found parameter ",
                "numbers = ", nw, " and channel size = ", channels, ".");
    std::vector<int64_t> shape(static_cast<size_t>(self.dim()), 1);
    if (self.dim() >= 2) shape[1] = nw;
    w = weight.reshape(shape);
  } else {
    w = weight.reshape({});
  }
  return where(self > 0, self, w * self);
}

// Training: a slope drawn from U(lower, upper) for each non-positive element; eval: their mean.
Tensor rrelu_impl(const Tensor& self, const Scalar& lower, const Scalar& upper, bool training,
                  Generator* generator) {
  const double lo = lower.to_double(), hi = upper.to_double();
  EMBER_CHECK(lo <= hi, "Lower bound should be less than or equal to the upper bound");
  if (!training) return leaky_relu(self, (lo + hi) / 2);
  check_floating("rrelu_with_noise_cpu", self.dtype());
  Tensor noise = empty_like(self);
  if (!noise.is_meta()) uniform_(noise, lo, hi, generator);
  return where(self > 0, self, self * noise);
}

Tensor threshold_impl(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  EMBER_CHECK(self.dtype() != kBool, "\"threshold_cpu\" not implemented for 'Bool'");
  return where(self > wrapped_scalar_tensor(threshold), self,
               full_like(self, value));
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

Tensor elu_autograd(const Tensor& self, const Scalar& alpha, const Scalar& scale,
                    const Scalar& input_scale) {
  autograd::Recorder r("EluBackward0", self);
  Tensor out = r.forward(
      [&] { return dispatch::call<elu_impl>(OpId::elu, self, alpha, scale, input_scale); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self");
  r.values("alpha", alpha, "input_scale", input_scale, "scale", scale);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{elu_backward(g[0], n.value(0).to_scalar(), n.value(2).to_scalar(),
                                    n.value(1).to_scalar(), false, n.saved(self_))};
  });
}

// d/dg is elu_backward itself; d/dx (input form) is g * negiptcoef^2 * negcoef * exp(x * negiptcoef)
// on x <= 0, and (output form) g * negiptcoef on y <= 0.
Tensor elu_backward_autograd(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                             const Scalar& input_scale, const bool& is_result, const Tensor& x) {
  autograd::Recorder r("EluBackwardBackward0", grad_output, x);
  Tensor out = r.forward([&] {
    return dispatch::call<elu_backward_impl>(OpId::elu_backward, grad_output, alpha, scale,
                                             input_scale, is_result, x);
  });
  if (!r) return out;
  const size_t g_ = r.save(grad_output, "grad_output"), x_ = r.save(x, "self_or_result");
  r.values("alpha", alpha, "input_scale", input_scale, "is_result", is_result, "scale", scale);
  const bool res = is_result;
  return r.finish(out, [=](OpNode& n, const tensor_list& gg) {
    const Tensor x = n.saved(x_);
    Tensor dg, dx;
    if (n.needs(0)) dg = elu_backward(gg[0], alpha, scale, input_scale, res, x);
    if (n.needs(1)) {
      const double negcoef = alpha.to_double() * scale.to_double(), nis = input_scale.to_double();
      const Tensor go = n.saved(g_);
      const Tensor d = res ? go * nis : go * (exp(x * nis) * (nis * nis * negcoef));
      dx = where(x <= 0, gg[0] * d, zeros_like(d));
    }
    return tensor_list{dg, dx};
  });
}

// The in-place forms save their result (EluBackward1 / LeakyReluBackward1, as PyTorch): the
// backward reads the output, which is why a negative slope is refused there.
Tensor elu__autograd(const Tensor& self, const Scalar& alpha, const Scalar& scale,
                     const Scalar& input_scale) {
  autograd::Recorder r("EluBackward1", self);
  autograd::check_inplace_if(r, self);
  r.forward([&] { return dispatch::call<elu__impl>(OpId::elu_, self, alpha, scale, input_scale); });
  if (!r) return self;
  r.values("alpha", alpha, "input_scale", input_scale, "scale", scale);
  r.finish_inplace(self, [](OpNode& n, const tensor_list& g) {
    return tensor_list{elu_backward(g[0], n.value(0).to_scalar(), n.value(2).to_scalar(),
                                    n.value(1).to_scalar(), true, n.saved(0))};
  });
  r.save_output(self, "result");
  return self;
}

Tensor leaky_relu__autograd(const Tensor& self, const Scalar& negative_slope) {
  autograd::Recorder r("LeakyReluBackward1", self);
  autograd::check_inplace_if(r, self);
  r.forward([&] { return dispatch::call<leaky_relu__impl>(OpId::leaky_relu_, self, negative_slope); });
  if (!r) return self;
  r.values("negative_slope", negative_slope);
  r.finish_inplace(self, [](OpNode& n, const tensor_list& g) {
    return tensor_list{leaky_relu_backward(g[0], n.saved(0), n.value(0).to_scalar(), true)};
  });
  r.save_output(self, "result");
  return self;
}

Tensor leaky_relu_autograd(const Tensor& self, const Scalar& negative_slope) {
  autograd::Recorder r("LeakyReluBackward0", self);
  Tensor out = r.forward(
      [&] { return dispatch::call<leaky_relu_impl>(OpId::leaky_relu, self, negative_slope); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self");
  r.values("negative_slope", negative_slope);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{leaky_relu_backward(g[0], n.saved(self_), n.value(0).to_scalar(), false)};
  });
}

Tensor leaky_relu_backward_autograd(const Tensor& grad_output, const Tensor& self,
                                    const Scalar& negative_slope, const bool& self_is_result) {
  autograd::Recorder r("LeakyReluBackwardBackward0", grad_output, self);
  Tensor out = r.forward([&] {
    return dispatch::call<leaky_relu_backward_impl>(OpId::leaky_relu_backward, grad_output, self,
                                                    negative_slope, self_is_result);
  });
  if (!r) return out;
  const size_t self_ = r.save(self, "self");
  r.values("negative_slope", negative_slope);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    Tensor dg;
    if (n.needs(0)) dg = leaky_relu_backward(g[0], n.saved(self_), negative_slope, false);
    return tensor_list{dg, n.needs(1) ? zeros_like(n.saved(self_)) : Tensor()};
  });
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(elu, &elu_autograd);
EMBER_REGISTER_AUTOGRAD(elu_backward, &elu_backward_autograd);
EMBER_REGISTER_AUTOGRAD(leaky_relu, &leaky_relu_autograd);
EMBER_REGISTER_AUTOGRAD(leaky_relu_backward, &leaky_relu_backward_autograd);
EMBER_REGISTER_AUTOGRAD(elu_, &elu__autograd);
EMBER_REGISTER_AUTOGRAD(leaky_relu_, &leaky_relu__autograd);

Tensor elu(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  return dispatch::call<elu_impl>(OpId::elu, self, alpha, scale, input_scale);
}
Tensor elu_backward(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                    const Scalar& input_scale, bool is_result, const Tensor& self_or_result) {
  return dispatch::call<elu_backward_impl>(OpId::elu_backward, grad_output, alpha, scale,
                                           input_scale, is_result, self_or_result);
}
Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope) {
  return dispatch::call<leaky_relu_impl>(OpId::leaky_relu, self, negative_slope);
}
Tensor leaky_relu_backward(const Tensor& grad_output, const Tensor& self,
                           const Scalar& negative_slope, bool self_is_result) {
  return dispatch::call<leaky_relu_backward_impl>(OpId::leaky_relu_backward, grad_output, self,
                                                  negative_slope, self_is_result);
}
Tensor& elu_(Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  dispatch::call<elu__impl>(OpId::elu_, self, alpha, scale, input_scale);
  return self;
}
Tensor& leaky_relu_(Tensor& self, const Scalar& negative_slope) {
  dispatch::call<leaky_relu__impl>(OpId::leaky_relu_, self, negative_slope);
  return self;
}
Tensor selu(const Tensor& self) { return dispatch::call<selu_impl>(OpId::selu, self); }
Tensor celu(const Tensor& self, const Scalar& alpha) {
  return dispatch::call<celu_impl>(OpId::celu, self, alpha);
}
Tensor softplus(const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  return dispatch::call<softplus_impl>(OpId::softplus, self, beta, threshold);
}
Tensor mish(const Tensor& self) { return dispatch::call<mish_impl>(OpId::mish, self); }
Tensor glu(const Tensor& self, int64_t dim) { return dispatch::call<glu_impl>(OpId::glu, self, dim); }
Tensor log_sigmoid(const Tensor& self) {
  return dispatch::call<log_sigmoid_impl>(OpId::log_sigmoid, self);
}
Tensor softshrink(const Tensor& self, const Scalar& lambd) {
  return dispatch::call<softshrink_impl>(OpId::softshrink, self, lambd);
}
Tensor hardshrink(const Tensor& self, const Scalar& lambd) {
  return dispatch::call<hardshrink_impl>(OpId::hardshrink, self, lambd);
}
Tensor prelu(const Tensor& self, const Tensor& weight) {
  return dispatch::call<prelu_impl>(OpId::prelu, self, weight);
}
Tensor rrelu(const Tensor& self, const Scalar& lower, const Scalar& upper, bool training,
             Generator* generator) {
  return dispatch::call<rrelu_impl>(OpId::rrelu, self, lower, upper, training, generator);
}
Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  return dispatch::call<threshold_impl>(OpId::threshold, self, threshold, value);
}

EMBER_REGISTER_OP(elu, &elu);
EMBER_REGISTER_OP(elu_backward, &elu_backward);
EMBER_REGISTER_OP(leaky_relu, &leaky_relu);
EMBER_REGISTER_OP(leaky_relu_backward, &leaky_relu_backward);
EMBER_REGISTER_OP(elu_, static_cast<Tensor& (*)(Tensor&, const Scalar&, const Scalar&, const Scalar&)>(&elu_));
EMBER_REGISTER_OP(leaky_relu_, static_cast<Tensor& (*)(Tensor&, const Scalar&)>(&leaky_relu_));
EMBER_REGISTER_OP(selu, &selu);
EMBER_REGISTER_OP(celu, &celu);
EMBER_REGISTER_OP(softplus, &softplus);
EMBER_REGISTER_OP(mish, &mish);
EMBER_REGISTER_OP(glu, &glu);
EMBER_REGISTER_OP(log_sigmoid, &log_sigmoid);
EMBER_REGISTER_OP(softshrink, &softshrink);
EMBER_REGISTER_OP(hardshrink, &hardshrink);
EMBER_REGISTER_OP(prelu, &prelu);
EMBER_REGISTER_OP(rrelu, &rrelu);
EMBER_REGISTER_OP(threshold, &threshold);

}  // namespace ember
