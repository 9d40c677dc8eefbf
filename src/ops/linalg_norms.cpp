// Norms and the SVD-based functions: linalg.vector_norm (primitive), matrix_norm, norm, cond,
// matrix_rank, pinv, and torch.frobenius_norm / nuclear_norm / pinverse. Composites follow
// PyTorch 1.13's LinearAlgebra.cpp, so their gradients are those of the ops they call.
#include <cmath>
#include <limits>
#include <sstream>

#include "../dispatch/boxing.h"
#include "ember/ops/complex.h"
#include "ember/ops/math.h"
#include "ember/ops/view.h"
#include "linalg_common.h"
#include "reduce_common.h"

namespace ember {

using dispatch::OpId;
using namespace ops::linalg;  // NOLINT: the helpers of this op family

namespace {

// A Scalar order as PyTorch prints it in messages: 2, -1, inf, 2.5.
std::string ord_text(const Scalar& ord) {
  std::ostringstream os;
  if (ord.is_floating()) {
    os << ord.to_double();
  } else {
    os << ord.to<int64_t>();
  }
  return os.str();
}

// ---- linalg.vector_norm (primitive: LinalgVectorNormBackward0) ----

Tensor vector_norm_impl(const Tensor& self, const Scalar& ord, std::optional<std::vector<int64_t>> dim,
                        bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(is_floating(self.dtype()) || is_complex(self.dtype()),
              "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
              scalar_type_name(self.dtype()));
  if (dtype) {
    EMBER_CHECK(is_floating(*dtype) || is_complex(*dtype),
                "linalg.vector_norm: dtype should be floating point or complex. Got ",
                scalar_type_name(*dtype));
    EMBER_CHECK(promote_types(self.dtype(), *dtype) == *dtype, "linalg.vector_norm: the dtype of the input ",
                "(", scalar_type_name(self.dtype()), ") should be convertible without narrowing to the specified dtype (",
                scalar_type_name(*dtype), ")");
  }
  const double p = ord.to_double();
  const std::vector<int64_t> dims = dim.value_or(std::vector<int64_t>{});
  if (p < 0 || std::isinf(p)) {
    // amax / min-like orders have no identity on empty reductions.
    if (dims.empty()) {
      EMBER_CHECK(self.numel() != 0, "linalg.vector_norm cannot compute the ", ord_text(ord),
                  " norm on an empty tensor because the operation does not have an identity");
    } else {
      for (int64_t d : dims) {
        // PyTorch's text has no space after the dim.
        EMBER_CHECK(self.dim() == 0 || self.size(wrap_dim(d, self.dim())) != 0, "linalg.vector_norm cannot compute the ",
                    ord_text(ord), " norm on the dimension ", d,
                    "because this dimension is empty and the operation does not have an identity");
      }
    }
  }
  const Tensor x = dtype ? ops::cast(self, *dtype) : self;
  return norm(x, Scalar(p), dims, keepdim);
}

// ---- composites ----

// dims other than d0, d1 in order, then d0, d1 (PyTorch's create_dim_backshift_permutation).
std::vector<int64_t> backshift(int64_t d0, int64_t d1, int64_t ndim) {
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < ndim; ++d)
    if (d != d0 && d != d1) perm.push_back(d);
  perm.push_back(d0);
  perm.push_back(d1);
  return perm;
}

std::vector<int64_t> inverse_permutation(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return inv;
}

std::array<int64_t, 2> matrix_dims(const Tensor& A, IntArrayRef dim) {
  check_matrix("linalg.matrix_norm", A);
  std::ostringstream got;
  for (size_t i = 0; i < dim.size(); ++i) got << (i ? " " : "") << dim[i];
  EMBER_CHECK(dim.size() == 2, "linalg.matrix_norm: dim must be a 2-tuple. Got ", got.str());
  const int64_t d0 = wrap_dim(dim[0], A.dim()), d1 = wrap_dim(dim[1], A.dim());
  EMBER_CHECK(d0 != d1, "linalg.matrix_norm: dims must be different. Got (", d0, ", ", d1, ")");
  return {d0, d1};
}

// Reductions of the singular values (2, -2, nuc) over the two dims.
Tensor svd_norm(const Tensor& A, std::array<int64_t, 2> d, bool keepdim, std::optional<ScalarType> dtype,
                const char* how) {
  check_float_or_complex("linalg.matrix_norm", A);
  const auto perm = backshift(d[0], d[1], A.dim());
  const Tensor x = (dtype ? ops::cast(A, *dtype) : A).permute(perm);
  const Tensor sv = linalg::svdvals(x);
  const std::string h = how;
  Tensor result = h == "max" ? amax(sv, {-1}) : h == "min" ? amin(sv, {-1}) : sum(sv, std::vector<int64_t>{-1});
  if (keepdim) result = result.unsqueeze(-1).unsqueeze(-1).permute(inverse_permutation(perm));
  return result;
}

Tensor matrix_norm_impl(const Tensor& A, const Scalar& ord, IntArrayRef dim, bool keepdim,
                        std::optional<ScalarType> dtype) {
  auto d = matrix_dims(A, dim);
  const double o = ord.to_double(), abs_ord = std::abs(o);
  EMBER_CHECK(abs_ord == 2 || abs_ord == 1 || std::isinf(abs_ord), "linalg.matrix_norm: Order ", ord_text(ord),
              " not supported.");
  EMBER_CHECK(is_floating(A.dtype()) || is_complex(A.dtype()),
              "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got ",
              scalar_type_name(A.dtype()));
  if (abs_ord == 2) return svd_norm(A, d, keepdim, dtype, o > 0 ? "max" : "min");
  // 1: the largest column sum of |A|; inf: the largest row sum.
  if (std::isinf(abs_ord)) std::swap(d[0], d[1]);
  if (!keepdim && d[0] < d[1]) d[1]--;
  const Tensor sums = linalg::vector_norm(A, 1, std::vector<int64_t>{d[0]}, keepdim, dtype);
  return o > 0 ? amax(sums, {d[1]}, keepdim) : amin(sums, {d[1]}, keepdim);
}

Tensor matrix_norm_str_impl(const Tensor& A, const std::string& ord, IntArrayRef dim, bool keepdim,
                            std::optional<ScalarType> dtype) {
  auto d = matrix_dims(A, dim);
  EMBER_CHECK(ord == "fro" || ord == "nuc", "linalg.matrix_norm: Order ", ord, " not supported.");
  if (ord == "fro") return linalg::vector_norm(A, 2, std::vector<int64_t>{d[0], d[1]}, keepdim, dtype);
  return svd_norm(A, d, keepdim, dtype, "sum");
}

void check_norm_dims(const Tensor& X, const std::optional<std::vector<int64_t>>& dim, bool has_ord) {
  if (dim) {
    EMBER_CHECK(dim->size() == 1 || dim->size() == 2, "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [",
                [&] {
                  std::ostringstream os;
                  for (size_t i = 0; i < dim->size(); ++i) os << (i ? ", " : "") << (*dim)[i];
                  return os.str();
                }(),
                "]");
  } else if (has_ord) {
    EMBER_CHECK(X.dim() == 1 || X.dim() == 2, "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got ",
                X.dim(), "D.");
  }
}

Tensor norm_impl(const Tensor& X, std::optional<Scalar> ord, std::optional<std::vector<int64_t>> dim, bool keepdim,
                 std::optional<ScalarType> dtype) {
  check_norm_dims(X, dim, ord.has_value());
  if (ord && ((dim && dim->size() == 2) || (!dim && X.dim() == 2))) {
    const std::vector<int64_t> d = dim.value_or(std::vector<int64_t>{0, 1});
    return linalg::matrix_norm(X, *ord, d, keepdim, dtype);
  }
  return linalg::vector_norm(X, ord.value_or(Scalar(2.0)), dim, keepdim, dtype);
}

Tensor norm_str_impl(const Tensor& X, const std::string& ord, std::optional<std::vector<int64_t>> dim, bool keepdim,
                     std::optional<ScalarType> dtype) {
  check_norm_dims(X, dim, true);
  const std::vector<int64_t> d = dim.value_or(std::vector<int64_t>{0, 1});
  return linalg::matrix_norm(X, ord, d, keepdim, dtype);
}

Tensor frobenius_norm_impl(const Tensor& self) { return norm(self, Scalar(2.0), {}, false); }

Tensor frobenius_norm_dim_impl(const Tensor& self, IntArrayRef dim, bool keepdim) {
  EMBER_CHECK(dim.size() <= 2, "Expected at most 2 dimensions, but got ", dim.size(), " dimensions instead.");
  if (dim.size() <= 1) return norm(self, Scalar(2.0), dim, keepdim);
  const int64_t ndim = std::max<int64_t>(self.dim(), 1);
  EMBER_CHECK(wrap_dim(dim[0], ndim) != wrap_dim(dim[1], ndim), "Expected dims to be different, got [", dim[0], ", ",
              dim[1], "] instead");
  // |x|^2 = Re(conj(x) x) for complex x: the norm is real.
  const Tensor sq = self.is_complex() ? real(conj_physical(self) * self) : self * self;
  return sqrt(sum(sq, dim.vec(), keepdim));
}

Tensor nuclear_norm_dim_impl(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return linalg::matrix_norm(self, std::string("nuc"), dim, keepdim);
}

Tensor nuclear_norm_impl(const Tensor& self, bool keepdim) {
  EMBER_CHECK(self.dim() == 2, "Expected a tensor with 2 dimensions, but got a tensor with ", self.dim(),
              " dimension", self.dim() == 1 ? "" : "s", " instead.");
  return nuclear_norm_dim_impl(self, std::vector<int64_t>{-2, -1}, keepdim);
}

// ---- tolerances: atol / rtol as PyTorch's get_atol_rtol ----

double epsilon_of(ScalarType t) {
  return t == kFloat64 ? std::numeric_limits<double>::epsilon()
                       : static_cast<double>(std::numeric_limits<float>::epsilon());
}

std::pair<Tensor, Tensor> atol_rtol(const Tensor& A, const std::optional<Tensor>& atol_opt,
                                    const std::optional<Tensor>& rtol_opt) {
  // The tolerances are real (float64 as PyTorch's), the default rtol from A's real precision.
  const auto opts = TensorOptions(kFloat64).device(A.device());
  const Tensor atol = atol_opt && atol_opt->defined() ? *atol_opt : zeros({}, opts);
  if (rtol_opt && rtol_opt->defined()) return {atol, *rtol_opt};
  const Tensor default_rtol =
      full({}, epsilon_of(to_real_value_type(A.dtype())) * static_cast<double>(std::max(A.size(-1), A.size(-2))), opts);
  if (atol_opt && atol_opt->defined()) return {atol, where(*atol_opt > 0, zeros({}, opts), default_rtol)};
  return {atol, default_rtol};
}

std::optional<Tensor> as_tensor(std::optional<double> v, const Tensor& A) {
  if (!v) return std::nullopt;
  return full({}, *v, TensorOptions(kFloat64).device(A.device()));
}

// A primitive (LinalgPinvBackward0), as in PyTorch: its rule is pinv_backward for any A, also
// when hermitian=True computes it by eigh.
Tensor pinv_tensor_impl(const Tensor& A, const std::optional<Tensor>& atol_opt, const std::optional<Tensor>& rtol_opt,
                        const bool& hermitian) {
  check_matrix("linalg.pinv", A);
  check_float_or_complex("linalg.pinv", A);
  auto [atol, rtol] = atol_rtol(A, atol_opt, rtol_opt);
  if (A.numel() == 0) {
    DimVector s(A.sizes().begin(), A.sizes().end());
    std::swap(s[s.size() - 1], s[s.size() - 2]);
    return empty(s, TensorOptions(A.dtype()).device(A.device()));
  }
  const Tensor zero = zeros({}, TensorOptions(to_real_value_type(A.dtype())).device(A.device()));
  if (!hermitian) {
    auto [U, S, Vh] = linalg::svd(A, false);
    const Tensor max_val = S.narrow(-1, 0, 1);
    const Tensor tol = maximum(atol.unsqueeze(-1), rtol.unsqueeze(-1) * max_val);
    const Tensor S_pinv = ops::cast(where(S > tol, 1 / S, zero), A.dtype());
    return matmul(mH(Vh) * S_pinv.unsqueeze(-2), mH(U));
  }
  auto [S, U] = linalg::eigh(A);
  const Tensor S_abs = S.abs();
  const Tensor max_val = amax(S_abs, {-1}, true);
  const Tensor tol = maximum(atol.unsqueeze(-1), rtol.unsqueeze(-1) * max_val);
  const Tensor S_pinv = ops::cast(where(S_abs > tol, 1 / S, zero), A.dtype());
  return matmul(U * S_pinv.unsqueeze(-2), mH(U));
}

Tensor pinv_float_impl(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return linalg::pinv(A, as_tensor(atol, A), as_tensor(rtol, A), hermitian);
}

Tensor pinv_rcond_impl(const Tensor& A, double rcond, bool hermitian) {
  return linalg::pinv(A, as_tensor(0.0, A), as_tensor(rcond, A), hermitian);
}

Tensor pinv_rcond_tensor_impl(const Tensor& A, const Tensor& rcond, bool hermitian) {
  return linalg::pinv(A, as_tensor(0.0, A), std::optional<Tensor>(rcond), hermitian);
}

Tensor pinverse_impl(const Tensor& A, double rcond) { return linalg::pinv(A, 0.0, rcond, false); }

Tensor matrix_rank_tensor_impl(const Tensor& A, const std::optional<Tensor>& atol_opt,
                               const std::optional<Tensor>& rtol_opt, bool hermitian) {
  check_matrix("linalg.matrix_rank", A, "input");
  check_float_or_complex("linalg.matrix_rank", A);
  auto [atol, rtol] = atol_rtol(A, atol_opt, rtol_opt);
  if (A.numel() == 0) return zeros(batch_shape(A), TensorOptions(kInt64).device(A.device()));
  const Tensor S = hermitian ? linalg::eigvalsh(A).abs() : linalg::svdvals(A);
  const Tensor max_S = amax(S, {-1}, true);
  const Tensor tol = maximum(atol.unsqueeze(-1), rtol.unsqueeze(-1) * max_S);
  return sum(S > tol, std::vector<int64_t>{-1});
}

Tensor matrix_rank_float_impl(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return matrix_rank_tensor_impl(A, as_tensor(atol, A), as_tensor(rtol, A), hermitian);
}

Tensor matrix_rank_tol_impl(const Tensor& A, double tol, bool hermitian) {
  return matrix_rank_tensor_impl(A, as_tensor(tol, A), as_tensor(0.0, A), hermitian);
}

Tensor matrix_rank_tol_tensor_impl(const Tensor& A, const Tensor& tol, bool hermitian) {
  return matrix_rank_tensor_impl(A, tol, as_tensor(0.0, A), hermitian);
}

// ---- cond ----

// The 1, inf, fro and nuc condition numbers: ||A|| ||A^-1||, inf where A is singular.
Tensor cond_via_inverse(const Tensor& A, const std::function<Tensor(const Tensor&)>& matrix_norm_of) {
  auto [inverse, info] = linalg::inv_ex(A, false);
  const Tensor singular = (info > 0).unsqueeze(-1).unsqueeze(-1);
  const Tensor inv = inverse.masked_fill(singular, std::numeric_limits<double>::infinity());
  // 0 * inf (a singular matrix of norm 0) is inf, not nan, as PyTorch's (and NumPy's).
  return nan_to_num(matrix_norm_of(A) * matrix_norm_of(inv), std::numeric_limits<double>::infinity(),
                    std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity());
}

Tensor cond_impl(const Tensor& A, std::optional<Scalar> p) {
  check_matrix("linalg.cond", A);
  if (A.numel() == 0) return zeros(batch_shape(A), TensorOptions(to_real_value_type(A.dtype())).device(A.device()));
  const Scalar ord = p.value_or(Scalar(2));
  const double o = ord.to_double(), a = std::abs(o);
  EMBER_CHECK(a == 2 || a == 1 || std::isinf(a), "linalg.cond got an invalid norm type: ", ord_text(ord));
  if (a == 2) {
    const Tensor sv = linalg::svdvals(A);
    const Tensor s_max = sv.narrow(-1, 0, 1), s_min = sv.narrow(-1, sv.size(-1) - 1, 1);
    return (o < 0 ? s_min / s_max : s_max / s_min).squeeze(-1);
  }
  const std::string api =
      "linalg.cond(ord=" + (ord.is_floating() ? std::to_string(o) : std::to_string(ord.to<int64_t>())) + ")";
  check_square(api.c_str(), A);
  return cond_via_inverse(A, [&](const Tensor& x) { return linalg::matrix_norm(x, ord); });
}

Tensor cond_str_impl(const Tensor& A, const std::string& p) {
  check_matrix("linalg.cond", A);
  EMBER_CHECK(p == "fro" || p == "nuc", "linalg.cond got an invalid norm type: ", p);
  if (A.numel() == 0) return zeros(batch_shape(A), TensorOptions(to_real_value_type(A.dtype())).device(A.device()));
  check_square(("linalg.cond(ord=" + p + ")").c_str(), A);
  if (p == "nuc") {
    // PyTorch's definition, sum(S) sum(1/S), keeps LAPACK away from the inf-filled inverse of a
    // singular A (which gives nan here: 0 * inf).
    const Tensor sv = linalg::svdvals(A);
    return sum(sv, std::vector<int64_t>{-1}) * sum(reciprocal(sv), std::vector<int64_t>{-1});
  }
  return cond_via_inverse(A, [&](const Tensor& x) { return linalg::matrix_norm(x, p); });
}

}  // namespace

