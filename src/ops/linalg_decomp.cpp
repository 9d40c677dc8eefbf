// The orthogonal decompositions: qr, svd, eigh, lstsq (primitives over LAPACK's geqrf/orgqr,
// gesdd, syevd and the gels family), their composites (linalg.svd, svdvals, eigvalsh, torch.qr,
// torch.svd) and backward rules. Checks and texts are PyTorch 1.13's.
#include <limits>

#include "../backends/cpu/lapack.h"
#include "../backends/cpu/lapack_eig.h"
#include "../dispatch/boxing.h"
#include "ember/ops/complex.h"
#include "ember/ops/pointwise.h"
#include "linalg_common.h"

namespace ember {

using dispatch::OpId;
using namespace ops::linalg;  // NOLINT: the helpers of this op family

namespace {

DimVector with_matrix(const DimVector& batch, int64_t rows, int64_t cols) {
  DimVector s = batch;
  s.insert(s.end(), {rows, cols});
  return s;
}

DimVector with_vector(const DimVector& batch, int64_t n) {
  DimVector s = batch;
  s.push_back(n);
  return s;
}

Tensor empty_1d(const Tensor& like, ScalarType dtype) {
  return empty({0}, TensorOptions(dtype).device(like.device()));
}

// Whether a composite should also compute what the backward needs (PyTorch's
// _may_require_fw_or_bw_grad).
bool may_need_grad(const Tensor& A) { return GradMode::is_enabled() && A.requires_grad(); }

// ---- primitives ----

std::tuple<Tensor, Tensor> qr_impl(const Tensor& A, const std::string& mode) {
  check_matrix("linalg.qr", A);
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r", "qr received unrecognized mode '",
              mode, "' but expected one of 'reduced' (default), 'r', or 'complete'");
  check_float_or_complex("linalg.qr", A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const bool complete = mode == "complete", compute_q = mode != "r";
  const DimVector batch = batch_shape(A);
  Tensor Q = compute_q ? empty_column_major(with_matrix(batch, m, complete ? m : k), A.dtype(), A.device())
                       : empty_1d(A, A.dtype());
  Tensor R = empty_column_major(with_matrix(batch, complete ? m : k, n), A.dtype(), A.device());
  if (!R.is_meta()) cpu::lapack::geqrf_orgqr(column_major_copy(A), compute_q ? Q : Tensor(), R);
  return {Q, R};
}

std::tuple<Tensor, Tensor, Tensor> svd_impl(const Tensor& A, bool full_matrices, bool compute_uv,
                                            std::optional<std::string> driver) {
  check_matrix("linalg.svd", A);
  check_float_or_complex("linalg.svd", A);
  EMBER_CHECK(!driver.has_value(),
              "ember.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend.");
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const DimVector batch = batch_shape(A);
  Tensor U = compute_uv ? empty_column_major(with_matrix(batch, m, full_matrices ? m : k), A.dtype(), A.device())
                        : empty_1d(A, A.dtype());
  // The singular values are real for complex input too.
  Tensor S = empty(with_vector(batch, k), TensorOptions(to_real_value_type(A.dtype())).device(A.device()));
  Tensor Vh = compute_uv ? empty_column_major(with_matrix(batch, full_matrices ? n : k, n), A.dtype(), A.device())
                         : empty_1d(A, A.dtype());
  if (!S.is_meta()) {
    Tensor info = empty_int(batch, A.device());
    cpu::lapack::gesdd(column_major_copy(A), compute_uv ? U : Tensor(), S, compute_uv ? Vh : Tensor(), info);
    raise_if_errors("linalg.svd", info, A.dim() == 2);
  }
  return {U, S, Vh};
}

std::tuple<Tensor, Tensor> eigh_impl(const Tensor& A, const std::string& UPLO, bool compute_v) {
  check_square("linalg.eigh", A);
  EMBER_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u",
              "Expected UPLO argument to be 'L' or 'U', but got ", UPLO);
  check_float_or_complex("linalg.eigh", A);
  const DimVector batch = batch_shape(A);
  // Complex (Hermitian) input: real eigenvalues, complex eigenvectors (LAPACK's heevd).
  const ScalarType wtype = A.is_complex() ? to_real_value_type(A.dtype()) : A.dtype();
  Tensor w = empty(with_vector(batch, A.size(-1)), TensorOptions(wtype).device(A.device()));
  Tensor V = column_major_copy(A);
  if (!w.is_meta()) {
    Tensor info = empty_int(batch, A.device());
    if (A.is_complex()) cpu::lapack::heevd(V, w, compute_v, UPLO == "U" || UPLO == "u", info);
    else cpu::lapack::syevd(V, w, compute_v, UPLO == "U" || UPLO == "u", info);
    raise_if_errors("linalg.eigh", info, A.dim() == 2);
  }
  return {w, compute_v ? V : empty_1d(A, A.dtype())};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq_impl(const Tensor& A, const Tensor& B, std::optional<double> rcond,
                                                      std::optional<std::string> driver_) {
  EMBER_CHECK(A.dim() >= 2, "ember.linalg.lstsq: input must have at least 2 dimensions.");
  EMBER_CHECK(B.dim() >= 1, "ember.linalg.lstsq: other must have at least 1 dimension.");
  EMBER_CHECK(A.dtype() == B.dtype(),
              "ember.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype ",
              scalar_type_name(A.dtype()), " and other's dtype ", scalar_type_name(B.dtype()));
  const int64_t dim_diff = A.dim() - B.dim();
  EMBER_CHECK(0 <= dim_diff && dim_diff <= 1,
              "ember.linalg.lstsq: input.dim() must be greater or equal to other.dim() and (input.dim() - "
              "other.dim()) <= 1");
  const bool vector = dim_diff == 1;
  const Tensor B2 = vector ? B.unsqueeze(-1) : B;
  EMBER_CHECK(A.size(-2) == B2.size(-2), vector ? "ember.linalg.lstsq: input.size(-2) should match other.size(-1)"
                                                : "ember.linalg.lstsq: input.size(-2) should match other.size(-2)");
  check_float_or_complex("ember.linalg.lstsq", A);
  const std::string driver = driver_.value_or("gelsy");
  EMBER_CHECK(driver == "gels" || driver == "gelsy" || driver == "gelsd" || driver == "gelss",
              "ember.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  const int64_t m = A.size(-2), n = A.size(-1), k = B2.size(-1), mn = std::min(m, n);
  const DimVector batch = broadcast_shapes(batch_shape(A), batch_shape(B2));
  const ScalarType real_type = to_real_value_type(A.dtype());
  const double eps = real_type == kFloat64 ? std::numeric_limits<double>::epsilon()
                                           : static_cast<double>(std::numeric_limits<float>::epsilon());
  const double rc = rcond.value_or(eps * static_cast<double>(std::max(m, n)));
  Tensor a = column_major_copy(A.expand(with_matrix(batch, m, n)));
  // B padded to max(m, n) rows: LAPACK writes the n rows of the solution over it.
  Tensor b = empty_column_major(with_matrix(batch, std::max(m, n), k), A.dtype(), A.device());
  const bool has_rank = driver != "gels", has_sv = driver == "gelsd" || driver == "gelss";
  Tensor rank = has_rank ? empty(batch, TensorOptions(kInt64).device(A.device())) : empty_1d(A, kInt64);
  Tensor sv = has_sv ? empty(with_vector(batch, mn), TensorOptions(real_type).device(A.device()))
                      : empty_1d(A, real_type);
  if (!b.is_meta()) {
    b.zero_();
    b.narrow(-2, 0, m).copy_(B2.expand(with_matrix(batch, m, k)));
    Tensor info = empty_int(batch, A.device());
    cpu::lapack::gels(driver, a, b, rc, has_rank ? rank : Tensor(), has_sv ? sv : Tensor(), info);
    if (driver == "gels") raise_if_errors("ember.linalg.lstsq", info, A.dim() == 2);
  }
  Tensor solution = b.narrow(-2, 0, n);
  Tensor residuals = empty_1d(A, real_type);
  if (m > n && driver != "gelsy" && !b.is_meta()) {
    bool full_rank = true;
    if (has_rank) full_rank = (rank == n).all().item<bool>();
    if (full_rank) residuals = b.narrow(-2, n, m - n).abs().pow(2).sum(std::vector<int64_t>{-2});
  }
  if (vector) solution = solution.squeeze(-1);
  return {solution, residuals, rank, sv};
}

// ---- composites ----

std::tuple<Tensor, Tensor, Tensor> linalg_svd_impl(const Tensor& A, bool full_matrices, std::optional<std::string> driver) {
  return dispatch::call<svd_impl>(OpId::_linalg_svd, A, full_matrices, true, driver);
}

Tensor svdvals_impl(const Tensor& A, std::optional<std::string> driver) {
  return std::get<1>(dispatch::call<svd_impl>(OpId::_linalg_svd, A, false, may_need_grad(A), driver));
}

std::tuple<Tensor, Tensor, Tensor> torch_svd_impl(const Tensor& A, bool some, bool compute_uv) {
  EMBER_CHECK(A.dim() >= 2, "linalg.svd: input should have at least 2 dimensions, but has ", A.dim(),
              " dimensions instead");
  if (compute_uv) {
    auto [U, S, Vh] = linalg::svd(A, !some);
    return {U, S, mH(Vh)};
  }
  Tensor S = linalg::svdvals(A);
  const DimVector batch = batch_shape(A);
  const auto opts = TensorOptions(A.dtype()).device(A.device());
  return {zeros(with_matrix(batch, A.size(-2), A.size(-2)), opts), S,
          zeros(with_matrix(batch, A.size(-1), A.size(-1)), opts)};
}

std::tuple<Tensor, Tensor> linalg_eigh_impl(const Tensor& A, const std::string& UPLO) {
  return dispatch::call<eigh_impl>(OpId::_linalg_eigh, A, UPLO, true);
}

Tensor eigvalsh_impl(const Tensor& A, const std::string& UPLO) {
  return std::get<0>(dispatch::call<eigh_impl>(OpId::_linalg_eigh, A, UPLO, may_need_grad(A)));
}

std::tuple<Tensor, Tensor> torch_qr_impl(const Tensor& A, bool some) {
  return linalg::qr(A, some ? "reduced" : "complete");
}

}  // namespace

// ---- autograd ----
// PyTorch's formulas (FunctionsManual.cpp: linalg_qr_backward, svd_backward,
// linalg_eig_backward, linalg_lstsq_backward, pinv_backward), written for complex matrices with
// conjugate transposes (mH, which is mT on real ones: the real rules are the same code).
namespace {
using autograd::OpNode;
using autograd::tensor_list;

// X - X^H.
Tensor skew(const Tensor& X) { return X - mH(X); }

// A = QR, m >= n (reduced): gA = (gQ + Q copyltu(M)) R^-H with M = gR R^H - Q^H gQ made
// Hermitian from its upper triangle (the diagonal's real part: PyTorch's syminvadj).
Tensor qr_backward_tall(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  const int64_t n = R.size(-1);
  Tensor M;
  if (gR.defined()) M = matmul(gR, mH(R));
  if (gQ.defined()) M = M.defined() ? M - matmul(mH(Q), gQ) : -matmul(mH(Q), gQ);
  const Tensor half_upper = M * triangle_mask(n, n, true, 0.5, M);
  Tensor gA = matmul(Q, half_upper + mH(half_upper));
  if (gQ.defined()) gA = gA + gQ;
  return linalg::solve_triangular(mH(R), gA, false, false, false);
}

Tensor qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R, const std::string& mode) {
  EMBER_CHECK(mode != "r",
              "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
              "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  const int64_t m = Q.size(-2), n = R.size(-1);
  EMBER_CHECK(mode == "reduced" || m <= n,
              "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  if (m >= n) return qr_backward_tall(gQ, gR, Q, R);
  // Wide A = Q [R1 R2] with Y = Q R2: the square part sees gQ + Y gR2^H, and gY = Q gR2.
  const Tensor R1 = R.narrow(-1, 0, m), R2 = R.narrow(-1, m, n - m);
  Tensor gQ1 = gQ;
  Tensor gR1, gY;
  if (gR.defined()) {
    gR1 = gR.narrow(-1, 0, m);
    const Tensor gR2 = gR.narrow(-1, m, n - m);
    const Tensor extra = matmul(matmul(Q, R2), mH(gR2));
    gQ1 = gQ.defined() ? gQ + extra : extra;
    gY = matmul(Q, gR2);
  } else {
    gY = zeros_like(R2);
  }
  return cat({qr_backward_tall(gQ1, gR1, Q, R1), gY}, -1);
}

std::tuple<Tensor, Tensor> qr_autograd(const Tensor& A, const std::string& mode) {
  autograd::Recorder r("LinalgQrBackward0", A);
  auto outs = r.forward([&] { return dispatch::call<qr_impl>(OpId::linalg_qr, A, mode); });
  if (!r) return outs;
  const size_t Q_ = 0, R_ = 1;
  r.values("mode", mode);
  outs = r.finish(outs, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{qr_backward(g[0], g[1], n.saved(Q_), n.saved(R_), mode)};
  });
  ops::save_output_at(r, std::get<0>(outs), Q_, "Q");
  ops::save_output_at(r, std::get<1>(outs), R_, "R");
  return outs;
}

Tensor svd_backward(Tensor gU, const Tensor& gS, Tensor gVh, Tensor U, const Tensor& S, Tensor Vh) {
  if (!gS.defined() && !gU.defined() && !gVh.defined()) return Tensor();
  const int64_t m = U.size(-2), n = Vh.size(-1), k = S.size(-1);
  if (!gU.defined() && !gVh.defined()) {
    return m >= n ? matmul(U.narrow(-1, 0, k), gS.unsqueeze(-1) * Vh.narrow(-2, 0, k))
                  : matmul(U.narrow(-1, 0, k) * gS.unsqueeze(-2), Vh.narrow(-2, 0, k));
  }
  U = U.narrow(-1, 0, k);
  Vh = Vh.narrow(-2, 0, k);
  if (gU.defined()) gU = gU.narrow(-1, 0, k);
  if (gVh.defined()) gVh = gVh.narrow(-2, 0, k);
  const Tensor V = mH(Vh);
  const Tensor UhgU = gU.defined() ? skew(matmul(mH(U), gU)) : Tensor();
  const Tensor VhgV = gVh.defined() ? skew(matmul(Vh, mH(gVh))) : Tensor();
  const bool complex = U.is_complex();
  if (complex) {
    // The loss must not depend on the vectors' phases: Im diag(U^H gU) = -Im diag(V^H gV).
    const Tensor im_u = UhgU.defined() ? imag(diagonal_of(UhgU)) : zeros_like(S);
    const Tensor im_v = VhgV.defined() ? imag(diagonal_of(VhgV)) : zeros_like(S);
    EMBER_CHECK(im_u.numel() == 0 || (abs(im_u + im_v) - (1e-2 + 1e-2 * abs(im_v))).max().item<double>() <= 0,
                "svd_backward: The singular vectors in the complex case are specified up to multiplication by "
                "e^{i phi}. The specified loss function depends on this phase term, making it ill-defined.");
  }
  const Tensor S2 = S * S;
  // E_ij = S_j^2 - S_i^2, 1 on the diagonal (where the numerators are 0).
  const Tensor E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye_like(k, S);
  Tensor gA;
  if (gU.defined() && gVh.defined()) {
    gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E;
  } else if (gU.defined()) {
    gA = UhgU * (S.unsqueeze(-2) / E);
  } else {
    gA = S.unsqueeze(-1) * (VhgV / E);
  }
  if (gS.defined()) gA = gA + diag_embed_of(gS);
  if (complex && gU.defined() && gVh.defined()) gA = gA + diag_embed_of(diagonal_of(UhgU) / (2 * S));
  if (m > n && gU.defined()) {
    gA = matmul(U, gA);
    const Tensor gUSinv = gU / S.unsqueeze(-2);
    gA = gA + gUSinv - matmul(U, matmul(mH(U), gUSinv));
    return matmul(gA, Vh);
  }
  if (m < n && gVh.defined()) {
    gA = matmul(gA, Vh);
    const Tensor SinvgVh = gVh / S.unsqueeze(-1);
    gA = gA + SinvgVh - matmul(matmul(SinvgVh, V), Vh);
    return matmul(U, gA);
  }
  return m >= n ? matmul(U, matmul(gA, Vh)) : matmul(matmul(U, gA), Vh);
}

std::tuple<Tensor, Tensor, Tensor> svd_autograd(const Tensor& A, const bool& full_matrices, const bool& compute_uv,
                                                const std::optional<std::string>& driver) {
  autograd::Recorder r("LinalgSvdBackward0", A);
  auto outs = r.forward([&] { return dispatch::call<svd_impl>(OpId::_linalg_svd, A, full_matrices, compute_uv, driver); });
  if (!r) return outs;
  const size_t U_ = 0, S_ = 1, Vh_ = 2;
  r.values("full_matrices", full_matrices);
  outs = finish_outputs(r, outs, [=](OpNode& n, const tensor_list& g) {
    EMBER_CHECK(compute_uv, "linalg.svd: the derivative needs U and Vh, which compute_uv=False does not "
                            "compute; ember.linalg.svdvals computes them when its input requires grad");
    return tensor_list{svd_backward(g[0], g[1], g[2], n.saved(U_), n.saved(S_), n.saved(Vh_))};
  }, {compute_uv, true, compute_uv});
  ops::save_output_at(r, std::get<0>(outs), U_, "U");
  ops::save_output_at(r, std::get<1>(outs), S_, "S");
  ops::save_output_at(r, std::get<2>(outs), Vh_, "Vh");
  return outs;
}

// A = V diag(L) V^T: gA = V (diag(gL) + sym-skew(V^T gV) / E) V^T, E_ij = L_j - L_i.
Tensor eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V) {
  if (!gL.defined() && !gV.defined()) return Tensor();
  if (V.is_complex()) {
    // PyTorch's linalg_eig_backward with is_hermitian: V^H gV projected onto the
    // skew-Hermitian matrices, divided by E_ij = L_j - L_i, diag(gL) on the diagonal.
    const Tensor VH = mH(V);
    if (!gV.defined()) return matmul(V * gL.unsqueeze(-2), VH);
    Tensor VhgV = matmul(VH, gV);
    const Tensor im = imag(VhgV.diagonal(0, -2, -1));
    EMBER_CHECK(im.numel() == 0 || abs(im).max().item<double>() <= 1e-2,
                "linalg_eigh_backward: The eigenvectors in the complex case are specified up to multiplication by "
                "e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.");
    VhgV = (VhgV - mH(VhgV)) * 0.5;
    const int64_t n = L.size(-1);
    const Tensor I = eye_like(n, L);
    Tensor gA = VhgV / (L.unsqueeze(-2) - L.unsqueeze(-1) + I);
    if (gL.defined()) gA = gA * (1 - I) + gL.unsqueeze(-1) * I;
    return matmul(V, matmul(gA, VH));
  }
  if (!gV.defined()) return matmul(V * gL.unsqueeze(-2), mT(V));
  const int64_t n = L.size(-1);
  const Tensor VhgV = (matmul(mT(V), gV) - matmul(mT(gV), V)) * 0.5;
  const Tensor E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye_like(n, L);
  Tensor gA = VhgV / E;
  if (gL.defined()) gA = gA + diag_embed_of(gL);
  return matmul(V, matmul(gA, mT(V)));
}

std::tuple<Tensor, Tensor> eigh_autograd(const Tensor& A, const std::string& UPLO, const bool& compute_v) {
  autograd::Recorder r("LinalgEighBackward0", A);
  auto outs = r.forward([&] { return dispatch::call<eigh_impl>(OpId::_linalg_eigh, A, UPLO, compute_v); });
  if (!r) return outs;
  const size_t L_ = 0, V_ = 1;
  outs = r.finish(outs, [=](OpNode& n, const tensor_list& g) {
    EMBER_CHECK(compute_v, "linalg.eigh: The derivative is not defined when compute_v=False");
    return tensor_list{eigh_backward(g[0], g[1], n.saved(L_), n.saved(V_))};
  });
  ops::save_output_at(r, std::get<0>(outs), L_, "eigenvalues");
  ops::save_output_at(r, std::get<1>(outs), V_, "eigenvectors");
  return outs;
}

}  // namespace

// PyTorch's pinv_backward: the gradient of pinv(A) for any A, in the smaller dimension.
Tensor ops::linalg::pinv_backward(const Tensor& grad, const Tensor& pinvA, const Tensor& A) {
  const int64_t m = A.size(-2), n = A.size(-1);
  const Tensor pinvAh = mH(pinvA), gradh = mH(grad);
  if (m <= n) {
    const Tensor K = matmul(gradh, pinvA);
    const Tensor KpinvAh = matmul(K, pinvAh);
    return -mH(matmul(pinvA, K)) + KpinvAh - matmul(matmul(A, pinvA), KpinvAh) +
           matmul(matmul(pinvAh, pinvA), gradh - matmul(K, A));
  }
  const Tensor K = matmul(pinvA, gradh);
  const Tensor pinvAhK = matmul(pinvAh, K);
  return -mH(matmul(K, pinvA)) + matmul(matmul(gradh - matmul(A, K), pinvA), pinvAh) + pinvAhK -
         matmul(matmul(pinvAhK, pinvA), A);
}

namespace {
// PyTorch's linalg_lstsq_backward: through pinv(A) (X = pinv(A) B).
std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq_autograd(const Tensor& A, const Tensor& B,
                                                          const std::optional<double>& rcond,
                                                          const std::optional<std::string>& driver) {
  autograd::Recorder r("LinalgLstsqBackward0", A, B);
  auto outs = r.forward([&] { return dispatch::call<lstsq_impl>(OpId::linalg_lstsq, A, B, rcond, driver); });
  if (!r) return outs;
  const size_t A_ = r.save(A, "self"), B_ = r.save(B, "b");
  r.values("driver", driver, "rcond", rcond);
  const bool vector = A.dim() - B.dim() == 1;
  outs = finish_outputs(r, outs, [=](OpNode& n, const tensor_list& g) {
    if (!g[0].defined()) return tensor_list{Tensor(), Tensor()};
    const Tensor a = n.saved(A_);
    const Tensor b = vector ? n.saved(B_).unsqueeze(-1) : n.saved(B_);
    const Tensor gX = vector ? g[0].unsqueeze(-1) : g[0];
    const Tensor pinvA = linalg::pinv(a);
    Tensor gA, gB;
    if (n.needs(0)) gA = pinv_backward(matmul(gX, mH(b)), pinvA, a);
    if (n.needs(1)) {
      gB = matmul(mH(pinvA), gX);
      if (vector) gB = gB.squeeze(-1);
    }
    return tensor_list{gA, gB};
  }, {true, false, false, false});
  return outs;
}
}  // namespace

EMBER_REGISTER_AUTOGRAD(linalg_qr, &qr_autograd);
EMBER_REGISTER_AUTOGRAD(_linalg_svd, &svd_autograd);
EMBER_REGISTER_AUTOGRAD(_linalg_eigh, &eigh_autograd);
EMBER_REGISTER_AUTOGRAD(linalg_lstsq, &lstsq_autograd);

// ---- frontends (schema order) and boxed registration ----

namespace linalg {
Tensors2 qr(const Tensor& A, const std::string& mode) { return dispatch::call<qr_impl>(OpId::linalg_qr, A, mode); }
Tensors3 svd(const Tensor& A, bool full_matrices, std::optional<std::string> driver) {
  return dispatch::call<linalg_svd_impl>(OpId::linalg_svd, A, full_matrices, driver);
}
Tensor svdvals(const Tensor& A, std::optional<std::string> driver) {
  return dispatch::call<svdvals_impl>(OpId::linalg_svdvals, A, driver);
}
Tensors2 eigh(const Tensor& A, const std::string& UPLO) {
  return dispatch::call<linalg_eigh_impl>(OpId::linalg_eigh, A, UPLO);
}
Tensor eigvalsh(const Tensor& A, const std::string& UPLO) {
  return dispatch::call<eigvalsh_impl>(OpId::linalg_eigvalsh, A, UPLO);
}
Tensors4 lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond, std::optional<std::string> driver) {
  return dispatch::call<lstsq_impl>(OpId::linalg_lstsq, A, B, rcond, driver);
}
}  // namespace linalg

