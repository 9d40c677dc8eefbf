// ember::linalg::eig / eigvals: the eigendecomposition of general square matrices, as
// torch.linalg.eig computes it (LAPACK's geev; complex results for real and complex input).
//
//   auto [L, V] = ember::linalg::eig(A);   // A V = V diag(L); columns of V of unit norm
//   auto L2 = ember::linalg::eigvals(A);
#pragma once

#include <tuple>

#include "ember/tensor.h"

namespace ember::linalg {

std::tuple<Tensor, Tensor> eig(const Tensor& A);
Tensor eigvals(const Tensor& A);

}  // namespace ember::linalg