// ---- autograd ----
namespace {
using autograd::OpNode;
using autograd::tensor_list;

Tensor vector_norm_autograd(const Tensor& self, const Scalar& ord, const std::optional<std::vector<int64_t>>& dim,
                            const bool& keepdim, const std::optional<ScalarType>& dtype) {
  autograd::Recorder r("LinalgVectorNormBackward0", self);
  Tensor out = r.forward(
      [&] { return dispatch::call<vector_norm_impl>(OpId::linalg_vector_norm, self, ord, dim, keepdim, dtype); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self"), result_ = 1;
  r.values("dim", dim, "keepdim", keepdim, "ord", ord);
  const double p = ord.to_double();
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor x = n.saved(self_);
    const std::vector<int64_t> dims = dim.value_or(std::vector<int64_t>{});
    // dim=None (or []) reduces every dim: name them so the gradient is unsqueezed right.
    std::vector<int64_t> all = dims;
    if (all.empty())
      for (int64_t d = 0; d < x.dim(); ++d) all.push_back(d);
    const Tensor xx = dtype ? ops::cast(x, *dtype) : x;
    return tensor_list{ops::norm_backward(g[0], xx, p, n.saved(result_), all, keepdim)};
  });
  ops::save_output_at(r, out, result_, "result");
  return out;
}

Tensor pinv_autograd(const Tensor& A, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
                     const bool& hermitian) {
  autograd::Recorder r("LinalgPinvBackward0", A);
  Tensor out = r.forward([&] {
    return dispatch::call<pinv_tensor_impl>(OpId::linalg_pinv_atol_rtol_tensor, A, atol, rtol, hermitian);
  });
  if (!r) return out;
  const size_t A_ = r.save(A, "self"), pinv_ = 1;
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{pinv_backward(g[0], n.saved(pinv_), n.saved(A_))};
  });
  ops::save_output_at(r, out, pinv_, "result");
  return out;
}
}  // namespace

