// The LU- and Cholesky-based linalg ops: inv, det, slogdet, solve, cholesky, lu_factor, lu,
// lu_unpack, lu_solve, solve_triangular, and their torch.* spellings. Primitives run LAPACK
// (src/backends/cpu/lapack.cpp) on batched column-major copies; checks and texts are PyTorch
// 1.13's.
#include "../backends/cpu/lapack.h"
#include "../dispatch/boxing.h"
#include "ember/ops/complex.h"
#include "linalg_common.h"

namespace ember {

using dispatch::OpId;
using namespace ops::linalg;  // NOLINT: the helpers of this op family

namespace {

// ---- primitives ----

// Note [LU of A^T]: PyTorch's solve (and inv, which is solve(A, I)) factors A^T when A is
// contiguous -- its memory is then A^T's column-major buffer -- and solves with the transposed
// factors. The LU of A^T pivots differently from A's, so which diagonal element comes out zero
// for a singular A (the number in "The diagonal element 2 is zero") depends on it: ember
// factors the same matrix to report the same numbers.
std::tuple<Tensor, Tensor> inv_ex_impl(const Tensor& A, bool check_errors) {
  check_float_or_complex_square("linalg.inv", A);
  const bool use_A_T = A.is_contiguous();
  const DimVector batch = batch_shape(A);
  Tensor lu = column_major_copy(use_A_T ? mT(A) : A);
  DimVector piv_shape = batch;
  piv_shape.push_back(A.size(-1));
  Tensor pivots = empty_int(piv_shape, A.device());
  Tensor info = empty_int(batch, A.device());
  if (!lu.is_meta()) {
    cpu::lapack::getrf(lu, pivots, info);
    cpu::lapack::getri(lu, pivots, info);
    if (check_errors) raise_if_errors("linalg.inv_ex", info, A.dim() == 2);
  }
  // inv(A^T)^T = inv(A), kept column-major as PyTorch's result.
  return {use_A_T ? column_major_copy(mT(lu)) : lu, info};
}

std::tuple<Tensor, Tensor, Tensor> lu_factor_ex_impl(const Tensor& A, bool pivot, bool check_errors) {
  check_matrix("ember.linalg.lu_factor", A);
  check_float_or_complex("ember.linalg.lu_factor", A);
  EMBER_CHECK(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  const DimVector batch = batch_shape(A);
  Tensor lu = column_major_copy(A);
  DimVector piv_shape = batch;
  piv_shape.push_back(std::min(A.size(-2), A.size(-1)));
  Tensor pivots = empty_int(piv_shape, A.device());
  Tensor info = empty_int(batch, A.device());
  if (!lu.is_meta()) {
    cpu::lapack::getrf(lu, pivots, info);
    if (check_errors) raise_if_errors("ember.linalg.lu_factor_ex", info, A.dim() == 2);
  }
  return {lu, pivots, info};
}

std::tuple<Tensor, Tensor, Tensor> det_impl(const Tensor& A) {
  check_float_or_complex_square("linalg.det", A);
  // det(A^T) = det(A): the LU PyTorch returns is A^T's for a contiguous A (Note [LU of A^T]).
  auto [lu, pivots, info] = lu_factor_ex_impl(A.is_contiguous() ? mT(A) : A, true, false);
  Tensor det = empty(batch_shape(A), TensorOptions(A.dtype()).device(A.device()));
  if (!det.is_meta()) cpu::lapack::det_from_lu(lu, pivots, det);
  return {det, lu, pivots};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> slogdet_impl(const Tensor& A) {
  check_float_or_complex_square("linalg.slogdet", A);
  auto [lu, pivots, info] = lu_factor_ex_impl(A.is_contiguous() ? mT(A) : A, true, false);
  // sign has A's dtype (a phase for complex A); logabsdet is real.
  Tensor sign = empty(batch_shape(A), TensorOptions(A.dtype()).device(A.device()));
  Tensor logabsdet = empty(batch_shape(A), TensorOptions(to_real_value_type(A.dtype())).device(A.device()));
  if (!sign.is_meta()) cpu::lapack::slogdet_from_lu(lu, pivots, sign, logabsdet);
  return {sign, logabsdet, lu, pivots};
}

// The equation's text in PyTorch's shape message: "AX = B (3x3 and 4x2)". A vector B counts as
// the column B.unsqueeze(-1), also for X A = B (where it then fits only 1 x 1 matrices).
void check_solve_shapes(const char* api, const Tensor& A, const Tensor& B, bool left) {
  const int64_t n = A.size(-1);
  const bool ok = left ? B.size(-2) == n : B.size(-1) == n;
  EMBER_CHECK(ok, api, ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B",
              " (", A.size(-2), "x", A.size(-1), " and ", B.size(-2), "x", B.size(-1), ")");
}

// B broadcast against A's batch, as a batched column-major copy of the matrices (k columns).
std::tuple<Tensor, Tensor> broadcast_solve_operands(const Tensor& A, const Tensor& B) {
  const DimVector batch = broadcast_shapes(batch_shape(A), batch_shape(B));
  DimVector a_shape = batch, b_shape = batch;
  a_shape.insert(a_shape.end(), {A.size(-2), A.size(-1)});
  b_shape.insert(b_shape.end(), {B.size(-2), B.size(-1)});
  return {column_major_copy(A.expand(a_shape)), column_major_copy(B.expand(b_shape))};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> solve_ex_impl(const Tensor& A, const Tensor& B, bool left,
                                                          bool check_errors) {
  check_float_or_complex_square("linalg.solve", A);
  check_same_dtype("linalg.solve", A, B);
  const bool vector = is_vector_rhs(A, B);
  EMBER_CHECK(vector || B.dim() >= 2, "linalg.solve: The input tensor B must have at least 2 dimensions.");
  const Tensor Bm = vector ? B.unsqueeze(-1) : B;
  check_solve_shapes("linalg.solve", A, Bm, left);
  // X A = B is A^T X^T = B^T; the factored matrix is A^T when A is contiguous (Note [LU of
  // A^T]), so the solve transposes when exactly one of the two holds.
  const bool use_A_T = A.is_contiguous();
  const bool transpose = left == use_A_T;
  auto [lu, x] = broadcast_solve_operands(use_A_T ? mT(A) : A, left ? Bm : mT(Bm));
  DimVector piv_shape = batch_shape(lu);
  piv_shape.push_back(A.size(-1));
  Tensor pivots = empty_int(piv_shape, A.device());
  Tensor info = empty_int(batch_shape(lu), A.device());
  if (!x.is_meta()) {
    cpu::lapack::getrf(lu, pivots, info);
    cpu::lapack::getrs(lu, pivots, x, transpose ? 'T' : 'N');
    if (check_errors) raise_if_errors("ember.linalg.solve_ex", info, lu.dim() == 2);
  }
  Tensor result = left ? x : mT(x);
  if (vector) result = result.squeeze(-1);
  return {result, lu, pivots, info};
}

std::tuple<Tensor, Tensor> cholesky_ex_impl(const Tensor& A, bool upper, bool check_errors) {
  check_float_or_complex_square("linalg.cholesky", A);
  Tensor L = column_major_copy(A);
  Tensor info = empty_int(batch_shape(A), A.device());
  if (!L.is_meta()) {
    cpu::lapack::potrf(L, info, upper);
    if (check_errors) raise_if_errors("linalg.cholesky_ex", info, A.dim() == 2);
  }
  return {L, info};
}

std::tuple<Tensor, Tensor, Tensor> lu_unpack_impl(const Tensor& LU, const Tensor& pivots,
                                                  bool unpack_data, bool unpack_pivots) {
  check_matrix("ember.lu_unpack", LU, "LU_data");
  EMBER_CHECK(!unpack_pivots || pivots.dtype() == kInt32,
              "ember.lu_unpack: LU_pivots is expected to be a contiguous tensor of ember.int32 dtype.\n"
              "Note: this function is intended to be used with the output produced by ember.linalg.lu_factor");
  check_float_or_complex("ember.lu_unpack", LU);
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  const DimVector batch = batch_shape(LU);
  const auto opts = TensorOptions(LU.dtype()).device(LU.device());
  auto shaped = [&](int64_t r, int64_t c) {
    DimVector s = batch;
    s.insert(s.end(), {r, c});
    return s;
  };
  Tensor P = unpack_pivots ? empty(shaped(m, m), opts) : empty({0}, opts);
  Tensor L = unpack_data ? empty(shaped(m, k), opts) : empty({0}, opts);
  Tensor U = unpack_data ? empty(shaped(k, n), opts) : empty({0}, opts);
  if (!LU.is_meta()) {
    cpu::lapack::lu_unpack(column_major_copy(LU), pivots.contiguous(),
                           unpack_pivots ? P : Tensor(), unpack_data ? L : Tensor(),
                           unpack_data ? U : Tensor());
  }
  return {P, L, U};
}

Tensor lu_solve_impl(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  check_square("linalg.lu_solve", LU, "LU");
  check_float_or_complex("linalg.lu_solve", LU);
  check_matrix("linalg.lu_solve", B, "B");
  check_same_dtype("linalg.lu_solve", LU, B, "LU", "B");
  EMBER_CHECK(pivots.dtype() == kInt32, "linalg.lu_solve: pivots should be a Tensor of scalar type ember.int32");
  const int64_t n = LU.size(-1);
  EMBER_CHECK(left ? B.size(-2) == n : B.size(-1) == n, "linalg.lu_solve: Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", B.size(-2), "x", B.size(-1), ")");
  // X op(A) = B  <=>  op(A)^H X^H = B^H: solve with the other transposition of the same LU
  // ('C' is A^H, A^T for real A).
  const Tensor B_ = left ? B : mH(B);
  const char trans = left == adjoint ? 'C' : 'N';
  auto [lu, x] = broadcast_solve_operands(LU, B_);
  DimVector piv_shape = batch_shape(lu);
  piv_shape.push_back(n);
  if (!x.is_meta()) {
    Tensor piv = pivots.expand(piv_shape).contiguous();
    cpu::lapack::getrs(lu, piv, x, trans);
  }
  return left ? x : mH(x);
}

Tensor solve_triangular_impl(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  check_float_or_complex_square("linalg.solve_triangular", A);
  check_matrix("linalg.solve_triangular", B, "B");
  check_same_dtype("linalg.solve_triangular", A, B);
  const int64_t n = A.size(-1);
  EMBER_CHECK(left ? B.size(-2) == n : B.size(-1) == n,
              "linalg.solve_triangular: Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", B.size(-2), "x", B.size(-1), ")");
  auto [a, x] = broadcast_solve_operands(A, B);
  if (!x.is_meta()) cpu::lapack::trsm(a, x, upper, left, false, unitriangular);
  return x;
}

// TORCH_WARN_ONCE in PyTorch: once per process.
void warn_once_cholesky() {
  static bool warned = false;
  if (warned) return;
  warned = true;
  EMBER_WARN(
      "ember.cholesky is deprecated in favor of ember.linalg.cholesky and will be removed in a "
      "future PyTorch release.\nL = ember.cholesky(A)\nshould be replaced with\nL = "
      "ember.linalg.cholesky(A)\nand\nU = ember.cholesky(A, upper=True)\nshould be replaced "
      "with\nU = ember.linalg.cholesky(A).mH().\nThis transform will produce equivalent results "
      "for all valid (symmetric positive definite) inputs.");
}

// ---- composites ----

Tensor inv_impl(const Tensor& A) {
  auto [inverse, info] = linalg::inv_ex(A, false);
  raise_if_errors("linalg.inv", info, A.dim() == 2);
  return inverse;
}

Tensor det_composite(const Tensor& A) { return std::get<0>(dispatch::call<det_impl>(OpId::_linalg_det, A)); }

std::tuple<Tensor, Tensor> slogdet_composite(const Tensor& A) {
  auto r = dispatch::call<slogdet_impl>(OpId::_linalg_slogdet, A);
  return {std::get<0>(r), std::get<1>(r)};
}

Tensor logdet_impl(const Tensor& A) {
  check_square("logdet", A);
  check_float_or_complex("logdet", A);
  auto [sign, logabsdet] = linalg::slogdet(A);
  // Complex: log(det) = log(sign) + log|det| (the principal branch).
  if (A.is_complex()) return log(sign) + logabsdet;
  // log(det): -inf where det is 0, nan where it is negative.
  return where(sign == -1, full({}, std::numeric_limits<double>::quiet_NaN(), TensorOptions(A.dtype())), logabsdet);
}

std::tuple<Tensor, Tensor> solve_ex_composite(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  auto r = dispatch::call<solve_ex_impl>(OpId::_linalg_solve_ex, A, B, left, check_errors);
  return {std::get<0>(r), std::get<3>(r)};
}

Tensor solve_impl(const Tensor& A, const Tensor& B, bool left) {
  auto [result, info] = linalg::solve_ex(A, B, left, false);
  raise_if_errors("ember.linalg.solve", info, A.dim() == 2);
  return result;
}

Tensor linalg_cholesky_impl(const Tensor& A, bool upper) {
  auto [L, info] = linalg::cholesky_ex(A, upper, false);
  raise_if_errors("linalg.cholesky", info, A.dim() == 2);
  return L;
}

Tensor cholesky_impl(const Tensor& A, bool upper) {
  warn_once_cholesky();
  return linalg::cholesky(A, upper);
}

// A = L L^H: X = L^-H L^-1 B by two triangular solves. A primitive (CholeskySolveBackward0),
// as in PyTorch, whose rule treats L as a full matrix: the gradient of the triangular solves
// would be zero above L's diagonal where PyTorch's is not.
Tensor cholesky_solve_impl(const Tensor& B, const Tensor& L, const bool& upper) {
  check_matrix("cholesky_solve", B, "B");
  check_matrix("cholesky_solve", L, "A");
  EMBER_CHECK(B.size(-2) == L.size(-1),
              "Incompatible matrix sizes for cholesky_solve: each A matrix is ", L.size(-1), " by ",
              L.size(-1), " but each b matrix is ", B.size(-2), " by ", B.size(-1));
  const Tensor Lo = upper ? mH(L) : L;
  Tensor y = linalg::solve_triangular(Lo, B, false, true, false);
  return linalg::solve_triangular(mH(Lo), y, true, true, false);
}

Tensor cholesky_inverse_impl(const Tensor& L, const bool& upper) {
  check_square("cholesky_inverse", L);
  check_float_or_complex("cholesky_inverse", L);
  return cholesky_solve_impl(eye_like(L.size(-1), L).expand(L.sizes()), L, upper);
}

std::tuple<Tensor, Tensor> lu_factor_impl(const Tensor& A, bool pivot) {
  auto [lu, pivots, info] = linalg::lu_factor_ex(A, pivot, false);
  raise_if_errors("ember.linalg.lu_factor", info, A.dim() == 2);
  return {lu, pivots};
}

std::tuple<Tensor, Tensor, Tensor> lu_impl(const Tensor& A, bool pivot) {
  auto [lu, pivots, info] = linalg::lu_factor_ex(A, pivot, false);
  return lu_unpack(lu, pivots, true, true);
}

Tensor old_lu_solve_impl(const Tensor& B, const Tensor& LU, const Tensor& pivots) {
  return linalg::lu_solve(LU, pivots, B, true, false);
}

std::tuple<Tensor, Tensor> triangular_solve_impl(const Tensor& B, const Tensor& A, bool upper,
                                                 bool transpose, bool unitriangular) {
  check_matrix("ember.triangular_solve", B, "self");
  check_matrix("ember.triangular_solve", A, "A");
  const Tensor A_ = transpose ? mT(A) : A;
  Tensor x = linalg::solve_triangular(A_, B, transpose ? !upper : upper, true, unitriangular);
  return {x, A.clone()};
}

}  // namespace

// ---- autograd ----
// PyTorch's formulas (FunctionsManual.cpp), real case, written with ember's Tensor ops so that
// they record themselves for double backward.
namespace {
using autograd::OpNode;
using autograd::tensor_list;

// d inv(A) = -inv^T g inv^T.
std::tuple<Tensor, Tensor> inv_ex_autograd(const Tensor& A, const bool& check_errors) {
  autograd::Recorder r("LinalgInvExBackward0", A);
  auto outs = r.forward([&] { return dispatch::call<inv_ex_impl>(OpId::linalg_inv_ex, A, check_errors); });
  if (!r) return outs;
  const size_t inverse_ = 0;
  r.finish(outs, [=](OpNode& n, const tensor_list& g) {
    const Tensor invH = mH(n.saved(inverse_));
    return tensor_list{-matmul(invH, matmul(g[0], invH))};
  });
  ops::save_output_at(r, std::get<0>(outs), inverse_, "inverse");
  return outs;
}

// d det = det * A^-T where A is invertible; for singular A, through the SVD:
// det = det(U) det(Vh) prod(S), so d det = U diag(alpha prod_{j != i} S_j) Vh.
Tensor det_backward(const Tensor& g, const Tensor& det, const Tensor& A) {
  if (A.size(-1) == 0) return zeros_like(A);
  const bool singular = !det.is_meta() && (det == 0).any().item<bool>();
  // Complex: the conjugate Wirtinger gradient, g conj(det) A^{-H}.
  if (!singular) return (g * conj_if_complex(det)).unsqueeze(-1).unsqueeze(-1) * mH(linalg::inv(A));
  auto [U, S, Vh] = linalg::svd(A, false);
  const Tensor alpha = conj_if_complex(linalg::det(U) * linalg::det(Vh)) * g;
  const int64_t n = S.size(-1);
  const Tensor off = 1 - eye_like(n, S);
  const Tensor others = (S.unsqueeze(-2) * off + eye_like(n, S)).prod(-1);
  return matmul(U * (alpha.unsqueeze(-1) * others).unsqueeze(-2), Vh);
}

std::tuple<Tensor, Tensor, Tensor> det_autograd(const Tensor& A) {
  autograd::Recorder r("LinalgDetBackward0", A);
  auto outs = r.forward([&] { return dispatch::call<det_impl>(OpId::_linalg_det, A); });
  if (!r) return outs;
  // (PyTorch 1.13 also keeps the LU factorization, LU and pivots; this rule inverts A instead)
  const size_t A_ = r.save(A, "A"), det_ = 1;
  outs = finish_outputs(r, outs, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{det_backward(g[0], n.saved(det_), n.saved(A_))};
  }, {true, false, false});
  ops::save_output_at(r, std::get<0>(outs), det_, "result");
  return outs;
}

// d log|det A| = A^-H (real: A^-T, and the sign is piecewise constant). Complex A: the sign is a
// phase whose differential is sign i Im tr(A^-1 dA), so gA = (g_abs - i Im(conj(g_sign) sign))
// A^-H (PyTorch's slogdet_backward).
std::tuple<Tensor, Tensor, Tensor, Tensor> slogdet_autograd(const Tensor& A) {
  autograd::Recorder r("LinalgSlogdetBackward0", A);
  auto outs = r.forward([&] { return dispatch::call<slogdet_impl>(OpId::_linalg_slogdet, A); });
  if (!r) return outs;
  const bool complex = A.is_complex();
  const size_t A_ = r.save(A, "A"), sign_ = 1;
  outs = finish_outputs(r, outs, [=](OpNode& n, const tensor_list& g) {
    const bool has_sign = complex && g[0].defined();
    if (!g[1].defined() && !has_sign) return tensor_list{Tensor()};
    const Tensor a = n.saved(A_);
    if (a.size(-1) == 0) return tensor_list{zeros_like(a)};
    Tensor coef = g[1];
    if (has_sign) {
      const Tensor phase = ember::complex(zeros_like(imag(g[0])), -imag(conj_physical(g[0]) * n.saved(sign_)));
      coef = coef.defined() ? phase + coef : phase;
    }
    return tensor_list{coef.unsqueeze(-1).unsqueeze(-1) * mH(linalg::inv(a))};
  }, {complex, true, false, false});
  if (complex) ops::save_output_at(r, std::get<0>(outs), sign_, "sign");
  return outs;
}

// A X = B: gB = A^-T gX, gA = -gB X^T (X A = B: gB = gX A^-T, gA = -X^T gB).
std::tuple<Tensor, Tensor, Tensor, Tensor> solve_ex_autograd(const Tensor& A, const Tensor& B, const bool& left,
                                                             const bool& check_errors) {
  autograd::Recorder r("LinalgSolveExBackward0", A, B);
  auto outs = r.forward([&] { return dispatch::call<solve_ex_impl>(OpId::_linalg_solve_ex, A, B, left, check_errors); });
  if (!r) return outs;
  const size_t A_ = r.save(A, "A"), X_ = 1;
  r.values("left", left);
  const bool vector = is_vector_rhs(A, B);
  outs = finish_outputs(r, outs, [=](OpNode& n, const tensor_list& g) {
    if (!g[0].defined()) return tensor_list{Tensor(), Tensor()};
    const Tensor a = n.saved(A_);
    const Tensor gB = linalg::solve(mH(a), g[0], left);
    Tensor gA;
    if (n.needs(0)) {
      const Tensor x = n.saved(X_);
      const Tensor gB_ = vector ? gB.unsqueeze(-1) : gB, x_ = vector ? x.unsqueeze(-1) : x;
      gA = left ? -matmul(gB_, mH(x_)) : -matmul(mH(x_), gB_);
    }
    return tensor_list{gA, n.needs(1) ? gB : Tensor()};
  }, {true, false, false, false});
  ops::save_output_at(r, std::get<0>(outs), X_, "result");
  return outs;
}

// Murray (2016), PyTorch's cholesky_backward: P = tril(L^H gL), gA = L^-H Phi L^-1 with
// Phi = (P + tril(P, -1)^H) / 2 (Hermitian off the diagonal, half P's diagonal on it).
std::tuple<Tensor, Tensor> cholesky_ex_autograd(const Tensor& A, const bool& upper, const bool& check_errors) {
  autograd::Recorder r("LinalgCholeskyExBackward0", A);
  auto outs = r.forward([&] { return dispatch::call<cholesky_ex_impl>(OpId::linalg_cholesky_ex, A, upper, check_errors); });
  if (!r) return outs;
  const size_t L_ = 0;
  r.values("upper", upper);
  r.finish(outs, [=](OpNode& n, const tensor_list& g) {
    Tensor L = n.saved(L_), gL = g[0];
    if (upper) {
      L = mH(L);
      gL = mH(gL);
    }
    const int64_t k = L.size(-1);
    const Tensor P = matmul(mH(L), gL);
    const Tensor phi = (P * triangle_mask(k, k, false, 1.0, L) + mH(P * triangle_mask(k, k, false, 0.0, L))) * 0.5;
    const Tensor y = linalg::solve_triangular(mH(L), phi, true, true, false);
    return tensor_list{linalg::solve_triangular(L, y, false, false, false)};
  });
  ops::save_output_at(r, std::get<0>(outs), L_, "L");
  return outs;
}

// X = A^-1 B for triangular A: gB = A^-H gX (triangular), gA = -gB X^H kept on A's triangle.
Tensor solve_triangular_autograd(const Tensor& A, const Tensor& B, const bool& upper, const bool& left,
                                 const bool& unitriangular) {
  autograd::Recorder r("LinalgSolveTriangularBackward0", A, B);
  Tensor out = r.forward([&] {
    return dispatch::call<solve_triangular_impl>(OpId::linalg_solve_triangular, A, B, upper, left, unitriangular);
  });
  if (!r) return out;
  const size_t A_ = r.save(A, "self"), X_ = 1;
  r.values("left", left, "unitriangular", unitriangular, "upper", upper);
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor a = n.saved(A_);
    const Tensor gB = linalg::solve_triangular(mH(a), g[0], !upper, left, unitriangular);
    Tensor gA;
    if (n.needs(0)) {
      const Tensor x = n.saved(X_);
      gA = left ? -matmul(gB, mH(x)) : -matmul(mH(x), gB);
      const int64_t k = a.size(-1);
      gA = gA * triangle_mask(k, k, upper, unitriangular ? 0.0 : 1.0, a);
    }
    return tensor_list{gA, n.needs(1) ? gB : Tensor()};
  });
  ops::save_output_at(r, out, X_, "result");
  return out;
}

// L and U are the triangles of LU (square factorizations): gLU = tril(gL, -1) + triu(gU).
std::tuple<Tensor, Tensor, Tensor> lu_unpack_autograd(const Tensor& LU, const Tensor& pivots, const bool& unpack_data,
                                                      const bool& unpack_pivots) {
  autograd::Recorder r("LuUnpackBackward0", LU);
  auto outs = r.forward([&] {
    return dispatch::call<lu_unpack_impl>(OpId::lu_unpack, LU, pivots, unpack_data, unpack_pivots);
  });
  if (!r) return outs;
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  outs = finish_outputs(r, outs, [=](OpNode&, const tensor_list& g) {
    const Tensor& gL = g[1];
    const Tensor& gU = g[2];
    if (!gL.defined() && !gU.defined()) return tensor_list{Tensor()};
    const Tensor like = gL.defined() ? gL : gU;
    auto zeros_shaped = [&](int64_t rows, int64_t cols) {
      DimVector s = batch_shape(like);
      s.insert(s.end(), {rows, cols});
      return zeros(s, TensorOptions(like.dtype()).device(like.device()));
    };
    Tensor gLU;
    if (gL.defined()) {
      gLU = gL * triangle_mask(m, k, false, 0.0, gL);
      if (n > k) gLU = cat({gLU, zeros_shaped(m, n - k)}, -1);
    }
    if (gU.defined()) {
      Tensor u = gU * triangle_mask(k, n, true, 1.0, gU);
      if (m > k) u = cat({u, zeros_shaped(m - k, n)}, -2);
      gLU = gLU.defined() ? gLU + u : u;
    }
    return tensor_list{gLU};
  }, {false, true, true});
  return outs;
}

// A = P L U (square): gA = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H, gL and gU the
// triangles of the gradient of the packed LU (PyTorch's linalg_lu_backward).
std::tuple<Tensor, Tensor, Tensor> lu_factor_ex_autograd(const Tensor& A, const bool& pivot, const bool& check_errors) {
  autograd::Recorder r("LinalgLuFactorExBackward0", A);
  auto outs = r.forward([&] {
    return dispatch::call<lu_factor_ex_impl>(OpId::linalg_lu_factor_ex, A, pivot, check_errors);
  });
  if (!r) return outs;
  const size_t LU_ = 0, piv_ = 1;
  r.values("pivot", pivot);
  const bool square = A.size(-1) == A.size(-2);
  outs = finish_outputs(r, outs, [=](OpNode& n, const tensor_list& g) {
    EMBER_CHECK_NOT_IMPLEMENTED(square, "the derivative of linalg.lu_factor (and linalg.lu) is implemented for "
                                        "square matrices only");
    const Tensor lu = n.saved(LU_);
    auto [P, L, U] = lu_unpack(lu, n.saved(piv_), true, true);
    const int64_t k = lu.size(-1);
    const Tensor gL = g[0] * triangle_mask(k, k, false, 0.0, lu);
    const Tensor gU = g[0] * triangle_mask(k, k, true, 1.0, lu);
    const Tensor gR = matmul(mH(L), gL) * triangle_mask(k, k, false, 0.0, lu) +
                      matmul(gU, mH(U)) * triangle_mask(k, k, true, 1.0, lu);
    Tensor gA = linalg::solve_triangular(mH(L), gR, true, true, true);
    gA = linalg::solve_triangular(mH(U), gA, false, false, false);
    return tensor_list{matmul(P, gA)};
  }, {true, false, false});
  ops::save_output_at(r, std::get<0>(outs), LU_, "LU");
  ops::save_output_at(r, std::get<1>(outs), piv_, "pivots");
  return outs;
}

// X = A^-1 B: gB = A^-H gX, through the same LU (the other transposition).
Tensor lu_solve_autograd(const Tensor& LU, const Tensor& pivots, const Tensor& B, const bool& left,
                         const bool& adjoint) {
  autograd::Recorder r("LinalgLuSolveBackward0", LU, B);
  Tensor out = r.forward([&] {
    return dispatch::call<lu_solve_impl>(OpId::linalg_lu_solve, LU, pivots, B, left, adjoint);
  });
  if (!r) return out;
  EMBER_CHECK_NOT_IMPLEMENTED(!r.needs(0),
                              "the derivative of linalg.lu_solve with respect to LU is not implemented; "
                              "differentiate through linalg.solve instead");
  const size_t LU_ = r.save(LU, "LU"), piv_ = r.save(pivots, "pivots");
  r.values("adjoint", adjoint, "left", left);
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{Tensor(), linalg::lu_solve(n.saved(LU_), n.saved(piv_), g[0], left, !adjoint)};
  });
  return out;
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(linalg_lu_factor_ex, &lu_factor_ex_autograd);
EMBER_REGISTER_AUTOGRAD(linalg_lu_solve, &lu_solve_autograd);
EMBER_REGISTER_AUTOGRAD(linalg_inv_ex, &inv_ex_autograd);
EMBER_REGISTER_AUTOGRAD(_linalg_det, &det_autograd);
EMBER_REGISTER_AUTOGRAD(_linalg_slogdet, &slogdet_autograd);
EMBER_REGISTER_AUTOGRAD(_linalg_solve_ex, &solve_ex_autograd);
EMBER_REGISTER_AUTOGRAD(linalg_cholesky_ex, &cholesky_ex_autograd);
EMBER_REGISTER_AUTOGRAD(linalg_solve_triangular, &solve_triangular_autograd);
EMBER_REGISTER_AUTOGRAD(lu_unpack, &lu_unpack_autograd);

namespace {
// PyTorch's cholesky_solve_backward / cholesky_inverse_backward: with C = gB X^H + X gB^H
// (gB = A^-1 gX, A = L L^H), gL = -C L (lower) or -L C (upper).
Tensor cholesky_factor_grad(const Tensor& common, const Tensor& L, bool upper) {
  return upper ? -matmul(L, common) : -matmul(common, L);
}

Tensor cholesky_solve_autograd(const Tensor& B, const Tensor& L, const bool& upper) {
  autograd::Recorder r("CholeskySolveBackward0", B, L);
  Tensor out = r.forward([&] { return dispatch::call<cholesky_solve_impl>(OpId::cholesky_solve, B, L, upper); });
  if (!r) return out;
  // B is saved too, unused by the rule: torch's node keeps it (_saved_self, in-place checks).
  const size_t L_ = r.save(L, "input2"), B_ = r.save(B, "self"), X_ = B_ + 1;  // X after finish
  r.values("upper", upper);
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    if (!g[0].defined()) return tensor_list{Tensor(), Tensor()};
    const Tensor l = n.saved(L_);
    const Tensor gB = cholesky_solve(g[0], l, upper);
    Tensor gL;
    if (n.needs(1)) {
      const Tensor common = matmul(gB, mH(n.saved(X_)));
      gL = cholesky_factor_grad(common + mH(common), l, upper);
    }
    return tensor_list{n.needs(0) ? gB : Tensor(), gL};
  });
  ops::save_output_at(r, out, X_, "result");
  return out;
}