namespace {
std::tuple<Tensor, Tensor, Tensor> linalg_svd_private(const Tensor& A, bool full_matrices, bool compute_uv,
                                                      std::optional<std::string> driver) {
  return dispatch::call<svd_impl>(OpId::_linalg_svd, A, full_matrices, compute_uv, driver);
}
std::tuple<Tensor, Tensor> linalg_eigh_private(const Tensor& A, const std::string& UPLO, bool compute_v) {
  return dispatch::call<eigh_impl>(OpId::_linalg_eigh, A, UPLO, compute_v);
}
}  // namespace

std::tuple<Tensor, Tensor> qr(const Tensor& self, bool some) {
  return dispatch::call<torch_qr_impl>(OpId::qr, self, some);
}
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& self, bool some, bool compute_uv) {
  return dispatch::call<torch_svd_impl>(OpId::svd, self, some, compute_uv);
}

EMBER_REGISTER_OP(linalg_qr, &linalg::qr);
EMBER_REGISTER_OP(qr, &qr);
EMBER_REGISTER_OP(_linalg_svd, &linalg_svd_private);
EMBER_REGISTER_OP(linalg_svd, &linalg::svd);
EMBER_REGISTER_OP(linalg_svdvals, &linalg::svdvals);
EMBER_REGISTER_OP(svd, &svd);
EMBER_REGISTER_OP(_linalg_eigh, &linalg_eigh_private);
EMBER_REGISTER_OP(linalg_eigh, &linalg::eigh);
EMBER_REGISTER_OP(linalg_eigvalsh, &linalg::eigvalsh);
EMBER_REGISTER_OP(linalg_lstsq, &linalg::lstsq);

}  // namespace ember