EMBER_REGISTER_AUTOGRAD(linalg_vector_norm, &vector_norm_autograd);
EMBER_REGISTER_AUTOGRAD(linalg_pinv_atol_rtol_tensor, &pinv_autograd);

// ---- frontends (schema order) and boxed registration ----

namespace linalg {
Tensor vector_norm(const Tensor& x, const Scalar& ord, std::optional<std::vector<int64_t>> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return dispatch::call<vector_norm_impl>(OpId::linalg_vector_norm, x, ord, dim, keepdim, dtype);
}
Tensor matrix_norm(const Tensor& A, const Scalar& ord, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return dispatch::call<matrix_norm_impl>(OpId::linalg_matrix_norm, A, ord, dim, keepdim, dtype);
}
Tensor matrix_norm(const Tensor& A, const std::string& ord, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return dispatch::call<matrix_norm_str_impl>(OpId::linalg_matrix_norm_str_ord, A, ord, dim, keepdim, dtype);
}
Tensor norm(const Tensor& A, std::optional<Scalar> ord, std::optional<std::vector<int64_t>> dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  return dispatch::call<norm_impl>(OpId::linalg_norm, A, ord, dim, keepdim, dtype);
}
Tensor norm(const Tensor& A, const std::string& ord, std::optional<std::vector<int64_t>> dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  return dispatch::call<norm_str_impl>(OpId::linalg_norm_ord_str, A, ord, dim, keepdim, dtype);
}
Tensor pinv(const Tensor& A, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol, bool hermitian) {
  return dispatch::call<pinv_tensor_impl>(OpId::linalg_pinv_atol_rtol_tensor, A, atol, rtol, hermitian);
}
Tensor pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return dispatch::call<pinv_float_impl>(OpId::linalg_pinv_atol_rtol_float, A, atol, rtol, hermitian);
}
Tensor matrix_rank(const Tensor& A, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
                   bool hermitian) {
  return dispatch::call<matrix_rank_tensor_impl>(OpId::linalg_matrix_rank_atol_rtol_tensor, A, atol, rtol, hermitian);
}
Tensor matrix_rank(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return dispatch::call<matrix_rank_float_impl>(OpId::linalg_matrix_rank_atol_rtol_float, A, atol, rtol, hermitian);
}
Tensor cond(const Tensor& A, std::optional<Scalar> p) { return dispatch::call<cond_impl>(OpId::linalg_cond, A, p); }
Tensor cond(const Tensor& A, const std::string& p) {
  return dispatch::call<cond_str_impl>(OpId::linalg_cond_p_str, A, p);
}
}  // namespace linalg