Tensor cholesky_inverse_autograd(const Tensor& L, const bool& upper) {
  autograd::Recorder r("CholeskyInverseBackward0", L);
  Tensor out = r.forward([&] { return dispatch::call<cholesky_inverse_impl>(OpId::cholesky_inverse, L, upper); });
  if (!r) return out;
  const size_t L_ = r.save(L, "self"), inverse_ = 1;
  r.values("upper", upper);
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor inv = n.saved(inverse_);
    return tensor_list{cholesky_factor_grad(matmul(inv, matmul(g[0] + mH(g[0]), inv)), n.saved(L_), upper)};
  });
  ops::save_output_at(r, out, inverse_, "result");
  return out;
}
}  // namespace

EMBER_REGISTER_AUTOGRAD(cholesky_solve, &cholesky_solve_autograd);
EMBER_REGISTER_AUTOGRAD(cholesky_inverse, &cholesky_inverse_autograd);


// ---- frontends (schema order) and boxed registration ----

namespace linalg {
Tensors2 inv_ex(const Tensor& A, bool check_errors) {
  return dispatch::call<inv_ex_impl>(OpId::linalg_inv_ex, A, check_errors);
}
Tensor inv(const Tensor& A) { return dispatch::call<inv_impl>(OpId::linalg_inv, A); }
Tensor det(const Tensor& A) { return dispatch::call<det_composite>(OpId::linalg_det, A); }
Tensors2 slogdet(const Tensor& A) { return dispatch::call<slogdet_composite>(OpId::linalg_slogdet, A); }
Tensors2 cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  return dispatch::call<cholesky_ex_impl>(OpId::linalg_cholesky_ex, A, upper, check_errors);
}
Tensor cholesky(const Tensor& A, bool upper) {
  return dispatch::call<linalg_cholesky_impl>(OpId::linalg_cholesky, A, upper);
}
Tensors2 solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  return dispatch::call<solve_ex_composite>(OpId::linalg_solve_ex, A, B, left, check_errors);
}
Tensor solve(const Tensor& A, const Tensor& B, bool left) {
  return dispatch::call<solve_impl>(OpId::linalg_solve, A, B, left);
}
Tensors3 lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  return dispatch::call<lu_factor_ex_impl>(OpId::linalg_lu_factor_ex, A, pivot, check_errors);
}
Tensors2 lu_factor(const Tensor& A, bool pivot) {
  return dispatch::call<lu_factor_impl>(OpId::linalg_lu_factor, A, pivot);
}
Tensors3 lu(const Tensor& A, bool pivot) { return dispatch::call<lu_impl>(OpId::linalg_lu, A, pivot); }
Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  return dispatch::call<lu_solve_impl>(OpId::linalg_lu_solve, LU, pivots, B, left, adjoint);
}
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  return dispatch::call<solve_triangular_impl>(OpId::linalg_solve_triangular, A, B, upper, left,
                                               unitriangular);
}
}  // namespace linalg

