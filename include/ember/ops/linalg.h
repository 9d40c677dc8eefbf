// Matrix products through the GEMM library chosen in src/backends/cpu/gemm.cpp.
//
//   auto c = ember::mm(a, b);                           // (n,k) @ (k,m)
//   auto y = ember::linear(x, w, b);                    // x @ w.T + b, any leading dims
//   auto z = ember::matmul(a, b);                       // numpy-style batching and broadcasting
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember {

Tensor mm(const Tensor& self, const Tensor& mat2);
Tensor bmm(const Tensor& self, const Tensor& mat2);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor matmul(const Tensor& self, const Tensor& other);
Tensor linear(const Tensor& input, const Tensor& weight,
              const std::optional<Tensor>& bias = std::nullopt);

}  // namespace ember
