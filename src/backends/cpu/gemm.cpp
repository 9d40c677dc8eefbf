// CPU GEMM dispatch. Why these libraries: see the header and tools/gemm_probe.cpp.
//
// Both libraries own threads, and they use different runtimes:
//   * Debian's libdnnl is built with DNNL_CPU_RUNTIME == OMP (libgomp). oneDNN sizes its team
//     from omp_get_max_threads() of the *calling* thread, and libgomp keeps that value per
//     thread: omp_set_num_threads() in one thread does not reach ember's pool workers. So the
//     configured count lives in an atomic and each oneDNN call applies it to the calling
//     thread for its duration (ScopedOnednnThreads: one compare with omp_get_max_threads()
//     per call, and the caller's value put back if it differed).
//   * Debian's OpenBLAS is the pthread flavour (USE_OPENMP=0): one process-wide pool, sized
//     globally by openblas_set_num_threads().
// The float GEMM itself never asks oneDNN for more than one thread: it splits large products
// over ember's pool instead (Note [Float GEMM on ember's pool]); oneDNN's convolutions still
// size their OpenMP team as above.
// Until set_gemm_num_threads is called (ember::set_num_threads calls it), the first gemm call
// configures both libraries with ember's pool size (Note [One thread pool]). Inside ember's own
// parallel regions (a bmm running one small product per thread) oneDNN gets one thread, so the
// two levels of threads do not multiply; OpenBLAS needs no such care there because it runs
// products that small single-threaded by itself.
#include "gemm.h"

#include <cblas.h>  // OpenBLAS's cblas.h (also declares openblas_set_num_threads, blasint)
#include <oneapi/dnnl/dnnl.h>
#include <omp.h>  // libgomp, the same OpenMP runtime libdnnl.so links; never mix in libomp

#include <algorithm>
#include <complex>
#include <atomic>
#include <limits>
#include <mutex>
#include <type_traits>

#include "ember/error.h"
#include "ember/parallel.h"

namespace ember::cpu {
namespace {

std::atomic<int> g_num_threads{0};  // 0: never configured, leave library defaults alone

// Configures the libraries with ember's thread count on the first gemm call of the process.
// Once only, and every first caller waits for it: a bmm's first products may start on several
// threads at once, and OpenBLAS's pool must not be resized under a running dgemm.
void ensure_configured() {
  if (__builtin_expect(g_num_threads.load(std::memory_order_acquire) == 0, 0)) {
    static std::once_flag once;
    std::call_once(once, [] {
      if (g_num_threads.load() == 0) set_gemm_num_threads(ember::get_num_threads());
    });
  }
}

// Compares with the thread's live OpenMP setting rather than a cached one: other code in the
// process (libtorch's at::set_num_threads, a user) may call omp_set_num_threads on the same
// thread, and a stale cache then let oneDNN run a 2-thread team beside ember's own worker
// (a 40x slowdown of a small-product bmm, measured in benchmarks/bench_core.cpp).
void apply_omp_threads_for_this_thread() {
  const int want =
      ember::in_parallel_region() ? 1 : g_num_threads.load(std::memory_order_relaxed);
  if (want > 0 && omp_get_max_threads() != want) omp_set_num_threads(want);
}

// Row-major leading-dimension rules of cblas (violations would be a caller bug; the libraries
// would otherwise print via xerbla / return an opaque status).
void check_args(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, int64_t lda,
                int64_t ldb, int64_t ldc) {
  EMBER_CHECK(m >= 0 && n >= 0 && k >= 0, "gemm: negative size m=", m, " n=", n, " k=", k);
  EMBER_CHECK(lda >= std::max<int64_t>(1, trans_a ? m : k), "gemm: lda=", lda, " too small");
  EMBER_CHECK(ldb >= std::max<int64_t>(1, trans_b ? k : n), "gemm: ldb=", ldb, " too small");
  EMBER_CHECK(ldc >= std::max<int64_t>(1, n), "gemm: ldc=", ldc, " too small");
}

// Handles the cases where no product is needed, with the guarantees documented in gemm.h
// (beta == 0 overwrites, A/B unread). Returns true if C is final.
template <typename T>
bool gemm_trivial(int64_t m, int64_t n, int64_t k, T alpha, T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return true;
  if (k != 0 && alpha != T(0)) return false;
  if (beta == T(1)) return true;
  for (int64_t i = 0; i < m; ++i) {
    T* row = c + i * ldc;
    if (beta == T(0)) {
      std::fill(row, row + n, T(0));
    } else {
      for (int64_t j = 0; j < n; ++j) row[j] *= beta;
    }
  }
  return true;
}

}  // namespace

namespace {

// Note [Float GEMM on ember's pool]: dnnl_sgemm always runs on one OpenMP thread; a product
// worth splitting is cut into row (or column) blocks of C run on ember's own pool. A libgomp
// team of two beside ember's pool worker on a two-core machine spins (libgomp's default wait
// policy) exactly when ember's worker needs the core: the char_transformer training step ran
// 10x slower in CPU time on two threads than on one (80% of its samples in libgomp's spin loop).
// Each element of C still sums over k inside one sgemm call, so the split changes no value
// beyond the library's own blocking.
constexpr int64_t kSplitWork = int64_t{1} << 18;  // m * n * k below this: one call
constexpr int64_t kBlockAlign = 16;                // block edges on whole vector tiles

void sgemm_one_thread(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                      const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                      int64_t ldc) {
  const int previous = omp_get_max_threads();
  if (previous != 1) omp_set_num_threads(1);
  const dnnl_status_t st = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha,
                                      a, lda, b, ldb, beta, c, ldc);
  if (previous != 1) omp_set_num_threads(previous);
  EMBER_CHECK(st == dnnl_success, "gemm: dnnl_sgemm failed with status ", int(st));
}

}  // namespace

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  check_args(trans_a, trans_b, m, n, k, lda, ldb, ldc);
  if (gemm_trivial(m, n, k, alpha, beta, c, ldc)) return;
  ensure_configured();
  const int64_t threads = ember::in_parallel_region() ? 1 : g_num_threads.load(std::memory_order_relaxed);
  const bool by_rows = m >= n;
  const int64_t len = by_rows ? m : n;
  const int64_t blocks = std::min(threads, len / kBlockAlign);
  if (blocks <= 1 || m * n * k < kSplitWork) {
    return sgemm_one_thread(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  // Block edges rounded to kBlockAlign (Note [Float GEMM on ember's pool]).
  const int64_t step = (len / kBlockAlign + blocks - 1) / blocks * kBlockAlign;
  ember::parallel_for(0, blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t i0 = blk * step, i1 = blk == blocks - 1 ? len : std::min(len, i0 + step);
      if (i0 >= i1) continue;
      if (by_rows) {  // rows i0..i1 of C and of op(A)
        sgemm_one_thread(trans_a, trans_b, i1 - i0, n, k, alpha, trans_a ? a + i0 : a + i0 * lda,
                         lda, b, ldb, beta, c + i0 * ldc, ldc);
      } else {  // columns i0..i1 of C and of op(B)
        sgemm_one_thread(trans_a, trans_b, m, i1 - i0, k, alpha, a, lda,
                         trans_b ? b + i0 * ldb : b + i0, ldb, beta, c + i0, ldc);
      }
    }
  });
}

