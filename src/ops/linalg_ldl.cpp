// linalg.ldl_factor(_ex) / ldl_solve (LAPACK sytrf / sytrs), geqrf / ormqr (LAPACK), and the
// composites linalg.diagonal, linalg.vander, torch.vander, symeig and _lu_with_info. Checks and texts are
// PyTorch 1.13's. PyTorch defines no derivative for ldl_factor, ldl_solve, geqrf or ormqr; the
// composites differentiate through the ops they call.
#include "../backends/cpu/lapack_more.h"
#include "../dispatch/boxing.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg_more.h"
#include "ember/ops/math.h"
#include "ember/ops/shape.h"
#include "linalg_common.h"

namespace ember {

using dispatch::OpId;
using namespace ops::linalg;  // NOLINT: the helpers of this op family

namespace {

// PyTorch's _linalg_check_errors has no text for these APIs: "<api>: Unknown error code: 1."
void raise_ldl_errors(const char* api, const Tensor& info, bool is_matrix) {
  if (info.is_meta() || info.numel() == 0) return;
  const Tensor c = info.contiguous();
  const int32_t* p = c.data_ptr<int32_t>();
  for (int64_t i = 0; i < c.numel(); ++i) {
    if (p[i] == 0) continue;
    EMBER_CHECK(false, api, is_matrix ? "" : detail::str_cat(": (Batch element ", i, ")"),
                ": Unknown error code: ", p[i], ".");
  }
}

std::tuple<Tensor, Tensor, Tensor> ldl_factor_ex_impl(const Tensor& A, bool hermitian, bool check_errors) {
  check_square("ember.linalg.ldl_factor_ex", A);
  check_float_or_complex("ember.linalg.ldl_factor_ex", A);
  const DimVector batch = batch_shape(A);
  Tensor ld = column_major_copy(A);
  DimVector piv_shape = batch;
  piv_shape.push_back(A.size(-1));
  Tensor pivots = empty_int(piv_shape, A.device());
  Tensor info = empty_int(batch, A.device());
  if (!ld.is_meta()) {
    cpu::lapack::sytrf(ld, pivots, info, hermitian);
    if (check_errors) raise_ldl_errors("ember.linalg.ldl_factor_ex", info, A.dim() == 2);
  }
  return {ld, pivots, info};
}

std::tuple<Tensor, Tensor> ldl_factor_impl(const Tensor& A, bool hermitian) {
  auto [ld, pivots, info] = linalg::ldl_factor_ex(A, hermitian, false);
  raise_ldl_errors("ember.linalg.ldl_factor", info, A.dim() == 2);
  return {ld, pivots};
}

Tensor ldl_solve_impl(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  const char* api = "ember.linalg.ldl_solve";
  check_square(api, LD, "LD");
  check_matrix(api, B, "B");
  check_float_or_complex(api, LD);
  EMBER_CHECK(pivots.dim() >= 1 && pivots.size(-1) == LD.size(-1), api,
              ": Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with shape ",
              size_str(pivots.sizes()), " instead");
  EMBER_CHECK(pivots.dtype() == kInt32, api, ": Expected pivots to be integers. Got ",
              scalar_type_name(pivots.dtype()));
  EMBER_CHECK(LD.dtype() == B.dtype(), api, ": LD dtype ", scalar_type_name(LD.dtype()),
              " does not match b dtype ", scalar_type_name(B.dtype()));
  EMBER_CHECK(B.size(-2) == LD.size(-1), api, ": Incompatible shapes of A and B for the equation AX = B (",
              LD.size(-2), "x", LD.size(-1), " and ", B.size(-2), "x", B.size(-1), ")");
  const DimVector batch = broadcast_shapes(batch_shape(LD), batch_shape(B));
  DimVector ld_shape = batch, b_shape = batch, piv_shape = batch;
  ld_shape.insert(ld_shape.end(), {LD.size(-2), LD.size(-1)});
  b_shape.insert(b_shape.end(), {B.size(-2), B.size(-1)});
  piv_shape.push_back(LD.size(-1));
  Tensor x = column_major_copy(B.expand(b_shape));
  if (!x.is_meta()) {
    cpu::lapack::sytrs(column_major_copy(LD.expand(ld_shape)), pivots.expand(piv_shape).contiguous(), x, hermitian);
  }
  return x;
}

std::tuple<Tensor, Tensor> geqrf_impl(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "ember.geqrf: input must have at least 2 dimensions.");
  check_float_or_complex("ember.geqrf", self);
  Tensor a = column_major_copy(self);
  DimVector tau_shape = batch_shape(self);
  tau_shape.push_back(std::min(self.size(-2), self.size(-1)));
  Tensor tau = empty(tau_shape, TensorOptions(self.dtype()).device(self.device()));
  if (!a.is_meta()) cpu::lapack::geqrf(a, tau);
  return {a, tau};
}

Tensor ormqr_impl(const Tensor& self, const Tensor& tau, const Tensor& other, bool left, bool transpose) {
  const char* api = "ember.ormqr";
  EMBER_CHECK(self.dim() >= 2, api, ": input must have at least 2 dimensions.");
  EMBER_CHECK(other.dim() >= 2, api, ": other must have at least 2 dimensions.");
  const int64_t left_size = left ? -2 : -1;
  EMBER_CHECK(other.size(left_size) >= tau.size(-1), api, ": other.shape[", left_size,
              "] must be greater than or equal to tau.shape[-1]");
  EMBER_CHECK(other.size(left_size) == self.size(-2), api, ": other.shape[", left_size,
              "] must be equal to input.shape[-2]");
  EMBER_CHECK(tau.size(-1) <= self.size(-1), api, ": tau.shape[-1] must be less than or equal to input.shape[-1]");
  EMBER_CHECK(self.dim() - tau.dim() == 1, api, ": Expected tau to have one dimension less than input, but got tau.ndim equal to ",
              tau.dim(), " and input.ndim is equal to ", self.dim());
  EMBER_CHECK(self.dim() == other.dim(), api, ": Expected other to have the same number of dimensions as input, but got other.ndim equal to ",
              other.dim(), " and input.ndim is equal to ", self.dim());
  for (int64_t d = 0; d + 2 < self.dim(); ++d) {
    EMBER_CHECK(self.size(d) == tau.size(d) && self.size(d) == other.size(d), api,
                ": Expected batch dimensions of input, tau and other to be equal, but got ",
                size_str(self.sizes()), ", ", size_str(tau.sizes()), " and ", size_str(other.sizes()));
  }
  EMBER_CHECK(self.dtype() == tau.dtype() && self.dtype() == other.dtype(), api,
              ": Expected input, tau and other to have the same dtype, but got ", scalar_type_name(self.dtype()),
              ", ", scalar_type_name(tau.dtype()), " and ", scalar_type_name(other.dtype()));
  check_float_or_complex(api, self);
  Tensor c = column_major_copy(other);
  if (!c.is_meta()) cpu::lapack::ormqr(column_major_copy(self), tau.contiguous(), c, left, transpose);
  return c;
}

Tensor linalg_diagonal_impl(const Tensor& A, int64_t offset, int64_t dim1, int64_t dim2) {
  return ember::diagonal(A, offset, dim1, dim2);
}

Tensor vander_impl(const Tensor& x, std::optional<int64_t> N) {
  const ScalarType t = x.dtype();
  EMBER_CHECK(is_floating(t) || is_complex(t) || is_integral(t, /*include_bool=*/false),
              "linalg.vander supports floating point, complex, and integer tensors, but got ",
              scalar_type_name(t));
  const Tensor x_ = x.dim() == 0 ? x.unsqueeze(-1) : x;
  DimVector shape(x_.sizes().begin(), x_.sizes().end());
  const int64_t n = N.value_or(shape.back());
  EMBER_CHECK(n > 1, "N must be greater than 1.");
  shape.push_back(n - 1);
  Tensor powers = cumprod(x_.unsqueeze(-1).expand(shape), -1);
  shape.back() = 1;
  Tensor ones_ = ones(shape, TensorOptions(powers.dtype()).device(powers.device()));
  return cat({ones_, powers}, -1);
}

// torch.vander: x's powers 0 .. N-1 as columns, decreasing unless `increasing`; integer and bool
// inputs give int64 (the cumulative product's dtype), as PyTorch's.
Tensor torch_vander_impl(const Tensor& x, std::optional<int64_t> N, bool increasing) {
  EMBER_CHECK(x.dim() == 1, "x must be a one-dimensional tensor.");
  const int64_t n = N.value_or(x.size(0));
  EMBER_CHECK(n >= 0, "N must be non-negative.");
  const ScalarType t = promote_types(x.dtype(), kInt64);
  const TensorOptions opts = TensorOptions(t).device(x.device());
  Tensor result = ones({x.size(0), std::min<int64_t>(n, 1)}, opts);
  if (n > 1) {
    result = cat({result, cumprod(x.unsqueeze(1).expand({x.size(0), n - 1}), 1, t)}, 1);
  }
  return increasing ? result : flip(result, {1});
}

// TORCH_WARN_ONCE in PyTorch: once per process.
void warn_once(bool& warned, const char* text) {
  if (warned) return;
  warned = true;
  EMBER_WARN(text);
}

std::tuple<Tensor, Tensor> symeig_impl(const Tensor& self, bool eigenvectors, bool upper) {
  static bool warned = false;
  warn_once(warned,
            "ember.symeig is deprecated in favor of ember.linalg.eigh and will be removed in a future "
            "PyTorch release.\nThe default behavior has changed from using the upper triangular portion "
            "of the matrix by default to using the lower triangular portion.\nL, _ = ember.symeig(A, "
            "upper=upper)\nshould be replaced with\nL = ember.linalg.eigvalsh(A, UPLO='U' if upper else "
            "'L')\nand\nL, V = ember.symeig(A, eigenvectors=True)\nshould be replaced with\nL, V = "
            "ember.linalg.eigh(A, UPLO='U' if upper else 'L')");
  const std::string uplo = upper ? "U" : "L";
  if (eigenvectors) return linalg::eigh(self, uplo);
  return {linalg::eigvalsh(self, uplo), empty({0}, TensorOptions(self.dtype()).device(self.device()))};
}

std::tuple<Tensor, Tensor, Tensor> lu_with_info_impl(const Tensor& self, bool pivot, bool check_errors) {
  (void)check_errors;  // PyTorch 1.13 ignores it (linalg_lu_factor_ex(self, pivot, false))
  static bool warned = false;
  warn_once(warned,
            "ember.lu is deprecated in favor of ember.linalg.lu_factor / ember.linalg.lu_factor_ex and "
            "will be removed in a future PyTorch release.\nLU, pivots = ember.lu(A, compute_pivots)\n"
            "should be replaced with\nLU, pivots = ember.linalg.lu_factor(A, compute_pivots)\nand\nLU, "
            "pivots, info = ember.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\nLU, "
            "pivots, info = ember.linalg.lu_factor_ex(A, compute_pivots)");
  return linalg::lu_factor_ex(self, pivot, false);
}

}  // namespace

