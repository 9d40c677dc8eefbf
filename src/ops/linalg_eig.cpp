// linalg.eig / linalg.eigvals (PyTorch 1.13's BatchLinearAlgebra.cpp and FunctionsManual.cpp's
// linalg_eig_backward): LAPACK's geev on a column-major copy, complex results whatever the input,
// and the backward rule LinalgEigBackward0.
#include "ember/ops/linalg_eig.h"

#include "../backends/cpu/lapack_eig.h"
#include "../dispatch/boxing.h"
#include "ember/ops/complex.h"
#include "ember/ops/math.h"
#include "ember/ops/pointwise.h"
#include "linalg_common.h"

namespace ember {

using dispatch::OpId;
using namespace ops::linalg;  // NOLINT: the helpers of this op family
using autograd::OpNode;
using autograd::tensor_list;

namespace {

// The checks of torch.linalg.eig / eigvals, in their order, and the decomposition.
std::tuple<Tensor, Tensor> eig_compute(const char* api, const Tensor& A, bool vectors) {
  check_square(api, A);
  const ScalarType t = A.dtype();
  EMBER_CHECK(is_floating(t) || is_complex(t), "Unknown Complex ScalarType for ", scalar_type_name(t));
  EMBER_CHECK(t == kFloat32 || t == kFloat64 || is_complex(t), "\"linalg_eig_out_cpu\" not implemented for '",
              scalar_type_name(t), "'");
  const ScalarType ct = is_complex(t) ? t : to_complex_type(t);
  const DimVector batch = batch_shape(A);
  DimVector wshape = batch;
  wshape.push_back(A.size(-1));
  Tensor w = empty(wshape, TensorOptions(ct).device(A.device()));
  Tensor V = vectors ? empty_column_major(A.sizes(), ct, A.device()) : Tensor();
  if (w.is_meta()) return {w, vectors ? V : empty({0}, TensorOptions(ct).device(A.device()))};
  const bool finite = A.numel() == 0 || isfinite(A).all().item<bool>();
  EMBER_CHECK(finite, "ember.", api,
              ": input tensor should not contain infs or NaNs.");
  Tensor a = column_major_copy(A);
  Tensor info = empty_int(batch, A.device());
  cpu::lapack::geev(a, w, V, info);
  raise_if_errors(api, info, A.dim() == 2);
  return {w, vectors ? V : empty({0}, TensorOptions(ct).device(A.device()))};
}

std::tuple<Tensor, Tensor> eig_impl(const Tensor& A) { return eig_compute("linalg.eig", A, true); }

// PyTorch's linalg_eig_backward (is_hermitian = false): with E_ij = conj(L_j - L_i),
// gA = V^{-H} (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / E) V^H.
Tensor eig_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V) {
  if (!gL.defined() && !gV.defined()) return Tensor();
  const Tensor VH = mH(V);
  if (!gV.defined()) return linalg::solve(VH, gL.unsqueeze(-1) * VH);
  Tensor VhgV = matmul(VH, gV);
  const Tensor diag = VhgV.diagonal(0, -2, -1);
  const Tensor im = imag(diag);
  // The eigenvectors are defined up to a phase: a loss that depends on it has no gradient.
  EMBER_CHECK(im.numel() == 0 || abs(im).max().item<double>() <= 1e-2,
              "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by "
              "e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.");
  VhgV = VhgV - matmul(VH, V * real(diag).unsqueeze(-2));
  const int64_t n = L.size(-1);
  const Tensor I = eye(n, TensorOptions(to_real_value_type(L.dtype())).device(L.device()));
  const Tensor Lc = conj_physical(L);
  const Tensor E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + I;  // diagonal 1: the diagonal is set below
  Tensor gA = VhgV / E;
  if (gL.defined()) gA = gA * (1 - I) + gL.unsqueeze(-1) * I;
  return linalg::solve(VH, matmul(gA, VH));
}

std::tuple<Tensor, Tensor> eig_autograd(const Tensor& A) {
  autograd::Recorder r("LinalgEigBackward0", A);
  auto outs = r.forward([&] { return dispatch::call<eig_impl>(OpId::linalg_eig, A); });
  if (!r) return outs;
  const size_t L_ = 0, V_ = 1;
  const bool real_input = !A.is_complex();
  outs = r.finish(outs, [=](OpNode& n, const tensor_list& g) {
    Tensor gA = eig_backward(g[0], g[1], n.saved(L_), n.saved(V_));
    // handle_r_to_c: a real input takes the real part.
    if (gA.defined() && real_input) gA = real(gA);
    return tensor_list{gA};
  });
  ops::save_output_at(r, std::get<0>(outs), L_, "eigenvalues");
  ops::save_output_at(r, std::get<1>(outs), V_, "eigenvectors");
  return outs;
}

// Values only, unless a gradient may be asked for (PyTorch's _may_require_fw_or_bw_grad): then
// through linalg_eig, whose backward needs the vectors.
Tensor eigvals_impl(const Tensor& A) {
  if (GradMode::is_enabled() && A.requires_grad()) {
    check_square("linalg.eigvals", A);
    return std::get<0>(linalg::eig(A));
  }
  return std::get<0>(eig_compute("linalg.eigvals", A, false));
}

}  // namespace

namespace linalg {
std::tuple<Tensor, Tensor> eig(const Tensor& A) { return dispatch::call<eig_impl>(OpId::linalg_eig, A); }
Tensor eigvals(const Tensor& A) { return dispatch::call<eigvals_impl>(OpId::linalg_eigvals, A); }
}  // namespace linalg

EMBER_REGISTER_AUTOGRAD(linalg_eig, &eig_autograd);
EMBER_REGISTER_OP(linalg_eig, &linalg::eig);
EMBER_REGISTER_OP(linalg_eigvals, &linalg::eigvals);

}  // namespace ember