namespace {

// OpenBLAS's cblas_?gemm, row-major, for float or double.
template <typename T>
void openblas_gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha,
                   const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  check_args(trans_a, trans_b, m, n, k, lda, ldb, ldc);
  if (gemm_trivial(m, n, k, alpha, beta, c, ldc)) return;
  ensure_configured();
  // Debian's OpenBLAS uses 32-bit blasint (USE_64BITINT unset): refuse rather than truncate.
  constexpr int64_t kMax = std::numeric_limits<blasint>::max();
  EMBER_CHECK(std::max({m, n, k, lda, ldb, ldc}) <= kMax,
              "gemm: GEMM dimensions exceed the BLAS integer range");
  const auto ta = trans_a ? CblasTrans : CblasNoTrans, tb = trans_b ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ta, tb, blasint(m), blasint(n), blasint(k), alpha, a, blasint(lda),
                b, blasint(ldb), beta, c, blasint(ldc));
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    cblas_cgemm(CblasRowMajor, ta, tb, blasint(m), blasint(n), blasint(k), &alpha, a, blasint(lda),
                b, blasint(ldb), &beta, c, blasint(ldc));
  } else if constexpr (std::is_same_v<T, std::complex<double>>) {
    cblas_zgemm(CblasRowMajor, ta, tb, blasint(m), blasint(n), blasint(k), &alpha, a, blasint(lda),
                b, blasint(ldb), &beta, c, blasint(ldc));
  } else {
    cblas_dgemm(CblasRowMajor, ta, tb, blasint(m), blasint(n), blasint(k), alpha, a, blasint(lda),
                b, blasint(ldb), beta, c, blasint(ldc));
  }
}

}  // namespace

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
          const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
          int64_t ldc) {
  openblas_gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// complex64 / complex128: OpenBLAS's cgemm / zgemm (oneDNN has no complex GEMM).
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, std::complex<float> alpha,
          const std::complex<float>* a, int64_t lda, const std::complex<float>* b, int64_t ldb,
          std::complex<float> beta, std::complex<float>* c, int64_t ldc) {
  openblas_gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, std::complex<double> alpha,
          const std::complex<double>* a, int64_t lda, const std::complex<double>* b, int64_t ldb,
          std::complex<double> beta, std::complex<double>* c, int64_t ldc) {
  openblas_gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void gemm_blas(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
               const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
               int64_t ldc) {
  openblas_gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

namespace {
thread_local bool t_torch_gemm = false;
}  // namespace

TorchGemmScope::TorchGemmScope() : previous_(t_torch_gemm) { t_torch_gemm = true; }
TorchGemmScope::~TorchGemmScope() { t_torch_gemm = previous_; }
bool TorchGemmScope::active() { return t_torch_gemm; }

void set_gemm_num_threads(int n) {
  EMBER_CHECK_VALUE(n >= 1, "set_gemm_num_threads: expected n >= 1, got ", n);
  g_num_threads.store(n, std::memory_order_relaxed);
  openblas_set_num_threads(n);  // process-wide
  // oneDNN/OpenMP: applied per thread on its next float gemm (see top of file).
}

int get_gemm_num_threads() { return g_num_threads.load(std::memory_order_relaxed); }

int prepare_onednn_threads() {
  ensure_configured();
  apply_omp_threads_for_this_thread();
  return omp_get_max_threads();
}

ScopedOnednnThreads::ScopedOnednnThreads() {
  ensure_configured();
  previous_ = omp_get_max_threads();
  apply_omp_threads_for_this_thread();
  threads_ = omp_get_max_threads();
}

ScopedOnednnThreads::~ScopedOnednnThreads() {
  if (threads_ != previous_) omp_set_num_threads(previous_);
}

}  // namespace ember::cpu
