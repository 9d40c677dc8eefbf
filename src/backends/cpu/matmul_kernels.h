// CPU kernels of the matrix products (src/ops/matmul.cpp). The op layer validates shapes and
// dtypes and allocates; these compute.
//
//   Tensor out = empty({m, n});                                 // contiguous, a's dtype
//   cpu::addmm_kernel(out, /*bias=*/Tensor(), a, b, 0, 1);      // out = a @ b
//
// float / double go to the GEMM libraries (src/backends/cpu/gemm.h) with transpose flags and
// leading dimensions taken from the operands' strides; float16 / bfloat16 compute in float32;
// integer types run a strided triple loop with wrap-around arithmetic (as PyTorch's integer mm).
#pragma once

#include <cstdint>
#include <optional>

#include "ember/tensor.h"

namespace ember::cpu {

/// How a rows x cols matrix with element strides (row_stride, col_stride) is passed to BLAS:
/// element (i, j) sits at data[trans ? j * ld + i : i * ld + j]. nullopt when the strides fit
/// neither form (an expanded or sliced-in-both-dims matrix), which must be copied first.
/// Strides of size-1 dims are ignored, as they are never stepped over.
struct BlasLayout {
  bool trans;
  int64_t ld;
};
std::optional<BlasLayout> blas_layout(int64_t rows, int64_t cols, int64_t row_stride,
                                      int64_t col_stride);

/// out = beta * bias + alpha * (a @ b), for 2-D a (m x k) and b (k x n), or batch by batch for
/// 3-D a (B x m x k) and b (B x k x n). `out` is contiguous with the result's shape and a's
/// dtype; `bias` is undefined or already expanded to out's shape. beta and alpha are converted
/// to the compute type first, as PyTorch does: beta = 0.5 on an int64 product is 0, and a zero
/// beta never reads bias (NaNs in it do not propagate). Bool and quantized dtypes are refused
/// by the op layer before they get here.
void addmm_kernel(const Tensor& out, const Tensor& bias, const Tensor& a, const Tensor& b,
                  const Scalar& beta, const Scalar& alpha);

/// Integer product on strided operands (exposed for tests): c[i, j] = beta * c[i, j] +
/// alpha * sum_p a[i, p] * b[p, j], c row-major with leading dim ldc. Arithmetic wraps modulo
/// 2^bits (PyTorch accumulates in the integer type, which wraps in practice); beta == 0 does not
/// read c.
template <class T>
void gemm_int(int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t a_rs, int64_t a_cs,
              const T* b, int64_t b_rs, int64_t b_cs, T beta, T* c, int64_t ldc);

}  // namespace ember::cpu
