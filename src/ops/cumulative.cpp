// Scans along a dim: cumprod (and cumprod_), cummax, cummin, logcumsumexp, with their backward
// rules. (cumsum lives in reduce.cpp.)
//
// As PyTorch 1.13: cumprod computes integer and bool inputs in int64 (or in dtype= when given);
// cummax / cummin keep the dtype and return int64 indices of the last extremum (a NaN wins and
// stays); logcumsumexp takes floating inputs only. A 0-d input is one element along dim 0.
#include <cmath>

#include "../autograd/record.h"
#include "ember/grad_mode.h"
#include "../backends/cpu/math_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "pointwise_helpers.h"
#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/math.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/complex.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"

namespace ember {

using dispatch::OpId;

namespace {

int64_t scan_dim(const Tensor& self, int64_t dim) { return wrap_dim(dim, std::max<int64_t>(self.dim(), 1)); }

Tensor contiguous_output(const Tensor& self, ScalarType dtype) {
  return empty(self.sizes(), TensorOptions(dtype).device(self.device()));
}

Tensor cumprod_impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  ops::check_not_quantized("aten::cumprod", {self});
  const int64_t d = scan_dim(self, dim);
  const ScalarType out_dtype =
      dtype ? *dtype : (is_integral(self.dtype(), /*include_bool=*/true) ? kInt64 : self.dtype());
  Tensor out = contiguous_output(self, out_dtype);
  if (!out.is_meta()) cpu::cumprod_kernel(out, ops::cast(self, out_dtype), d);
  return out;
}

std::tuple<Tensor, Tensor> cummax_cummin_impl(const Tensor& self, int64_t dim, bool is_max) {
  ops::check_not_quantized(is_max ? "cummax" : "cummin", {self});
  const int64_t d = scan_dim(self, dim);
  Tensor values = contiguous_output(self, self.dtype());
  Tensor indices = contiguous_output(self, kInt64);
  if (!values.is_meta()) cpu::cummax_cummin_kernel(values, indices, self, d, is_max);
  return {values, indices};
}
std::tuple<Tensor, Tensor> cummax_impl(const Tensor& self, int64_t dim) {
  return cummax_cummin_impl(self, dim, true);
}
std::tuple<Tensor, Tensor> cummin_impl(const Tensor& self, int64_t dim) {
  return cummax_cummin_impl(self, dim, false);
}

Tensor logcumsumexp_impl(const Tensor& self, int64_t dim) {
  ops::check_not_quantized("logcumsumexp", {self});
  const int64_t d = scan_dim(self, dim);
  Tensor out = contiguous_output(self, self.dtype());
  if (!out.is_meta()) cpu::logcumsumexp_kernel(out, self, d);
  return out;
}

Tensor cumprod__impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(!dtype || *dtype == self.dtype(), "Bad in-place call: input tensor dtype ",
              ops::typemeta_name(self.dtype()), " and output tensor dtype ", ops::typemeta_name(*dtype),
              " should match");
  Tensor r = cumprod(self.clone(), dim, dtype);  // (its saved self is not the one written)
  EMBER_CHECK(can_cast(r.dtype(), self.dtype()), "result type ", scalar_type_name(r.dtype()),
              " can't be cast to the desired output type ", scalar_type_name(self.dtype()));
  Tensor s = self;
  s.copy_(r);
  return self;
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// Reverses a tensor along dim (an index_select: the flip op is another family's).
Tensor reversed(const Tensor& t, int64_t dim) {
  const Tensor rev = arange(t.size(dim) - 1, -1, -1, TensorOptions(kInt64).device(t.device()));
  return t.index_select(dim, rev);
}
Tensor reversed_cumsum(const Tensor& t, int64_t dim) { return reversed(reversed(t, dim).cumsum(dim), dim); }

// d cumprod(x)_j / dx_k = prod_{i <= j, i != k} x_i for k <= j. Without zeros in x that is
// out_j / x_k, so the gradient is reversed_cumsum(g * out) / x; with zeros, each position k
// sums g_j * (prod_{i < k} x_i) * (prod_{k < i <= j} x_i) directly.
// Complex (Note [Complex autograd]): the same with x and out conjugated, g * conj(d out / dx).
Tensor cumprod_backward(const Tensor& g, const Tensor& x_, const Tensor& out_, int64_t dim) {
  const Tensor x = conj_if_complex(x_), out = conj_if_complex(out_);
  if (x.numel() == 0) return zeros_like(x);
  if (x.dim() == 0) return g;
  const int64_t n = x.size(dim);
  if (!any(eq(x, wrapped_scalar_tensor(Scalar(0.0)))).item<bool>())
    return reversed_cumsum(g * out, dim) / x;
  std::vector<Tensor> parts;
  for (int64_t k = 0; k < n; ++k) {
    // prod_{i < k} x_i (1 for k = 0), kept as a size-1 slice along dim
    Tensor before = k == 0 ? ones_like(x.narrow(dim, 0, 1)) : out.narrow(dim, k - 1, 1);
    Tensor after = x.narrow(dim, k, n - k).clone();
    // the first factor (x_k itself) is left out: set to one, then a running product
    after.narrow(dim, 0, 1).fill_(1);
    Tensor running = cumprod(after, dim);
    parts.push_back(before * (g.narrow(dim, k, n - k) * running).sum(std::vector<int64_t>{dim}, true));
  }
  return cat(parts, dim);
}

Tensor cumprod_autograd(const Tensor& self, const int64_t& dim, const std::optional<ScalarType>& dtype) {
  autograd::Recorder r("CumprodBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<cumprod_impl>(OpId::cumprod, self, dim, dtype); });
  if (!r) return out;
  const int64_t d = scan_dim(self, dim);
  const size_t self_ = r.save(self, "self");
  r.values("dim", dim);
  r.finish(out, [=, self_dtype = self.dtype()](OpNode& node, const tensor_list& g) {
    const Tensor x = node.saved(self_), y = node.saved(self_ + 1);
    return tensor_list{cumprod_backward(g[0], x.to(y.dtype()), y, d).to(self_dtype)};
  });
  r.save_output(out, "result");
  return out;
}

// The gradient of each value goes to the input it was taken from: scatter_add by the indices.
template <bool is_max>
std::tuple<Tensor, Tensor> cummax_cummin_autograd(const Tensor& self, const int64_t& dim) {
  autograd::Recorder r(is_max ? "CummaxBackward0" : "CumminBackward0", self);
  auto outs = r.forward([&] {
    return is_max ? dispatch::call<cummax_impl>(OpId::cummax, self, dim)
                  : dispatch::call<cummin_impl>(OpId::cummin, self, dim);
  });
  if (!r) return outs;
  const int64_t d = scan_dim(self, dim);
  const size_t self_ = r.save(self, "self");
  r.values("dim", dim);
  outs = r.finish(outs, [=](OpNode& node, const tensor_list& g) {
    const Tensor x = node.saved(self_), idx = node.saved(self_ + 1);
    if (x.dim() == 0) return tensor_list{g[0]};
    return tensor_list{zeros_like(x).scatter_add(d, idx, g[0])};
  });
  r.save_output(std::get<1>(outs), "indices");
  return outs;
}

// d logcumsumexp(x)_j / dx_k = exp(x_k - out_j) for k <= j, so the gradient is
// sum_{j >= k} g_j exp(x_k - out_j). Plain backward sums the positive and negative parts of g in
// log space (as PyTorch does), so nothing overflows. That form is not differentiable where a part
// is empty (log 0), so a backward that records itself (create_graph) uses the same sum scaled by
// the line's last (largest) output instead: exp(x_k - c) * reversed_cumsum(g_j exp(c - out_j)),
// exact for lines whose outputs span less than ~700 (e^700 is near double's range).
Tensor logcumsumexp_backward(const Tensor& g, const Tensor& x, const Tensor& out, int64_t dim) {
  if (x.numel() == 0) return zeros_like(x);
  if (x.dim() == 0) return g;
  if (GradMode::is_enabled()) {
    const Tensor c = out.narrow(dim, out.size(dim) - 1, 1).detach();
    const Tensor finite_c = where(isfinite(c), c, wrapped_scalar_tensor(Scalar(0.0)));
    return exp(x - finite_c) * reversed_cumsum(g * exp(finite_c - out), dim);
  }
  const Tensor zero = wrapped_scalar_tensor(Scalar(0.0));
  const Tensor ninf = wrapped_scalar_tensor(Scalar(-INFINITY));
  auto part = [&](const Tensor& gp) {  // gp >= 0
    const Tensor lg = where(gt(gp, zero), log(gp), ninf) - out;
    return exp(reversed(logcumsumexp(reversed(lg, dim), dim), dim) + x);
  };
  return part(where(gt(g, zero), g, zero)) - part(where(lt(g, zero), -g, zero));
}

Tensor logcumsumexp_autograd(const Tensor& self, const int64_t& dim) {
  autograd::Recorder r("LogcumsumexpBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<logcumsumexp_impl>(OpId::logcumsumexp, self, dim); });
  if (!r) return out;
  const int64_t d = scan_dim(self, dim);
  const size_t self_ = r.save(self, "self");
  r.values("dim", dim);
  r.finish(out, [=](OpNode& node, const tensor_list& g) {
    return tensor_list{logcumsumexp_backward(g[0], node.saved(self_), node.saved(self_ + 1), d)};
  });
  r.save_output(out, "result");
  return out;
}

}  // namespace

Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return dispatch::call<cumprod_impl>(OpId::cumprod, self, dim, dtype);
}
Tensor& cumprod_(Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  dispatch::call<cumprod__impl>(OpId::cumprod_, self, dim, dtype);
  return self;
}
std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) {
  return dispatch::call<cummax_impl>(OpId::cummax, self, dim);
}
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) {
  return dispatch::call<cummin_impl>(OpId::cummin, self, dim);
}
Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  return dispatch::call<logcumsumexp_impl>(OpId::logcumsumexp, self, dim);
}

EMBER_REGISTER_OP(cumprod, &cumprod);
EMBER_REGISTER_OP(cumprod_, &cumprod_);
EMBER_REGISTER_OP(cummax, &cummax);
EMBER_REGISTER_OP(cummin, &cummin);
EMBER_REGISTER_OP(logcumsumexp, &logcumsumexp);

EMBER_REGISTER_AUTOGRAD(cumprod, &cumprod_autograd);
EMBER_REGISTER_AUTOGRAD(cummax, &cummax_cummin_autograd<true>);
EMBER_REGISTER_AUTOGRAD(cummin, &cummax_cummin_autograd<false>);
EMBER_REGISTER_AUTOGRAD(logcumsumexp, &logcumsumexp_autograd);

}  // namespace ember
