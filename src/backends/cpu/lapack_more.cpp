// sytrf / sytrs / geqrf / ormqr over OpenBLAS's LAPACK, called through the Fortran entry points
// as lapack.cpp does (gfortran's convention: arguments by pointer, a trailing length per
// CHARACTER argument).
#include "lapack_more.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "ember/error.h"
#include "lapack_util.h"

extern "C" {
// The same arguments for the four element types: sytrf / sytrs (complex symmetric for complex
// matrices), geqrf, and ormqr with its complex twin unmqr (Q unitary: "transpose" is the
// conjugate transpose).
#define EMBER_LAPACK_MORE_DECL(T, p, q)                                                           \
  void p##sytrf_(char* uplo, blasint* n, T* a, blasint* lda, blasint* ipiv, T* work,              \
                 blasint* lwork, blasint* info, size_t);                                          \
  void p##sytrs_(char* uplo, blasint* n, blasint* nrhs, T* a, blasint* lda, blasint* ipiv, T* b,  \
                 blasint* ldb, blasint* info, size_t);                                            \
  void p##geqrf_(blasint* m, blasint* n, T* a, blasint* lda, T* tau, T* work, blasint* lwork,     \
                 blasint* info);                                                                  \
  void p##q##mqr_(char* side, char* trans, blasint* m, blasint* n, blasint* k, T* a,              \
                  blasint* lda, T* tau, T* c, blasint* ldc, T* work, blasint* lwork,              \
                  blasint* info, size_t, size_t);
EMBER_LAPACK_MORE_DECL(float, s, or)
EMBER_LAPACK_MORE_DECL(double, d, or)
EMBER_LAPACK_MORE_DECL(std::complex<float>, c, un)
EMBER_LAPACK_MORE_DECL(std::complex<double>, z, un)
#undef EMBER_LAPACK_MORE_DECL
// hetrf / hetrs: LDL^H of Hermitian matrices, sytrf / sytrs's arguments.
#define EMBER_LAPACK_MORE_HERMITIAN_DECL(T, p)                                                    \
  void p##hetrf_(char* uplo, blasint* n, T* a, blasint* lda, blasint* ipiv, T* work,              \
                 blasint* lwork, blasint* info, size_t);                                          \
  void p##hetrs_(char* uplo, blasint* n, blasint* nrhs, T* a, blasint* lda, blasint* ipiv, T* b,  \
                 blasint* ldb, blasint* info, size_t);
EMBER_LAPACK_MORE_HERMITIAN_DECL(std::complex<float>, c)
EMBER_LAPACK_MORE_HERMITIAN_DECL(std::complex<double>, z)
#undef EMBER_LAPACK_MORE_HERMITIAN_DECL
}

namespace ember::cpu::lapack {

namespace {

// One name per routine for the four element types (Note [Complex LAPACK] in lapack.cpp).
#define EMBER_LAPACK_PICK(name, s_name, c_name)                       \
  inline auto name##_fn(float) { return &s##s_name##_; }              \
  inline auto name##_fn(double) { return &d##s_name##_; }             \
  inline auto name##_fn(std::complex<float>) { return &c##c_name##_; } \
  inline auto name##_fn(std::complex<double>) { return &z##c_name##_; }
EMBER_LAPACK_PICK(sytrf, sytrf, sytrf)
EMBER_LAPACK_PICK(sytrs, sytrs, sytrs)
EMBER_LAPACK_PICK(geqrf, geqrf, geqrf)
EMBER_LAPACK_PICK(ormqr, ormqr, unmqr)
// The Hermitian routines; a real Hermitian matrix is symmetric, so real input takes sytrf / sytrs.
EMBER_LAPACK_PICK(hetrf, sytrf, hetrf)
EMBER_LAPACK_PICK(hetrs, sytrs, hetrs)
#undef EMBER_LAPACK_PICK

}  // namespace

void sytrf(const Tensor& a, const Tensor& pivots, const Tensor& info, bool hermitian) {
  const int64_t count = Batch(a).count, n64 = a.size(-1);
  visit_real_or_complex(a, [&]<class T>() {
    const auto factor = hermitian ? hetrf_fn(T{}) : sytrf_fn(T{});
    char uplo = 'L';
    blasint n = to_blas(n64), lda = std::max<blasint>(1, n), lwork = -1, inf = 0;
    for (int64_t i = 0; i < count; ++i) ptr<blasint>(info)[i] = 0;
    if (n == 0) return;
    T query{};
    factor(&uplo, &n, nullptr, &lda, nullptr, &query, &lwork, &inf, 1);
    lwork = work_size(query);
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < count; ++i) {
      T* m = ptr<T>(a) + i * n64 * n64;
      factor(&uplo, &n, m, &lda, ptr<blasint>(pivots) + i * n64, work.data(), &lwork,
                    ptr<blasint>(info) + i, 1);
      for (int64_t j = 1; j < n64; ++j)  // the strict upper triangle (column j, rows < j)
        for (int64_t r = 0; r < j; ++r) m[r + j * n64] = T(0);
    }
  });
}

