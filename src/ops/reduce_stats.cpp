// var / std (with a correction) and vector norms; the rest of the reductions are in reduce.cpp.
#include <cmath>

#include "../backends/cpu/reduce_kernels.h"
#include "../dispatch/boxing.h"
#include "ember/ops/complex.h"
#include "ember/ops/math.h"
#include "ember/ops/reduce.h"
#include "elementwise.h"
#include "reduce_common.h"

namespace ember {

using dispatch::OpId;

namespace {

Tensor var_like(const char* op, const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                const std::optional<Scalar>& correction, bool keepdim, bool take_sqrt) {
  ops::check_not_quantized(op, {self});
  EMBER_CHECK(is_floating(self.dtype()) || is_complex(self.dtype()),
              "std and var only support floating point and complex dtypes");
  DimVector dims = ops::reduction_dims(dim ? IntArrayRef(*dim) : IntArrayRef(), self.dim());
  const double c = correction ? correction->to_double() : 1.0;
  // A complex input's variance is real: E|x - mean|^2, the sum of its parts' variances.
  Tensor out = empty(ops::reduced_shape(self.sizes(), dims, keepdim),
                     TensorOptions(to_real_value_type(self.dtype())).device(self.device()));
  if (out.is_meta()) return out;
  if (!self.is_complex()) {
    cpu::var_kernel(out, self, dims, c, take_sqrt);
    return out;
  }
  Tensor imag_var = empty_like(out);
  cpu::var_kernel(out, real(self).contiguous(), dims, c, false);
  cpu::var_kernel(imag_var, imag(self).contiguous(), dims, c, false);
  out.add_(imag_var);
  if (take_sqrt) out.sqrt_();
  return out;
}

Tensor var_impl(const Tensor& self, std::optional<std::vector<int64_t>> dim,
                std::optional<Scalar> correction, bool keepdim) {
  return var_like("aten::var", self, dim, correction, keepdim, false);
}
Tensor std_impl(const Tensor& self, std::optional<std::vector<int64_t>> dim,
                std::optional<Scalar> correction, bool keepdim) {
  return var_like("aten::std", self, dim, correction, keepdim, true);
}

// p = None means 2; dim = [] means every dim. An input with no elements gives zeros for every
// p (PyTorch fills before looking at p), even where the formula would say inf.
Tensor norm_impl(const Tensor& self, std::optional<Scalar> p, IntArrayRef dim, bool keepdim) {
  ops::check_not_quantized("aten::norm", {self});
  EMBER_CHECK(is_floating(self.dtype()) || is_complex(self.dtype()),
              "norm(): input dtype should be either floating point or complex. Got ",
              scalar_type_name(self.dtype()), " instead.");
  DimVector dims = ops::reduction_dims(dim, self.dim());
  // A complex input's norm is real: the norm of its moduli.
  Tensor out = empty(ops::reduced_shape(self.sizes(), dims, keepdim),
                     TensorOptions(to_real_value_type(self.dtype())).device(self.device()));
  if (out.is_meta()) return out;
  if (self.numel() == 0) {
    out.zero_();
  } else {
    cpu::norm_kernel(out, self.is_complex() ? self.abs() : self, dims, p ? p->to_double() : 2.0);
  }
  return out;
}

}  // namespace

// ---- autograd ----
// PyTorch's norm_backward: the gradient of (sum |x|^p)^(1/p) for each p, 0 where the norm is 0.
Tensor ops::norm_backward(Tensor grad, const Tensor& self, double p, Tensor norm,
                     const std::vector<int64_t>& dims, bool keepdim) {
  if (!keepdim && self.dim() != 0) {
    grad = ops::unsqueeze_to(grad, dims, self.dim());
    norm = ops::unsqueeze_to(norm, dims, self.dim());
  }
  if (p == 0.0) return Tensor();  // the count of non-zeros is piecewise constant
  // sgn(x) = x / |x| is sign(x) on real x and the direction of the (conjugate Wirtinger)
  // gradient of |x| on complex x: one formula for both.
  const auto sign_of = [](const Tensor& x) { return x.is_complex() ? sgn(x) : x.sign(); };
  if (p == 1.0) return sign_of(self) * grad;
  if (p == 2.0) return grad * (self / norm).masked_fill(norm == 0, 0);
  if (std::isinf(p)) {
    // amax(|x|) respecting NaNs: ties and NaNs share the gradient.
    Tensor self_abs = self.abs();
    Tensor mask = self_abs.eq(norm).logical_or(self_abs != self_abs);
    return sign_of(self) * ((grad / mask.sum(dims, true)) * mask);
  }
  if (p < 1.0) {
    Tensor self_scaled = sign_of(self) * self.abs().pow(p - 1).masked_fill(self == 0, 0);
    return self_scaled * grad * norm.pow(1 - p);
  }
  Tensor self_scaled = p < 2.0 ? sign_of(self) * self.abs().pow(p - 1) : self * self.abs().pow(p - 2);
  Tensor scale_v = (grad / norm.pow(p - 1)).masked_fill(norm == 0, 0);
  return self_scaled * scale_v;
}

namespace {
using autograd::OpNode;
using autograd::tensor_list;

// d var = 2 (x - mean) / (N - correction), N the count each output reduced. PyTorch 1.13 takes
// dim=[] as one element (N = 1, an infinite gradient) and returns a 0-d gradient when
// N == correction over all dims; both contradict its forward, so ember uses the formula as is.
Tensor var_backward(Tensor grad, const Tensor& self, const std::vector<int64_t>& dims,
                    double correction, bool keepdim) {
  if (!keepdim) grad = ops::unsqueeze_to(grad, dims, self.dim());
  const double dof = static_cast<double>(ops::reduced_numel(self.sizes(), dims)) - correction;
  // mul.Scalar and (over every dim) mean.default, as PyTorch's var_backward.
  return mul(grad, 2.0 / dof) * (self - (dims.empty() ? self.mean() : self.mean(dims, true)));
}

// d std = d var / (2 std), 0 where std is 0.
Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self,
                    const std::vector<int64_t>& dims, double correction, bool keepdim) {
  Tensor grad_var = (grad / mul(result, 2)).masked_fill(result == 0, 0);
  return var_backward(grad_var, self, dims, correction, keepdim);
}

template <bool take_sqrt>
Tensor var_std_autograd(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                        const std::optional<Scalar>& correction, const bool& keepdim) {
  constexpr OpId id = take_sqrt ? OpId::std_correction : OpId::var_correction;
  constexpr auto impl = take_sqrt ? std_impl : var_impl;
  autograd::Recorder r(take_sqrt ? "StdBackward0" : "VarBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<impl>(id, self, dim, correction, keepdim); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self"), result_ = 1;
  const double c = correction ? correction->to_double() : 1.0;
  r.values("correction", correction, "dim", dim, "keepdim", keepdim);
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    static const std::vector<int64_t> all;
    const std::vector<int64_t>& dims = n.value(1).is_none() ? all : n.value(1).to_int_list();
    if constexpr (take_sqrt) {
      return tensor_list{std_backward(n.saved(result_), g[0], n.saved(self_), dims, c, keepdim)};
    } else {
      return tensor_list{var_backward(g[0], n.saved(self_), dims, c, keepdim)};
    }
  });
  if (take_sqrt) ops::save_output_at(r, out, result_, "result");
  return out;
}