namespace {
Tensor pinv_rcond(const Tensor& A, double rcond, bool hermitian) {
  return dispatch::call<pinv_rcond_impl>(OpId::linalg_pinv, A, rcond, hermitian);
}
Tensor pinv_rcond_tensor(const Tensor& A, const Tensor& rcond, bool hermitian) {
  return dispatch::call<pinv_rcond_tensor_impl>(OpId::linalg_pinv_rcond_tensor, A, rcond, hermitian);
}
Tensor matrix_rank_tol(const Tensor& A, double tol, bool hermitian) {
  return dispatch::call<matrix_rank_tol_impl>(OpId::linalg_matrix_rank, A, tol, hermitian);
}
Tensor matrix_rank_tol_tensor(const Tensor& A, const Tensor& tol, bool hermitian) {
  return dispatch::call<matrix_rank_tol_tensor_impl>(OpId::linalg_matrix_rank_tol_tensor, A, tol, hermitian);
}
using MatrixNormFn = Tensor (*)(const Tensor&, const Scalar&, IntArrayRef, bool, std::optional<ScalarType>);
using MatrixNormStrFn = Tensor (*)(const Tensor&, const std::string&, IntArrayRef, bool, std::optional<ScalarType>);
using NormFn = Tensor (*)(const Tensor&, std::optional<Scalar>, std::optional<std::vector<int64_t>>, bool,
                          std::optional<ScalarType>);
using NormStrFn = Tensor (*)(const Tensor&, const std::string&, std::optional<std::vector<int64_t>>, bool,
                             std::optional<ScalarType>);
using PinvTensorFn = Tensor (*)(const Tensor&, const std::optional<Tensor>&, const std::optional<Tensor>&, bool);
using PinvFloatFn = Tensor (*)(const Tensor&, std::optional<double>, std::optional<double>, bool);
using CondFn = Tensor (*)(const Tensor&, std::optional<Scalar>);
using CondStrFn = Tensor (*)(const Tensor&, const std::string&);
using FrobDimFn = Tensor (*)(const Tensor&, IntArrayRef, bool);
using FrobFn = Tensor (*)(const Tensor&);
using NucFn = Tensor (*)(const Tensor&, bool);
}  // namespace

