// The general (non-symmetric) eigendecomposition over LAPACK's geev (OpenBLAS), for
// src/ops/linalg_eig.cpp. Layout as Note [LAPACK layout] in lapack.h.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu::lapack {

/// Eigenvalues and (right) eigenvectors of the square matrices of `a` (batched column-major,
/// float32 / float64 / complex64 / complex128; overwritten). w: contiguous complex [..., n]; v:
/// batched column-major complex [..., n, n] or undefined (values only). Real input gives
/// LAPACK's real pairs turned into complex conjugate eigenvectors. info (int32 [...]) > 0 where
/// the QR algorithm did not converge.
void geev(const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info);
/// The Hermitian eigendecomposition of complex matrices by heevd (syevd's complex twin in
/// lapack.cpp): w [..., n] real ascending; a overwritten with the eigenvectors when vectors.
void heevd(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info);

}  // namespace ember::cpu::lapack
