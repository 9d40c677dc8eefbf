// Batched LAPACK kernels (OpenBLAS's LAPACK), for src/ops/linalg_*.cpp.
//
// Note [LAPACK layout]: LAPACK reads and writes column-major matrices. Every tensor these kernels
// take is "batched column-major": the logical shape [..., rows, cols] with strides making each
// matrix column-major and the matrices one after another (t.mT() is contiguous), as
// ops::linalg::column_major_copy / empty_column_major make them. Their results are returned in
// that layout too, which is also the layout PyTorch's results have (strides (1, rows)).
// float32, float64, complex64 and complex128 reach these kernels (the ops check first) except
// syevd (real only; heevd in lapack_eig.h is its complex twin). For complex matrices the
// "transpose" of orgqr / trsm / getrs is the conjugate transpose, and the singular values,
// rcond and log|det| are real (Note [Complex LAPACK] in lapack.cpp).
#pragma once

#include <string>

#include "ember/tensor.h"

namespace ember::cpu::lapack {

/// LU with partial pivoting in place; pivots int32 [..., min(m, n)] (1-based), info int32 [...].
void getrf(const Tensor& a, const Tensor& pivots, const Tensor& info);
/// The inverse from getrf's LU, in place (square; batches whose info is non-zero are left as is).
void getri(const Tensor& lu, const Tensor& pivots, const Tensor& info);
/// Solves op(A) X = B in place of b ([..., n, k]); lu / pivots from getrf, the same batch. op is
/// LAPACK's TRANS: 'N', 'T' (A^T) or 'C' (A^H; A^T for real matrices).
void getrs(const Tensor& lu, const Tensor& pivots, const Tensor& b, char op);
/// Cholesky in place (the other triangle zeroed); info as getrf's.
void potrf(const Tensor& a, const Tensor& info, bool upper);
/// QR of a ([..., m, n], overwritten). q: [..., m, m or k] or undefined (mode 'r'); r: [..., m or
/// k, n], upper triangular.
void geqrf_orgqr(const Tensor& a, const Tensor& q, const Tensor& r);
/// SVD of a (overwritten) by gesdd: u [..., m, m or k] and vh [..., n or k, n], or both
/// undefined (values only); s [..., k]. info (int32 [...]) > 0 where it did not converge.
void gesdd(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info);
/// Symmetric eigendecomposition by syevd: eigenvalues w [..., n] ascending; a is overwritten
/// with the eigenvectors when vectors is true. info > 0 where it did not converge.
void syevd(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info);
/// Least squares by `driver` (gels, gelsy, gelsd, gelss): a [..., m, n] overwritten, b
/// [..., max(m, n), k] overwritten with the solution in its first n rows; rank int64 [...] and
/// s [..., min(m, n)] filled where the driver computes them (else undefined).
void gels(const std::string& driver, const Tensor& a, const Tensor& b, double rcond,
          const Tensor& rank, const Tensor& s, const Tensor& info);
/// Triangular solve in place of b by BLAS trsm: op(A) X = B (left) or X op(A) = B (right), op
/// the conjugate transpose when `transpose` (the transpose for real matrices).
void trsm(const Tensor& a, const Tensor& b, bool upper, bool left, bool transpose, bool unit);
/// det (and sign / log|det| below) of square matrices from getrf's LU and pivots.
void det_from_lu(const Tensor& lu, const Tensor& pivots, const Tensor& det);
void slogdet_from_lu(const Tensor& lu, const Tensor& pivots, const Tensor& sign,
                     const Tensor& logabsdet);
/// P, L, U from getrf's LU and pivots (each output may be undefined: not wanted).
void lu_unpack(const Tensor& lu, const Tensor& pivots, const Tensor& p, const Tensor& l,
               const Tensor& u);

}  // namespace ember::cpu::lapack