Tensor pinverse(const Tensor& self, double rcond) { return dispatch::call<pinverse_impl>(OpId::pinverse, self, rcond); }
Tensor frobenius_norm(const Tensor& self) { return dispatch::call<frobenius_norm_impl>(OpId::frobenius_norm, self); }
Tensor frobenius_norm(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return dispatch::call<frobenius_norm_dim_impl>(OpId::frobenius_norm_dim, self, dim, keepdim);
}
Tensor nuclear_norm(const Tensor& self, bool keepdim) {
  return dispatch::call<nuclear_norm_impl>(OpId::nuclear_norm, self, keepdim);
}
Tensor nuclear_norm(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return dispatch::call<nuclear_norm_dim_impl>(OpId::nuclear_norm_dim, self, dim, keepdim);
}

EMBER_REGISTER_OP(linalg_vector_norm, &linalg::vector_norm);
EMBER_REGISTER_OP(linalg_matrix_norm, static_cast<MatrixNormFn>(&linalg::matrix_norm));
EMBER_REGISTER_OP(linalg_matrix_norm_str_ord, static_cast<MatrixNormStrFn>(&linalg::matrix_norm));
EMBER_REGISTER_OP(linalg_norm, static_cast<NormFn>(&linalg::norm));
EMBER_REGISTER_OP(linalg_norm_ord_str, static_cast<NormStrFn>(&linalg::norm));
EMBER_REGISTER_OP(frobenius_norm, static_cast<FrobFn>(&frobenius_norm));
EMBER_REGISTER_OP(frobenius_norm_dim, static_cast<FrobDimFn>(&frobenius_norm));
EMBER_REGISTER_OP(nuclear_norm, static_cast<NucFn>(&nuclear_norm));
EMBER_REGISTER_OP(nuclear_norm_dim, static_cast<FrobDimFn>(&nuclear_norm));
EMBER_REGISTER_OP(linalg_pinv_atol_rtol_tensor, static_cast<PinvTensorFn>(&linalg::pinv));
EMBER_REGISTER_OP(linalg_pinv_atol_rtol_float, static_cast<PinvFloatFn>(&linalg::pinv));
EMBER_REGISTER_OP(linalg_pinv, &pinv_rcond);
EMBER_REGISTER_OP(linalg_pinv_rcond_tensor, &pinv_rcond_tensor);
EMBER_REGISTER_OP(pinverse, &pinverse);
EMBER_REGISTER_OP(linalg_matrix_rank_atol_rtol_tensor, static_cast<PinvTensorFn>(&linalg::matrix_rank));
EMBER_REGISTER_OP(linalg_matrix_rank_atol_rtol_float, static_cast<PinvFloatFn>(&linalg::matrix_rank));
EMBER_REGISTER_OP(linalg_matrix_rank, &matrix_rank_tol);
EMBER_REGISTER_OP(linalg_matrix_rank_tol_tensor, &matrix_rank_tol_tensor);
EMBER_REGISTER_OP(linalg_cond, static_cast<CondFn>(&linalg::cond));
EMBER_REGISTER_OP(linalg_cond_p_str, static_cast<CondStrFn>(&linalg::cond));

}  // namespace ember