Tensor vander(const Tensor& x, std::optional<int64_t> N, bool increasing) {
  return dispatch::call<torch_vander_impl>(OpId::vander, x, N, increasing);
}

namespace linalg {
Tensor diagonal(const Tensor& A, int64_t offset, int64_t dim1, int64_t dim2) {
  return dispatch::call<linalg_diagonal_impl>(OpId::linalg_diagonal, A, offset, dim1, dim2);
}
Tensor vander(const Tensor& x, std::optional<int64_t> N) {
  return dispatch::call<vander_impl>(OpId::linalg_vander, x, N);
}
Tensors3 ldl_factor_ex(const Tensor& A, bool hermitian, bool check_errors) {
  return dispatch::call<ldl_factor_ex_impl>(OpId::linalg_ldl_factor_ex, A, hermitian, check_errors);
}
Tensors2 ldl_factor(const Tensor& A, bool hermitian) {
  return dispatch::call<ldl_factor_impl>(OpId::linalg_ldl_factor, A, hermitian);
}
Tensor ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  return dispatch::call<ldl_solve_impl>(OpId::linalg_ldl_solve, LD, pivots, B, hermitian);
}
}  // namespace linalg

std::tuple<Tensor, Tensor> geqrf(const Tensor& self) { return dispatch::call<geqrf_impl>(OpId::geqrf, self); }
Tensor ormqr(const Tensor& self, const Tensor& input2, const Tensor& input3, bool left, bool transpose) {
  return dispatch::call<ormqr_impl>(OpId::ormqr, self, input2, input3, left, transpose);
}
std::tuple<Tensor, Tensor> symeig(const Tensor& self, bool eigenvectors, bool upper) {
  return dispatch::call<symeig_impl>(OpId::symeig, self, eigenvectors, upper);
}
std::tuple<Tensor, Tensor, Tensor> _lu_with_info(const Tensor& self, bool pivot, bool check_errors) {
  return dispatch::call<lu_with_info_impl>(OpId::_lu_with_info, self, pivot, check_errors);
}

