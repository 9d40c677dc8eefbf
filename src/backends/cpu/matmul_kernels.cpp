#include "matmul_kernels.h"

#include <algorithm>
#include <vector>

#include "copy_kernel.h"
#include "ember/ops/factory.h"
#include "ember/parallel.h"
#include "gemm.h"

namespace ember::cpu {

std::optional<BlasLayout> blas_layout(int64_t rows, int64_t cols, int64_t row_stride,
                                      int64_t col_stride) {
  if (rows == 0 || cols == 0) return BlasLayout{false, std::max<int64_t>(1, cols)};  // never read
  // Row-major: columns adjacent, rows `ld` apart (ld >= cols so rows do not overlap).
  if ((cols == 1 || col_stride == 1) && (rows == 1 || row_stride >= cols)) {
    return BlasLayout{false, rows == 1 ? cols : row_stride};
  }
  // Column-major (a transposed row-major matrix): rows adjacent, columns `ld` apart.
  if ((rows == 1 || row_stride == 1) && (cols == 1 || col_stride >= rows)) {
    return BlasLayout{true, cols == 1 ? rows : col_stride};
  }
  return std::nullopt;
}

template <class T>
void gemm_int(int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t a_rs, int64_t a_cs,
              const T* b, int64_t b_rs, int64_t b_cs, T beta, T* c, int64_t ldc) {
  // uint64 arithmetic wraps without undefined behaviour, and its result taken modulo 2^bits of T
  // equals accumulating in T with wrap-around (what PyTorch's integer GEMM does in practice).
  using U = uint64_t;
  auto u = [](T v) { return static_cast<U>(static_cast<int64_t>(v)); };
  std::vector<U> acc(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    std::fill(acc.begin(), acc.end(), U(0));
    for (int64_t p = 0; p < k; ++p) {
      const U av = u(a[i * a_rs + p * a_cs]);
      if (av == 0) continue;
      const T* brow = b + p * b_rs;
      if (b_cs == 1) {
        for (int64_t j = 0; j < n; ++j) acc[j] += av * u(brow[j]);  // vectorizes
      } else {
        for (int64_t j = 0; j < n; ++j) acc[j] += av * u(brow[j * b_cs]);
      }
    }
    T* crow = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) {
      const U keep = beta == T(0) ? U(0) : u(beta) * u(crow[j]);
      crow[j] = static_cast<T>(u(alpha) * acc[j] + keep);
    }
  }
}

namespace {

// A dense row-major copy of `t` in `dtype` (for operands BLAS cannot take as they are, and for
// the float32 compute of 16-bit floats).
Tensor dense_copy(const Tensor& t, ScalarType dtype) {
  Tensor c = empty(t.sizes(), TensorOptions(dtype).device(kCPU));
  copy_kernel(c, t);
  return c;
}

// Note [bmm threads]
// A batch of products runs either one product per thread (each GEMM single-threaded: oneDNN is
// told one thread inside ember's parallel regions, see gemm.cpp) or one product after another,
// each threaded inside the library. Per-product threads need no synchronisation inside a
// product, which matters on a busy 2-core machine: there a 2-thread oneDNN team measured
// 0.3-25 GFLOP/s on 64 products of 128^3 where one product per thread gave 40-80. So batches go
// per thread whenever they split evenly enough (a multiple of the thread count, or at least 4
// products per thread) or the products are too small to thread inside. float64 runs on
// OpenBLAS, whose one process-wide pool does not nest: only products it runs single-threaded by
// itself (m * n * k <= 4 * 65536) go per thread there.
constexpr int64_t kSmallProduct = 64 * 64 * 64;

// `confined`: the library runs single-threaded when called inside a parallel region.
bool batch_per_thread(int64_t batch, int64_t product, bool confined) {
  const int64_t threads = get_num_threads();
  if (batch < 2 || threads < 2) return false;
  if (product <= kSmallProduct) return true;
  return confined && (batch % threads == 0 || batch >= 4 * threads);
}

// Geometry of a (possibly batched) product: operands are [B,] m x k and [B,] k x n.
struct Geometry {
  int64_t batch, m, n, k;
  int r;  // index of the row dim (1 when batched)
};

Geometry geometry_of(const Tensor& a, const Tensor& b) {
  const bool batched = a.dim() == 3;
  const int r = batched ? 1 : 0;
  return {batched ? a.size(0) : 1, a.size(r), b.size(r + 1), a.size(r + 1), r};
}

// The BLAS form of the matrices of `t` (the same for every batch); `t` becomes a dense copy if
// its strides fit no BLAS form.
BlasLayout layout_or_copy(Tensor& t, int r) {
  auto lay = blas_layout(t.size(r), t.size(r + 1), t.stride(r), t.stride(r + 1));
  if (!lay) {
    t = dense_copy(t, t.dtype());
    lay = blas_layout(t.size(r), t.size(r + 1), t.stride(r), t.stride(r + 1));
    EMBER_ASSERT(lay.has_value(), "a dense matrix must have a BLAS layout");
  }
  return *lay;
}

template <class T>  // float, double, complex64 or complex128
void addmm_blas(const Tensor& out, Tensor a, Tensor b, T beta, T alpha) {
  const Geometry g = geometry_of(a, b);
  const BlasLayout la = layout_or_copy(a, g.r);
  const BlasLayout lb = layout_or_copy(b, g.r);
  const T* pa = a.data_ptr<T>();
  const T* pb = b.data_ptr<T>();
  T* pc = out.data_ptr<T>();
  const int64_t sa = g.r ? a.stride(0) : 0, sb = g.r ? b.stride(0) : 0, sc = g.m * g.n;
  const int64_t ldc = std::max<int64_t>(1, g.n);
  // Note [Observed layers take torch's path]: one product, as torch's addmm_impl_cpu_ calls sgemm.
  if constexpr (std::is_same_v<T, float>) {
    if (g.batch == 1 && TorchGemmScope::active()) {
      gemm_blas(la.trans, lb.trans, g.m, g.n, g.k, alpha, pa, la.ld, pb, lb.ld, beta, pc, ldc);
      return;
    }
  }
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      gemm(la.trans, lb.trans, g.m, g.n, g.k, alpha, pa + i * sa, la.ld, pb + i * sb, lb.ld, beta,
           pc + i * sc, ldc);
    }
  };
  if (batch_per_thread(g.batch, g.m * g.n * g.k, /*confined=*/std::is_same_v<T, float>)) {
    parallel_for(0, g.batch, 1, run);
  } else {
    run(0, g.batch);
  }
}

