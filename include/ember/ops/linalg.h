// Matrix products through the GEMM library chosen in src/backends/cpu/gemm.cpp.
//
//   auto c = ember::mm(a, b);                           // (n,k) @ (k,m)
//   auto y = ember::linear(x, w, b);                    // x @ w.T + b, any leading dims
//   auto z = ember::matmul(a, b);                       // numpy-style batching and broadcasting
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

Tensor mm(const Tensor& self, const Tensor& mat2);
Tensor bmm(const Tensor& self, const Tensor& mat2);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor matmul(const Tensor& self, const Tensor& other);
Tensor linear(const Tensor& input, const Tensor& weight,
              const std::optional<Tensor>& bias = std::nullopt);

// ---- ember::linalg (torch.linalg) over LAPACK: docs/linalg.md ----
//
//   auto x = ember::linalg::solve(A, b);                 // A x = b, any batch of square A
//   auto [U, S, Vh] = ember::linalg::svd(A, false);      // reduced SVD
//   auto n = ember::linalg::matrix_norm(A, std::string("nuc"));
//
// float32 / float64, any leading batch dims, empty matrices; failures of the factorizations
// (singular, not positive-definite) raise ErrorKind::LinAlg with PyTorch's texts.
namespace linalg {
using Tensors2 = std::tuple<Tensor, Tensor>;
using Tensors3 = std::tuple<Tensor, Tensor, Tensor>;
using Tensors4 = std::tuple<Tensor, Tensor, Tensor, Tensor>;

Tensors2 inv_ex(const Tensor& A, bool check_errors = false);
Tensor inv(const Tensor& A);
Tensor det(const Tensor& A);
Tensors2 slogdet(const Tensor& A);
Tensors2 cholesky_ex(const Tensor& A, bool upper = false, bool check_errors = false);
Tensor cholesky(const Tensor& A, bool upper = false);
/// mode: "reduced", "complete" or "r".
Tensors2 qr(const Tensor& A, const std::string& mode = "reduced");
Tensors3 svd(const Tensor& A, bool full_matrices = true,
             std::optional<std::string> driver = std::nullopt);
Tensor svdvals(const Tensor& A, std::optional<std::string> driver = std::nullopt);
Tensors2 eigh(const Tensor& A, const std::string& UPLO = "L");
Tensor eigvalsh(const Tensor& A, const std::string& UPLO = "L");
Tensors2 solve_ex(const Tensor& A, const Tensor& B, bool left = true, bool check_errors = false);
Tensor solve(const Tensor& A, const Tensor& B, bool left = true);
/// (solution, residuals, rank, singular_values); driver gels, gelsy (default), gelsd or gelss.
Tensors4 lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond = std::nullopt,
               std::optional<std::string> driver = std::nullopt);
Tensor vector_norm(const Tensor& x, const Scalar& ord = 2,
                   std::optional<std::vector<int64_t>> dim = std::nullopt, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
/// ord: a number (1, -1, 2, -2, inf, -inf) or, in the string overload, "fro" or "nuc".
Tensor matrix_norm(const Tensor& A, const Scalar& ord, IntArrayRef dim = {-2, -1},
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor matrix_norm(const Tensor& A, const std::string& ord = "fro", IntArrayRef dim = {-2, -1},
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor norm(const Tensor& A, std::optional<Scalar> ord = std::nullopt,
            std::optional<std::vector<int64_t>> dim = std::nullopt, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor norm(const Tensor& A, const std::string& ord,
            std::optional<std::vector<int64_t>> dim = std::nullopt, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor pinv(const Tensor& A, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
            bool hermitian = false);
Tensor pinv(const Tensor& A, std::optional<double> atol = std::nullopt,
            std::optional<double> rtol = std::nullopt, bool hermitian = false);
Tensor matrix_rank(const Tensor& A, const std::optional<Tensor>& atol,
                   const std::optional<Tensor>& rtol, bool hermitian = false);
Tensor matrix_rank(const Tensor& A, std::optional<double> atol = std::nullopt,
                   std::optional<double> rtol = std::nullopt, bool hermitian = false);
Tensor matrix_power(const Tensor& A, int64_t n);
Tensor matrix_exp(const Tensor& A);
Tensor cross(const Tensor& a, const Tensor& b, int64_t dim = -1);
Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim = -1);
Tensor multi_dot(ArrayRef<Tensor> tensors);
Tensor tensorinv(const Tensor& A, int64_t ind = 2);
Tensor tensorsolve(const Tensor& A, const Tensor& B,
                   std::optional<std::vector<int64_t>> dims = std::nullopt);
Tensor cond(const Tensor& A, std::optional<Scalar> p = std::nullopt);
Tensor cond(const Tensor& A, const std::string& p);
/// (LU, pivots, info); pivots are int32 and 1-based, as LAPACK's.
Tensors3 lu_factor_ex(const Tensor& A, bool pivot = true, bool check_errors = false);
Tensors2 lu_factor(const Tensor& A, bool pivot = true);
/// (P, L, U) with A = P L U.
Tensors3 lu(const Tensor& A, bool pivot = true);
Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true,
                bool adjoint = false);
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true,
                        bool unitriangular = false);
}  // namespace linalg

// The torch.* spellings (older conventions where PyTorch keeps them).
Tensor inverse(const Tensor& self);
Tensor det(const Tensor& self);
Tensor logdet(const Tensor& self);
std::tuple<Tensor, Tensor> slogdet(const Tensor& self);
Tensor cholesky(const Tensor& self, bool upper = false);
Tensor cholesky_solve(const Tensor& self, const Tensor& input2, bool upper = false);
Tensor cholesky_inverse(const Tensor& self, bool upper = false);
std::tuple<Tensor, Tensor> qr(const Tensor& self, bool some = true);
/// torch.svd: V (not Vh); some=false gives the full U and V.
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& self, bool some = true, bool compute_uv = true);
Tensor pinverse(const Tensor& self, double rcond = 1e-15);
Tensor matrix_power(const Tensor& self, int64_t n);
Tensor matrix_exp(const Tensor& self);
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim = std::nullopt);
Tensor chain_matmul(ArrayRef<Tensor> matrices);
Tensor frobenius_norm(const Tensor& self);
Tensor frobenius_norm(const Tensor& self, IntArrayRef dim, bool keepdim = false);
Tensor nuclear_norm(const Tensor& self, bool keepdim = false);
Tensor nuclear_norm(const Tensor& self, IntArrayRef dim, bool keepdim = false);
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU_data, const Tensor& LU_pivots,
                                             bool unpack_data = true, bool unpack_pivots = true);
Tensor lu_solve(const Tensor& self, const Tensor& LU_data, const Tensor& LU_pivots);
std::tuple<Tensor, Tensor> triangular_solve(const Tensor& self, const Tensor& A, bool upper = true,
                                            bool transpose = false, bool unitriangular = false);

}  // namespace ember