namespace {
std::tuple<Tensor, Tensor, Tensor> linalg_det_private(const Tensor& A) {
  return dispatch::call<det_impl>(OpId::_linalg_det, A);
}
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_slogdet_private(const Tensor& A) {
  return dispatch::call<slogdet_impl>(OpId::_linalg_slogdet, A);
}
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_solve_ex_private(const Tensor& A, const Tensor& B, bool left,
                                                                   bool check_errors) {
  return dispatch::call<solve_ex_impl>(OpId::_linalg_solve_ex, A, B, left, check_errors);
}
Tensor det_torch_impl(const Tensor& self) { return linalg::det(self); }
std::tuple<Tensor, Tensor> slogdet_torch_impl(const Tensor& self) { return linalg::slogdet(self); }
Tensor inverse_impl(const Tensor& self) { return linalg::inv(self); }
}  // namespace

Tensor inverse(const Tensor& self) { return dispatch::call<inverse_impl>(OpId::inverse, self); }
Tensor det(const Tensor& self) { return dispatch::call<det_torch_impl>(OpId::det, self); }
Tensor logdet(const Tensor& self) { return dispatch::call<logdet_impl>(OpId::logdet, self); }
std::tuple<Tensor, Tensor> slogdet(const Tensor& self) {
  return dispatch::call<slogdet_torch_impl>(OpId::slogdet, self);
}
Tensor cholesky(const Tensor& self, bool upper) {
  return dispatch::call<cholesky_impl>(OpId::cholesky, self, upper);
}
Tensor cholesky_solve(const Tensor& self, const Tensor& input2, bool upper) {
  return dispatch::call<cholesky_solve_impl>(OpId::cholesky_solve, self, input2, upper);
}
Tensor cholesky_inverse(const Tensor& self, bool upper) {
  return dispatch::call<cholesky_inverse_impl>(OpId::cholesky_inverse, self, upper);
}
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU_data, const Tensor& LU_pivots, bool unpack_data,
                                             bool unpack_pivots) {
  return dispatch::call<lu_unpack_impl>(OpId::lu_unpack, LU_data, LU_pivots, unpack_data, unpack_pivots);
}
Tensor lu_solve(const Tensor& self, const Tensor& LU_data, const Tensor& LU_pivots) {
  return dispatch::call<old_lu_solve_impl>(OpId::lu_solve, self, LU_data, LU_pivots);
}
std::tuple<Tensor, Tensor> triangular_solve(const Tensor& self, const Tensor& A, bool upper, bool transpose,
                                            bool unitriangular) {
  return dispatch::call<triangular_solve_impl>(OpId::triangular_solve, self, A, upper, transpose, unitriangular);
}