Tensor norm_autograd(const Tensor& self, const std::optional<Scalar>& p, const IntArrayRef& dim,
                     const bool& keepdim) {
  autograd::Recorder r("NormBackward1", self);
  Tensor out = r.forward(
      [&] { return dispatch::call<norm_impl>(OpId::norm_ScalarOpt_dim, self, p, dim, keepdim); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self"), result_ = 1;
  const double pv = p ? p->to_double() : 2.0;
  r.values("dim", dim, "keepdim", keepdim, "p", p);
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{ops::norm_backward(g[0], n.saved(self_), pv, n.saved(result_), n.value(0).to_int_list(),
                                          keepdim)};
  });
  ops::save_output_at(r, out, result_, "result");
  return out;
}
}  // namespace

EMBER_REGISTER_AUTOGRAD(var_correction, &var_std_autograd<false>);
EMBER_REGISTER_AUTOGRAD(std_correction, &var_std_autograd<true>);
EMBER_REGISTER_AUTOGRAD(norm_ScalarOpt_dim, &norm_autograd);

// ---- frontends (schema order) and boxed registration ----

Tensor var(const Tensor& self, std::optional<std::vector<int64_t>> dims,
           std::optional<Scalar> correction, bool keepdim) {
  return dispatch::call<var_impl>(OpId::var_correction, self, dims, correction, keepdim);
}
Tensor std(const Tensor& self, std::optional<std::vector<int64_t>> dims,
           std::optional<Scalar> correction, bool keepdim) {
  return dispatch::call<std_impl>(OpId::std_correction, self, dims, correction, keepdim);
}
Tensor norm(const Tensor& self, std::optional<Scalar> p, IntArrayRef dims, bool keepdim) {
  return dispatch::call<norm_impl>(OpId::norm_ScalarOpt_dim, self, p, dims, keepdim);
}

using VarFn = Tensor (*)(const Tensor&, std::optional<std::vector<int64_t>>, std::optional<Scalar>, bool);
EMBER_REGISTER_OP(var_correction, static_cast<VarFn>(&var));
EMBER_REGISTER_OP(std_correction, static_cast<VarFn>(&std));
EMBER_REGISTER_OP(norm_ScalarOpt_dim, &norm);

// ---- Tensor methods ----
Tensor Tensor::var(std::optional<std::vector<int64_t>> dims, double correction, bool keepdim) const {
  return ember::var(*this, std::move(dims), Scalar(correction), keepdim);
}
Tensor Tensor::std(std::optional<std::vector<int64_t>> dims, double correction, bool keepdim) const {
  return ember::std(*this, std::move(dims), Scalar(correction), keepdim);
}
Tensor Tensor::norm(const Scalar& p, std::optional<std::vector<int64_t>> dims, bool keepdim) const {
  return ember::norm(*this, p, dims ? IntArrayRef(*dims) : IntArrayRef(), keepdim);
}

}  // namespace ember
