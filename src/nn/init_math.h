// Scalar math behind nn::init (src/nn/init.cpp), exposed for the tests: the inverse error
// function trunc_normal_ needs, and the QR factorisation orthogonal_ uses (LAPACK, with a
// plain Householder reference beside it).
#pragma once

#include <cstdint>
#include <vector>

namespace ember::nn::init::detail {

/// erf^-1(y) in double precision: NaN outside [-1, 1] (and for NaN), ±inf at ±1, -0 for -0.
/// Giles' single-precision approximation as the start, then Newton steps on erf (|y| <= 0.5)
/// or on log(erfc) (the tails, where 1 - |y| is exact and erf has no resolution left).
double erfinv(double y);

/// Q of the thin QR factorisation of the column-major m x n matrix `a` (m >= n >= 1), columns
/// multiplied by sign(R[j][j]) (0 where R[j][j] is 0, as torch's sign). Returns Q column-major,
/// m x n. Uses LAPACK's dgeqrf / dorgqr.
std::vector<double> signed_qr_q(std::vector<double> a, int64_t m, int64_t n);
/// The same by Householder reflections written out in plain loops (the tests' reference).
std::vector<double> signed_qr_q_ref(std::vector<double> a, int64_t m, int64_t n);

}  // namespace ember::nn::init::detail