template <class T>  // integer types
void addmm_integer(const Tensor& out, const Tensor& a, const Tensor& b, T beta, T alpha) {
  const Geometry g = geometry_of(a, b);
  const T* pa = a.data_ptr<T>();
  const T* pb = b.data_ptr<T>();
  T* pc = out.data_ptr<T>();
  const int r = g.r;
  const int64_t sa = r ? a.stride(0) : 0, sb = r ? b.stride(0) : 0, sc = g.m * g.n;
  // Rows of all batches form one range, split across threads by about 32K multiply-adds.
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, g.n * g.k));
  parallel_for(0, g.batch * g.m, grain, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end;) {
      const int64_t bi = row / g.m, i = row % g.m;
      const int64_t rows = std::min(end - row, g.m - i);  // rows left in this batch
      gemm_int<T>(rows, g.n, g.k, alpha, pa + bi * sa + i * a.stride(r), a.stride(r),
                  a.stride(r + 1), pb + bi * sb, b.stride(r), b.stride(r + 1), beta,
                  pc + bi * sc + i * g.n, g.n);
      row += rows;
    }
  });
}

}  // namespace

void addmm_kernel(const Tensor& out, const Tensor& bias, const Tensor& a, const Tensor& b,
                  const Scalar& beta, const Scalar& alpha) {
  if (out.numel() == 0) return;
  visit_dtype_and_complex(a.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, bool>) {
      EMBER_FAIL("\"addmm_impl_cpu_\" not implemented for 'Bool'");
    } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || is_complex_v<T>) {
      const T beta_t = beta.to<T>();
      if (bias.defined() && beta_t != T(0)) copy_kernel(out, bias);
      addmm_blas<T>(out, a, b, beta_t, alpha.to<T>());
    } else if constexpr (is_reduced_float_v<T>) {
      // Computed in float32 and rounded once into the 16-bit result.
      const float beta_f = beta.to<float>();
      Tensor acc = empty(out.sizes(), TensorOptions(kFloat32).device(kCPU));
      if (bias.defined() && beta_f != 0.f) copy_kernel(acc, bias);
      addmm_blas<float>(acc, dense_copy(a, kFloat32), dense_copy(b, kFloat32), beta_f,
                        alpha.to<float>());
      copy_kernel(out, acc);
    } else {
      const T beta_t = beta.to<T>();
      if (bias.defined() && beta_t != T(0)) copy_kernel(out, bias);
      addmm_integer<T>(out, a, b, beta_t, alpha.to<T>());
    }
  }, "addmm_impl_cpu_");
}

template void gemm_int<int8_t>(int64_t, int64_t, int64_t, int8_t, const int8_t*, int64_t, int64_t,
                               const int8_t*, int64_t, int64_t, int8_t, int8_t*, int64_t);
template void gemm_int<uint8_t>(int64_t, int64_t, int64_t, uint8_t, const uint8_t*, int64_t,
                                int64_t, const uint8_t*, int64_t, int64_t, uint8_t, uint8_t*,
                                int64_t);
template void gemm_int<int16_t>(int64_t, int64_t, int64_t, int16_t, const int16_t*, int64_t,
                                int64_t, const int16_t*, int64_t, int64_t, int16_t, int16_t*,
                                int64_t);
template void gemm_int<int32_t>(int64_t, int64_t, int64_t, int32_t, const int32_t*, int64_t,
                                int64_t, const int32_t*, int64_t, int64_t, int32_t, int32_t*,
                                int64_t);
template void gemm_int<int64_t>(int64_t, int64_t, int64_t, int64_t, const int64_t*, int64_t,
                                int64_t, const int64_t*, int64_t, int64_t, int64_t, int64_t*,
                                int64_t);

}  // namespace ember::cpu