void sytrs(const Tensor& ld, const Tensor& pivots, const Tensor& b, bool hermitian) {
  const int64_t count = Batch(b).count, n64 = ld.size(-1), k64 = b.size(-1);
  visit_real_or_complex(ld, [&]<class T>() {
    const auto solve = hermitian ? hetrs_fn(T{}) : sytrs_fn(T{});
    char uplo = 'L';
    blasint n = to_blas(n64), nrhs = to_blas(k64), lda = std::max<blasint>(1, n), ldb = lda, inf = 0;
    if (n == 0 || nrhs == 0) return;
    for (int64_t i = 0; i < count; ++i) {
      solve(&uplo, &n, &nrhs, ptr<T>(ld) + i * n64 * n64, &lda,
                    ptr<blasint>(pivots) + i * n64, ptr<T>(b) + i * n64 * k64, &ldb, &inf, 1);
    }
  });
}

void geqrf(const Tensor& a, const Tensor& tau) {
  const int64_t count = Batch(a).count, m64 = a.size(-2), n64 = a.size(-1);
  const int64_t k64 = std::min(m64, n64);
  visit_real_or_complex(a, [&]<class T>() {
    blasint m = to_blas(m64), n = to_blas(n64), lda = std::max<blasint>(1, m), lwork = -1, inf = 0;
    if (k64 == 0) return;
    T query{};
    geqrf_fn(T{})(&m, &n, nullptr, &lda, nullptr, &query, &lwork, &inf);
    lwork = work_size(query);
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < count; ++i) {
      geqrf_fn(T{})(&m, &n, ptr<T>(a) + i * m64 * n64, &lda, ptr<T>(tau) + i * k64, work.data(),
                    &lwork, &inf);
    }
  });
}

void ormqr(const Tensor& a, const Tensor& tau, const Tensor& c, bool left, bool transpose) {
  const int64_t count = Batch(c).count, m64 = c.size(-2), n64 = c.size(-1);
  const int64_t ar = a.size(-2), ac = a.size(-1), k64 = tau.size(-1);
  visit_real_or_complex(c, [&]<class T>() {
    char side = left ? 'L' : 'R', trans = !transpose ? 'N' : is_complex_v<T> ? 'C' : 'T';
    blasint m = to_blas(m64), n = to_blas(n64), k = to_blas(k64), lda = std::max<blasint>(1, to_blas(ar)),
            ldc = std::max<blasint>(1, m), lwork = -1, inf = 0;
    if (m64 == 0 || n64 == 0 || k64 == 0) return;
    T query{};
    ormqr_fn(T{})(&side, &trans, &m, &n, &k, nullptr, &lda, nullptr, nullptr, &ldc, &query, &lwork,
                  &inf, 1, 1);
    lwork = work_size(query);
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < count; ++i) {
      ormqr_fn(T{})(&side, &trans, &m, &n, &k, ptr<T>(a) + i * ar * ac, &lda,
                    ptr<T>(tau) + i * tau.size(-1), ptr<T>(c) + i * m64 * n64, &ldc, work.data(),
                    &lwork, &inf, 1, 1);
    }
  });
}

}  // namespace ember::cpu::lapack
