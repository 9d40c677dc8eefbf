// Composite rows for the reparametrizations of nn.utils: norm_except_dim and _weight_norm
// (weight_norm's weight, PyTorch's non-fused formula) and linalg.householder_product / orgqr
// (parametrizations.orthogonal's "householder" map), each a composition of differentiable ops,
// so autograd (double backward included) comes from their parts.
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/nnutils.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"
#include "linalg_common.h"

namespace ember {

using dispatch::OpId;

namespace {

// PyTorch's norm_except_dim: dim -1 is the norm of everything; 0 and the last dim reduce the
// others keeping a broadcastable shape; other dims go through a transpose to dim 0.
Tensor norm_except_dim_impl(const Tensor& v, int64_t pow, int64_t dim) {
  EMBER_CHECK(is_floating(v.dtype()) && !v.is_quantized(),
              "norm(): input dtype should be either floating point or complex. Got ",
              scalar_type_name(v.dtype()), " instead.");
  if (dim == -1) return v.norm(pow);
  const int64_t nd = v.dim();
  if (dim == 0) {
    std::vector<int64_t> out(static_cast<size_t>(nd), 1);
    out[0] = v.size(0);
    return v.contiguous().view({v.size(0), -1}).norm(pow, std::vector<int64_t>{1}).view(out);
  }
  if (dim == nd - 1) {
    std::vector<int64_t> out(static_cast<size_t>(nd), 1);
    out[static_cast<size_t>(nd - 1)] = v.size(nd - 1);
    return v.contiguous().view({-1, v.size(nd - 1)}).norm(pow, std::vector<int64_t>{0}).view(out);
  }
  return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim);
}

Tensor weight_norm_impl(const Tensor& v_in, const Tensor& g_in, int64_t dim) {
  ops::check_not_quantized("aten::_weight_norm_interface", {v_in, g_in});
  EMBER_CHECK(v_in.device() == g_in.device(),
              "weight_norm: expected v_in and g_in to be on the same device, but v_in is on ",
              v_in.device(), " and g_in is on ", g_in.device());
  const Tensor v = v_in.contiguous(), g = g_in.contiguous();
  return v * (g / norm_except_dim(v, 2, dim));
}

// Note [householder_product by composition]: Q = H_1 H_2 ... H_k applied to the first n columns
// of the identity, H_i = I - tau_i v_i v_i^H (v_i^T for real input) with v_i the i-th column of input below the
// diagonal and 1 on it. Applied right to left, each step is a rank-one update of an (m, n)
// matrix, so the cost is O(k m n) like LAPACK's orgqr, and every step is an autograd-aware op.
Tensor householder_product_impl(const Tensor& input, const Tensor& tau) {
  constexpr const char* fn = "ember.linalg.householder_product";
  ops::check_not_quantized("aten::linalg_householder_product", {input, tau});
  EMBER_CHECK(input.dim() >= 2, fn, ": input must have at least 2 dimensions.");
  EMBER_CHECK(input.size(-2) >= input.size(-1), fn,
              ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  EMBER_CHECK(input.size(-1) >= tau.size(-1), fn,
              ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  EMBER_CHECK(input.dim() - tau.dim() == 1, fn,
              ": Expected tau to have one dimension less than input, but got tau.ndim equal to ",
              tau.dim(), " and input.ndim is equal to ", input.dim());
  if (input.dim() > 2) {
    for (int64_t d = 0; d < input.dim() - 2; ++d) {
      EMBER_CHECK(input.size(d) == tau.size(d), fn,
                  ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ",
                  tau.sizes().slice(0, static_cast<size_t>(tau.dim() - 1)));
    }
  }
  EMBER_CHECK(tau.dtype() == input.dtype(), fn, ": tau dtype ", scalar_type_name(tau.dtype()),
              " does not match input dtype ", scalar_type_name(input.dtype()));
  EMBER_CHECK(is_floating(input.dtype()) || is_complex(input.dtype()), fn,
              ": Expected a floating point tensor, but got ", scalar_type_name(input.dtype()));
  const int64_t m = input.size(-2), n = input.size(-1), k = tau.size(-1);
  const TensorOptions opts = TensorOptions().dtype(input.dtype()).device(input.device());
  std::vector<int64_t> batch(input.sizes().begin(), input.sizes().end() - 2);
  std::vector<int64_t> qshape = batch;
  qshape.push_back(m);
  qshape.push_back(n);
  Tensor Q = eye(m, n, opts).expand(qshape);
  if (k == 0 || m == 0 || n == 0) return Q.clone();
  const Tensor V = tril(input, -1) + eye(m, n, opts);  // reflector vectors in the columns
  for (int64_t i = k - 1; i >= 0; --i) {
    const Tensor v = V.narrow(-1, i, 1);                 // (..., m, 1)
    const Tensor t = tau.narrow(-1, i, 1).unsqueeze(-1);  // (..., 1, 1)
    Q = Q - matmul(v * t, matmul(ops::linalg::mH(v), Q));
  }
  return Q;
}

Tensor orgqr_impl(const Tensor& self, const Tensor& input2) { return linalg::householder_product(self, input2); }

}  // namespace

Tensor norm_except_dim(const Tensor& v, int64_t pow, int64_t dim) {
  return dispatch::call<norm_except_dim_impl>(OpId::norm_except_dim, v, pow, dim);
}
Tensor _weight_norm(const Tensor& v, const Tensor& g, int64_t dim) {
  return dispatch::call<weight_norm_impl>(OpId::_weight_norm, v, g, dim);
}
namespace linalg {
Tensor householder_product(const Tensor& input, const Tensor& tau) {
  return dispatch::call<householder_product_impl>(OpId::linalg_householder_product, input, tau);
}
}  // namespace linalg
Tensor orgqr(const Tensor& self, const Tensor& input2) {
  return dispatch::call<orgqr_impl>(OpId::orgqr, self, input2);
}

EMBER_REGISTER_OP(norm_except_dim, &norm_except_dim);
EMBER_REGISTER_OP(_weight_norm, &_weight_norm);
EMBER_REGISTER_OP(linalg_householder_product, &linalg::householder_product);
EMBER_REGISTER_OP(orgqr, &orgqr);

}  // namespace ember
