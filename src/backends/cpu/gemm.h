// CPU GEMM backend: C = alpha * op(A) * op(B) + beta * C, row-major, with the same argument
// conventions as cblas_?gemm(CblasRowMajor, ...):
//   op(A) is m x k, op(B) is k x n, C is m x n;
//   A is stored m x k (lda >= k) or, when trans_a, k x m (lda >= m); likewise B (ldb >= n or k);
//   ldc >= n. Leading dimensions larger than the width (views into bigger buffers) are fine.
//
// Backend (chosen by measurement with tools/gemm_probe.cpp, see cmake/gemm.cmake):
//   float  -> oneDNN dnnl_sgemm   (faster than OpenBLAS at 256^3 / 1024^3 and unaffected by
//                                   OPENBLAS_CORETYPE, which may pin OpenBLAS to AVX2 kernels)
//   double -> OpenBLAS cblas_dgemm (oneDNN has no double GEMM)
// 1024^3 on one thread of this machine (thread CPU time, best of runs; FMA peak measured at
// 215 GFLOP/s): dnnl_sgemm 155-160, oneDNN's matmul primitive (brgemm, created once per shape)
// 139-146 with B as it is and 145-155 reordering B into its blocked layout per call, OpenBLAS
// (SkylakeX kernels) 137-140. So the float path stays on dnnl_sgemm.
//
// Guarantees beyond plain BLAS, relied upon by ember's ops:
//   * beta == 0 overwrites C: NaN/Inf already in C never reach the result.
//   * m == 0 or n == 0 is a no-op; k == 0 or alpha == 0 gives C = beta * C (zeros if beta == 0)
//     without reading A or B.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

namespace ember::cpu {

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
          const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
          int64_t ldc);
// complex64 / complex128 -> OpenBLAS cblas_cgemm / cblas_zgemm (no conjugation: op(A) is A or A^T)
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, std::complex<float> alpha,
          const std::complex<float>* a, int64_t lda, const std::complex<float>* b, int64_t ldb,
          std::complex<float> beta, std::complex<float>* c, int64_t ldc);
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, std::complex<double> alpha,
          const std::complex<double>* a, int64_t lda, const std::complex<double>* b, int64_t ldb,
          std::complex<double> beta, std::complex<double>* c, int64_t ldc);

// float GEMM through OpenBLAS's cblas_sgemm, whatever the size: PyTorch 1.13's float products
// (at::native::cpublas::gemm calls BLAS sgemm, and Debian's torch links the same OpenBLAS), for
// the places where ember computes in torch's summation order (Note [Torch's float convolution
// paths] in conv_gemm.cpp). Same conventions and guarantees as gemm above.
void gemm_blas(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
               const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
               int64_t ldc);

// Note [Observed layers take torch's path]
// The eager quantization workflow's observers are forward hooks: whatever a hooked layer
// outputs decides scales and zero points, and users compare those with torch's bit for bit.
// A layer whose float output is observed therefore computes it with the library call torch
// 1.13 makes, inside a TorchGemmScope: addmm then multiplies through OpenBLAS's sgemm with
// torch's operand arrangement (gemm_blas), where unobserved layers keep dnnl_sgemm, up to 2.7x
// faster for a one-row batch. nn::Linear opens the scope when it has forward hooks. (The
// convolutions follow torch's library calls always: Note [Torch's float convolution paths].)
class TorchGemmScope {
 public:
  TorchGemmScope();
  ~TorchGemmScope();
  TorchGemmScope(const TorchGemmScope&) = delete;
  TorchGemmScope& operator=(const TorchGemmScope&) = delete;
  /// Whether the calling thread is inside a scope.
  static bool active();

 private:
  bool previous_;
};

// Sets how many threads the GEMM libraries may use per call (both oneDNN's OpenMP team and
// OpenBLAS's pthread pool). ember has a single intra-op pool: ember::set_num_threads calls this
// with that pool's size (n >= 1), and the first gemm call does so with ember::get_num_threads()
// if nobody has, so the libraries never add their own threads on top of ember's. Inside an
// ember parallel region (ember::in_parallel_region()) a float gemm runs single-threaded.
void set_gemm_num_threads(int n);
int get_gemm_num_threads();  // 0 until configured (set_gemm_num_threads or the first gemm)
// Applies that count to the calling thread's OpenMP setting before another oneDNN call (the
// convolution primitives); returns the team size oneDNN will use.
int prepare_onednn_threads();

// prepare_onednn_threads for one call, undone afterwards: the calling thread's OpenMP setting is
// put back when the scope ends. libgomp's setting is shared by every library in the process,
// and PyTorch reads its own thread count from it (at::get_num_threads is omp_get_max_threads),
// so leaving ember's count there would silently change torch's threads, and with them the
// kernels torch picks (Note [Torch's float convolution paths]), in a process that runs both.
class ScopedOnednnThreads {
 public:
  ScopedOnednnThreads();
  ~ScopedOnednnThreads();
  ScopedOnednnThreads(const ScopedOnednnThreads&) = delete;
  ScopedOnednnThreads& operator=(const ScopedOnednnThreads&) = delete;
  int threads() const { return threads_; }

 private:
  int previous_, threads_;
};

// Scalar reference implementation with the same semantics (tests only; O(mnk), no blocking).
// Integer types accumulate in T; long double in long double; every other type (float, double,
// ember::Half, ember::BFloat16) in double, so the reference is at least as accurate as the
// code under test.
template <typename T>
void gemm_ref(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
              int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  using Acc = std::conditional_t<std::is_integral_v<T> || std::is_same_v<T, long double>, T,
                                 double>;
  const bool use_ab = k > 0 && !(alpha == T(0));  // BLAS: alpha == 0 never reads A or B
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      Acc sum = Acc(0);
      for (int64_t p = 0; use_ab && p < k; ++p) {
        const Acc av = Acc(trans_a ? a[p * lda + i] : a[i * lda + p]);
        const Acc bv = Acc(trans_b ? b[j * ldb + p] : b[p * ldb + j]);
        sum += av * bv;
      }
      T& out = c[i * ldc + j];
      const Acc ab = use_ab ? Acc(alpha) * sum : Acc(0);
      // beta == 0 must not read C: it may hold NaN/garbage and is overwritten.
      out = (beta == T(0)) ? T(ab) : T(ab + Acc(beta) * Acc(out));
    }
  }
}

}  // namespace ember::cpu
