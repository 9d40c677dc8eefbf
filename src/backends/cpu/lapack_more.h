// More batched LAPACK kernels (Note [LAPACK layout] in lapack.h): the symmetric indefinite
// (Bunch-Kaufman) LDL^T factorization and its solve, and the Householder QR pieces geqrf / ormqr.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu::lapack {

/// LDL^T of symmetric a (lower triangle read) in place by sytrf: L and D in the lower triangle,
/// the strict upper triangle zeroed; pivots int32 [..., n] (LAPACK's, 1-based), info int32 [...].
/// Complex a: LDL^T by sytrf, or LDL^H of a Hermitian a by hetrf when `hermitian`.
void sytrf(const Tensor& a, const Tensor& pivots, const Tensor& info, bool hermitian);
/// Solves A X = B in place of b ([..., n, k]) from sytrf's (hetrf's when hermitian) factors.
void sytrs(const Tensor& ld, const Tensor& pivots, const Tensor& b, bool hermitian);
/// Householder QR in place by geqrf only (R above the diagonal, the reflectors below); tau
/// [..., min(m, n)].
void geqrf(const Tensor& a, const Tensor& tau);
/// c ([..., m, n], in place) times op(Q) or op(Q) times c, Q from geqrf's reflectors a / tau.
void ormqr(const Tensor& a, const Tensor& tau, const Tensor& c, bool left, bool transpose);

}  // namespace ember::cpu::lapack