EMBER_REGISTER_OP(linalg_diagonal, &linalg::diagonal);
EMBER_REGISTER_OP(linalg_vander, &linalg::vander);
EMBER_REGISTER_OP(vander, &ember::vander);
EMBER_REGISTER_OP(linalg_ldl_factor_ex, &linalg::ldl_factor_ex);
// A quantized input reaches the checks (PyTorch's: "Expected a floating point ... Got QUInt8").
namespace {
std::tuple<Tensor, Tensor, Tensor> ldl_factor_ex_quantized(const Tensor& A, const bool& hermitian,
                                                           const bool& check_errors) {
  return ldl_factor_ex_impl(A, hermitian, check_errors);
}
[[maybe_unused]] const bool ldl_quantized_checks =
    (dispatch::register_quantized(OpId::linalg_ldl_factor_ex, &ldl_factor_ex_quantized), true);
}  // namespace
EMBER_REGISTER_OP(linalg_ldl_factor, &linalg::ldl_factor);
EMBER_REGISTER_OP(linalg_ldl_solve, &linalg::ldl_solve);
EMBER_REGISTER_OP(geqrf, &ember::geqrf);
EMBER_REGISTER_OP(ormqr, &ember::ormqr);
EMBER_REGISTER_OP(symeig, &ember::symeig);
EMBER_REGISTER_OP(_lu_with_info, &ember::_lu_with_info);

}  // namespace ember
