// The symmetric indefinite factorization (linalg.ldl_factor / ldl_solve), Householder QR pieces
// (geqrf, ormqr), linalg.diagonal, linalg.vander and torch.vander, and the deprecated torch.symeig and
// torch._lu_with_info (torch.lu), with PyTorch 1.13's names, schemas and texts.
//
//   auto [LD, pivots] = ember::linalg::ldl_factor(A);     // A symmetric
//   auto X = ember::linalg::ldl_solve(LD, pivots, B);     // A X = B
//   auto [a, tau] = ember::geqrf(M);
//   auto QC = ember::ormqr(a, tau, C);                    // Q @ C
#pragma once

#include <optional>

#include "ember/ops/linalg.h"

namespace ember {

namespace linalg {
Tensor diagonal(const Tensor& A, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor vander(const Tensor& x, std::optional<int64_t> N = std::nullopt);
Tensors3 ldl_factor_ex(const Tensor& A, bool hermitian = false, bool check_errors = false);
Tensors2 ldl_factor(const Tensor& A, bool hermitian = false);
Tensor ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian = false);
}  // namespace linalg

/// torch.vander: the Vandermonde matrix of the 1-D x, columns x^(N-1) .. x^0 (x^0 .. x^(N-1) if
/// increasing); N defaults to x's length; integer and bool x give int64.
Tensor vander(const Tensor& x, std::optional<int64_t> N = std::nullopt, bool increasing = false);

/// (a, tau): R above the diagonal of a, the Householder reflectors below it.
std::tuple<Tensor, Tensor> geqrf(const Tensor& self);
/// op(Q) @ other (left) or other @ op(Q), Q from geqrf's (self, input2); op = transpose or not.
Tensor ormqr(const Tensor& self, const Tensor& input2, const Tensor& input3, bool left = true,
             bool transpose = false);
/// Deprecated (warns once): eigenvalues ascending and, if asked, the eigenvectors (else empty).
std::tuple<Tensor, Tensor> symeig(const Tensor& self, bool eigenvectors = false, bool upper = true);
/// Deprecated (warns once): linalg.lu_factor_ex (errors are never raised, as in PyTorch).
std::tuple<Tensor, Tensor, Tensor> _lu_with_info(const Tensor& self, bool pivot = true, bool check_errors = true);

}  // namespace ember
