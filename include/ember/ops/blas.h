// The rest of PyTorch's BLAS family (src/ops/blas_more.cpp): products with a scaled bias,
// out = beta * self + alpha * (product), as torch.addmv / addr / baddbmm / addbmm, and the
// in-place forms (addmm_ too).
//
//   auto y = ember::addmv(b, W, x, /*beta=*/1, /*alpha=*/2);   // b + 2 * W @ x
//   auto P = ember::addr(M, u, v);                              // M + outer(u, v)
//   auto C = ember::baddbmm(C0, A, B, 0.5);                     // 0.5 * C0 + A @ B, batch by batch
//   auto S = ember::addbmm(S0, A, B);                           // S0 + sum_i A[i] @ B[i]
//
// beta == 0 never reads self (NaNs there do not propagate), as in PyTorch.
#pragma once

#include "ember/tensor.h"

namespace ember {

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor& addmv_(Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
               const Scalar& alpha = 1);
Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
            const Scalar& alpha = 1);
Tensor& addr_(Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
              const Scalar& alpha = 1);
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
               const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor& baddbmm_(Tensor& self, const Tensor& batch1, const Tensor& batch2,
                 const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
              const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor& addbmm_(Tensor& self, const Tensor& batch1, const Tensor& batch2,
                const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor& addmm_(Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
               const Scalar& alpha = 1);

}  // namespace ember