EMBER_REGISTER_OP(linalg_inv_ex, &linalg::inv_ex);
EMBER_REGISTER_OP(linalg_inv, &linalg::inv);
EMBER_REGISTER_OP(inverse, &inverse);
EMBER_REGISTER_OP(_linalg_det, &linalg_det_private);
EMBER_REGISTER_OP(linalg_det, &linalg::det);
EMBER_REGISTER_OP(det, &det);
EMBER_REGISTER_OP(_linalg_slogdet, &linalg_slogdet_private);
EMBER_REGISTER_OP(linalg_slogdet, &linalg::slogdet);
EMBER_REGISTER_OP(slogdet, &slogdet);
EMBER_REGISTER_OP(logdet, &logdet);
EMBER_REGISTER_OP(linalg_cholesky_ex, &linalg::cholesky_ex);
EMBER_REGISTER_OP(linalg_cholesky, &linalg::cholesky);
EMBER_REGISTER_OP(cholesky, &cholesky);
EMBER_REGISTER_OP(cholesky_solve, &cholesky_solve);
EMBER_REGISTER_OP(cholesky_inverse, &cholesky_inverse);
EMBER_REGISTER_OP(_linalg_solve_ex, &linalg_solve_ex_private);
EMBER_REGISTER_OP(linalg_solve_ex, &linalg::solve_ex);
EMBER_REGISTER_OP(linalg_solve, &linalg::solve);
EMBER_REGISTER_OP(linalg_lu_factor_ex, &linalg::lu_factor_ex);
EMBER_REGISTER_OP(linalg_lu_factor, &linalg::lu_factor);
EMBER_REGISTER_OP(lu_unpack, &lu_unpack);
EMBER_REGISTER_OP(linalg_lu, &linalg::lu);
EMBER_REGISTER_OP(linalg_lu_solve, &linalg::lu_solve);
EMBER_REGISTER_OP(lu_solve, &lu_solve);
EMBER_REGISTER_OP(linalg_solve_triangular, &linalg::solve_triangular);
EMBER_REGISTER_OP(triangular_solve, &triangular_solve);

}  // namespace ember
