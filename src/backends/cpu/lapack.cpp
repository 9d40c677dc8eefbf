// Batched LAPACK kernels over OpenBLAS's LAPACK (Note [LAPACK layout] in lapack.h).
//
// Note [LAPACK through the Fortran symbols]: Debian's libopenblas0 exports the whole of LAPACK
// under its Fortran names (dgetrf_, dsyevd_, ...), and ember already links it for GEMM
// (cmake/gemm.cmake). LAPACKE would add a second package (liblapacke-dev) and a C layer that,
// for row-major input, transposes into a scratch copy on every call; ember instead hands LAPACK
// matrices that are already column-major, so the Fortran entry points are called directly with
// the prototypes below (gfortran's calling convention: every argument by pointer, and a hidden
// trailing length per CHARACTER argument). blasint is OpenBLAS's 32-bit integer; sizes beyond
// it are refused rather than truncated.
#include "lapack.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <vector>

#include "ember/error.h"
#include "lapack_util.h"

extern "C" {
// The routines whose arguments are the same for the four element types (Note [Complex LAPACK]);
// Q's generator is orgqr for real matrices, ungqr (unitary Q) for complex ones.
#define EMBER_LAPACK_DECL(T, p, q)                                                                \
  void p##getrf_(blasint* m, blasint* n, T* a, blasint* lda, blasint* ipiv, blasint* info);       \
  void p##getri_(blasint* n, T* a, blasint* lda, blasint* ipiv, T* work, blasint* lwork,          \
                 blasint* info);                                                                  \
  void p##getrs_(char* trans, blasint* n, blasint* nrhs, T* a, blasint* lda, blasint* ipiv, T* b, \
                 blasint* ldb, blasint* info, size_t);                                            \
  void p##potrf_(char* uplo, blasint* n, T* a, blasint* lda, blasint* info, size_t);              \
  void p##geqrf_(blasint* m, blasint* n, T* a, blasint* lda, T* tau, T* work, blasint* lwork,     \
                 blasint* info);                                                                  \
  void p##q##gqr_(blasint* m, blasint* n, blasint* k, T* a, blasint* lda, T* tau, T* work,        \
                  blasint* lwork, blasint* info);                                                 \
  void p##gels_(char* trans, blasint* m, blasint* n, blasint* nrhs, T* a, blasint* lda, T* b,     \
                blasint* ldb, T* work, blasint* lwork, blasint* info, size_t);
EMBER_LAPACK_DECL(float, s, or)
EMBER_LAPACK_DECL(double, d, or)
EMBER_LAPACK_DECL(std::complex<float>, c, un)
EMBER_LAPACK_DECL(std::complex<double>, z, un)
#undef EMBER_LAPACK_DECL
// Real only: syevd (heevd is its complex twin, lapack_eig.cpp), and the real signatures of the
// SVD-based routines.
#define EMBER_LAPACK_REAL_DECL(T, p)                                                              \
  void p##gesdd_(char* jobz, blasint* m, blasint* n, T* a, blasint* lda, T* s, T* u,              \
                 blasint* ldu, T* vt, blasint* ldvt, T* work, blasint* lwork, blasint* iwork,     \
                 blasint* info, size_t);                                                          \
  void p##syevd_(char* jobz, char* uplo, blasint* n, T* a, blasint* lda, T* w, T* work,           \
                 blasint* lwork, blasint* iwork, blasint* liwork, blasint* info, size_t, size_t); \
  void p##gelsy_(blasint* m, blasint* n, blasint* nrhs, T* a, blasint* lda, T* b, blasint* ldb,   \
                 blasint* jpvt, T* rcond, blasint* rank, T* work, blasint* lwork, blasint* info); \
  void p##gelsd_(blasint* m, blasint* n, blasint* nrhs, T* a, blasint* lda, T* b, blasint* ldb,   \
                 T* s, T* rcond, blasint* rank, T* work, blasint* lwork, blasint* iwork,          \
                 blasint* info);                                                                  \
  void p##gelss_(blasint* m, blasint* n, blasint* nrhs, T* a, blasint* lda, T* b, blasint* ldb,   \
                 T* s, T* rcond, blasint* rank, T* work, blasint* lwork, blasint* info);
EMBER_LAPACK_REAL_DECL(float, s)
EMBER_LAPACK_REAL_DECL(double, d)
#undef EMBER_LAPACK_REAL_DECL
// The complex SVD-based routines take a real workspace rwork and real singular values / rcond.
#define EMBER_LAPACK_COMPLEX_DECL(T, R, p)                                                        \
  void p##gesdd_(char* jobz, blasint* m, blasint* n, T* a, blasint* lda, R* s, T* u,              \
                 blasint* ldu, T* vt, blasint* ldvt, T* work, blasint* lwork, R* rwork,           \
                 blasint* iwork, blasint* info, size_t);                                          \
  void p##gelsy_(blasint* m, blasint* n, blasint* nrhs, T* a, blasint* lda, T* b, blasint* ldb,   \
                 blasint* jpvt, R* rcond, blasint* rank, T* work, blasint* lwork, R* rwork,       \
                 blasint* info);                                                                  \
  void p##gelsd_(blasint* m, blasint* n, blasint* nrhs, T* a, blasint* lda, T* b, blasint* ldb,   \
                 R* s, R* rcond, blasint* rank, T* work, blasint* lwork, R* rwork,                \
                 blasint* iwork, blasint* info);                                                  \
  void p##gelss_(blasint* m, blasint* n, blasint* nrhs, T* a, blasint* lda, T* b, blasint* ldb,   \
                 R* s, R* rcond, blasint* rank, T* work, blasint* lwork, R* rwork, blasint* info);
EMBER_LAPACK_COMPLEX_DECL(std::complex<float>, float, c)
EMBER_LAPACK_COMPLEX_DECL(std::complex<double>, double, z)
#undef EMBER_LAPACK_COMPLEX_DECL
}

namespace ember::cpu::lapack {

namespace {

// Note [Complex LAPACK]: one name per routine for the four element types, so each kernel is
// written once over T. The complex routines that need a real workspace (gesdd, gelsy, gelsd,
// gelss) get a uniform signature with an rwork argument, which the real ones ignore; orgqr's
// complex twin is ungqr (Q is unitary), ormqr's unmqr (lapack_more.cpp).
#define EMBER_LAPACK_PICK(name, cname)                              \
  inline auto name##_fn(float) { return &s##name##_; }              \
  inline auto name##_fn(double) { return &d##name##_; }             \
  inline auto name##_fn(std::complex<float>) { return &c##cname##_; } \
  inline auto name##_fn(std::complex<double>) { return &z##cname##_; }
EMBER_LAPACK_PICK(getrf, getrf)
EMBER_LAPACK_PICK(getri, getri)
EMBER_LAPACK_PICK(getrs, getrs)
EMBER_LAPACK_PICK(potrf, potrf)
EMBER_LAPACK_PICK(geqrf, geqrf)
EMBER_LAPACK_PICK(orgqr, ungqr)
EMBER_LAPACK_PICK(gels, gels)
#undef EMBER_LAPACK_PICK
// Real only: heevd (lapack_eig.cpp) is the complex routine.
inline auto syevd_fn(float) { return &ssyevd_; }
inline auto syevd_fn(double) { return &dsyevd_; }

#define EMBER_LAPACK_RWORK(T, R, p)                                                                \
  inline void gesdd_x(char* jobz, blasint* m, blasint* n, T* a, blasint* lda, R* s, T* u,         \
                      blasint* ldu, T* vt, blasint* ldvt, T* work, blasint* lwork, R* rwork,      \
                      blasint* iwork, blasint* info) {                                             \
    EMBER_LAPACK_CALL_GESDD(p)                                                                     \
  }                                                                                                \
  inline void gelsy_x(blasint* m, blasint* n, blasint* nrhs, T* a, blasint* lda, T* b,            \
                      blasint* ldb, blasint* jpvt, R* rc, blasint* rank, T* work, blasint* lwork,  \
                      R* rwork, blasint* info) {                                                   \
    EMBER_LAPACK_CALL_GELSY(p)                                                                     \
  }                                                                                                \
  inline void gelsd_x(blasint* m, blasint* n, blasint* nrhs, T* a, blasint* lda, T* b,            \
                      blasint* ldb, R* s, R* rc, blasint* rank, T* work, blasint* lwork, R* rwork, \
                      blasint* iwork, blasint* info) {                                             \
    EMBER_LAPACK_CALL_GELSD(p)                                                                     \
  }                                                                                                \
  inline void gelss_x(blasint* m, blasint* n, blasint* nrhs, T* a, blasint* lda, T* b,            \
                      blasint* ldb, R* s, R* rc, blasint* rank, T* work, blasint* lwork, R* rwork, \
                      blasint* info) {                                                             \
    EMBER_LAPACK_CALL_GELSS(p)                                                                     \
  }
// Real: rwork unused.
#define EMBER_LAPACK_CALL_GESDD(p) \
  (void)rwork;                     \
  p##gesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, 1);
#define EMBER_LAPACK_CALL_GELSY(p) \
  (void)rwork;                     \
  p##gelsy_(m, n, nrhs, a, lda, b, ldb, jpvt, rc, rank, work, lwork, info);
#define EMBER_LAPACK_CALL_GELSD(p) \
  (void)rwork;                     \
  p##gelsd_(m, n, nrhs, a, lda, b, ldb, s, rc, rank, work, lwork, iwork, info);
#define EMBER_LAPACK_CALL_GELSS(p) \
  (void)rwork;                     \
  p##gelss_(m, n, nrhs, a, lda, b, ldb, s, rc, rank, work, lwork, info);
EMBER_LAPACK_RWORK(float, float, s)
EMBER_LAPACK_RWORK(double, double, d)
#undef EMBER_LAPACK_CALL_GESDD
#undef EMBER_LAPACK_CALL_GELSY
#undef EMBER_LAPACK_CALL_GELSD
#undef EMBER_LAPACK_CALL_GELSS
#define EMBER_LAPACK_CALL_GESDD(p) \
  p##gesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork, info, 1);
#define EMBER_LAPACK_CALL_GELSY(p) \
  p##gelsy_(m, n, nrhs, a, lda, b, ldb, jpvt, rc, rank, work, lwork, rwork, info);
#define EMBER_LAPACK_CALL_GELSD(p) \
  p##gelsd_(m, n, nrhs, a, lda, b, ldb, s, rc, rank, work, lwork, rwork, iwork, info);
#define EMBER_LAPACK_CALL_GELSS(p) \
  p##gelss_(m, n, nrhs, a, lda, b, ldb, s, rc, rank, work, lwork, rwork, info);
EMBER_LAPACK_RWORK(std::complex<float>, float, c)
EMBER_LAPACK_RWORK(std::complex<double>, double, z)
#undef EMBER_LAPACK_CALL_GESDD
#undef EMBER_LAPACK_CALL_GELSY
#undef EMBER_LAPACK_CALL_GELSD
#undef EMBER_LAPACK_CALL_GELSS
#undef EMBER_LAPACK_RWORK

// Zeroes the strict lower (upper = true keeps the upper) or strict upper triangle.
template <class T>
void keep_triangle(T* a, int64_t rows, int64_t cols, bool upper) {
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i)
      if (upper ? i > j : i < j) a[i + j * rows] = T(0);
}

}  // namespace

void getrf(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  const Batch b(a);
  const int64_t k = std::min(b.rows, b.cols);
  visit_real_or_complex(a, [&]<class T>() {
    blasint m = to_blas(b.rows), n = to_blas(b.cols), lda = std::max<blasint>(1, m);
    for (int64_t i = 0; i < b.count; ++i) {
      blasint* ipiv = ptr<blasint>(pivots) + i * k;
      blasint* inf = ptr<blasint>(info) + i;
      *inf = 0;
      if (k == 0) continue;
      getrf_fn(T{})(&m, &n, ptr<T>(a) + i * b.stride(), &lda, ipiv, inf);
    }
  });
}

void getri(const Tensor& lu, const Tensor& pivots, const Tensor& info) {
  const Batch b(lu);
  visit_real_or_complex(lu, [&]<class T>() {
    blasint n = to_blas(b.rows), lda = std::max<blasint>(1, n), lwork = -1, inf = 0;
    if (n == 0) return;
    T query{};
    getri_fn(T{})(&n, nullptr, &lda, nullptr, &query, &lwork, &inf);
    lwork = work_size(query);
    std::vector<T> work(lwork);
    for (int64_t i = 0; i < b.count; ++i) {
      if (ptr<blasint>(info)[i] != 0) continue;
      getri_fn(T{})(&n, ptr<T>(lu) + i * b.stride(), &lda, ptr<blasint>(pivots) + i * n,
                    work.data(), &lwork, &inf);
    }
  });
}

void getrs(const Tensor& lu, const Tensor& pivots, const Tensor& rhs, char op) {
  const Batch a(lu), b(rhs);
  visit_real_or_complex(lu, [&]<class T>() {
    char trans = op;
    blasint n = to_blas(a.rows), nrhs = to_blas(b.cols), lda = std::max<blasint>(1, n),
            ldb = lda, inf = 0;
    if (n == 0 || nrhs == 0) return;
    for (int64_t i = 0; i < b.count; ++i) {
      getrs_fn(T{})(&trans, &n, &nrhs, ptr<T>(lu) + i * a.stride(), &lda,
                    ptr<blasint>(pivots) + i * n, ptr<T>(rhs) + i * b.stride(), &ldb, &inf, 1);
    }
  });
}

void potrf(const Tensor& a, const Tensor& info, bool upper) {
  const Batch b(a);
  visit_real_or_complex(a, [&]<class T>() {
    char uplo = upper ? 'U' : 'L';
    blasint n = to_blas(b.rows), lda = std::max<blasint>(1, n);
    for (int64_t i = 0; i < b.count; ++i) {
      T* m = ptr<T>(a) + i * b.stride();
      blasint* inf = ptr<blasint>(info) + i;
      *inf = 0;
      if (n > 0) potrf_fn(T{})(&uplo, &n, m, &lda, inf, 1);
      keep_triangle(m, n, n, upper);
    }
  });
}

void geqrf_orgqr(const Tensor& a, const Tensor& q, const Tensor& r) {
  const Batch b(a);
  const int64_t m = b.rows, n = b.cols, k = std::min(m, n);
  const int64_t qcols = q.defined() ? q.size(-1) : 0, rrows = r.size(-2);
  visit_real_or_complex(a, [&]<class T>() {
    // Scratch m x max(n, qcols): the factored A, then (its first qcols columns) Q.
    const int64_t wcols = std::max(n, qcols);
    std::vector<T> work_a(static_cast<size_t>(std::max<int64_t>(1, m * wcols)));
    std::vector<T> tau(static_cast<size_t>(std::max<int64_t>(1, k)));
    blasint bm = to_blas(m), bn = to_blas(n), bk = to_blas(k), bq = to_blas(qcols),
            lda = std::max<blasint>(1, bm), inf = 0, lwork = -1;
    T query{};
    blasint lwork_qr = 1, lwork_q = 1;
    if (k > 0) {
      geqrf_fn(T{})(&bm, &bn, work_a.data(), &lda, tau.data(), &query, &lwork, &inf);
      lwork_qr = work_size(query);
      if (qcols > 0) {
        orgqr_fn(T{})(&bm, &bq, &bk, work_a.data(), &lda, tau.data(), &query, &lwork, &inf);
        lwork_q = work_size(query);
      }
    }
    std::vector<T> work(static_cast<size_t>(std::max(lwork_qr, lwork_q)));
    for (int64_t i = 0; i < b.count; ++i) {
      const T* src = ptr<T>(a) + i * b.stride();
      std::copy(src, src + m * n, work_a.begin());
      std::fill(work_a.begin() + m * n, work_a.end(), T(0));
      if (k > 0) {
        blasint lw = lwork_qr;
        geqrf_fn(T{})(&bm, &bn, work_a.data(), &lda, tau.data(), work.data(), &lw, &inf);
      }
      T* rp = ptr<T>(r) + i * rrows * n;
      for (int64_t j = 0; j < n; ++j)
        for (int64_t row = 0; row < rrows; ++row)
          rp[row + j * rrows] = row <= j && row < m ? work_a[row + j * m] : T(0);
      if (!q.defined()) continue;
      if (qcols > 0 && m > 0) {
        blasint lw = lwork_q;
        if (k > 0) {
          orgqr_fn(T{})(&bm, &bq, &bk, work_a.data(), &lda, tau.data(), work.data(), &lw, &inf);
        } else {  // no reflectors: Q is the identity
          std::fill(work_a.begin(), work_a.end(), T(0));
          for (int64_t d = 0; d < std::min(m, qcols); ++d) work_a[d + d * m] = T(1);
        }
      }
      std::copy(work_a.begin(), work_a.begin() + m * qcols, ptr<T>(q) + i * m * qcols);
    }
  });
}

void gesdd(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info) {
  const Batch b(a);
  const int64_t m = b.rows, n = b.cols, k = std::min(m, n);
  const bool vectors = u.defined();
  const int64_t ucols = vectors ? u.size(-1) : 0, vrows = vectors ? vh.size(-2) : 0;
  visit_real_or_complex(a, [&]<class T>() {
    using R = real_t<T>;
    // The complex routine's real workspace (LAPACK's documented bound for each jobz).
    const int64_t mx = std::max(m, n);
    std::vector<R> rwork(static_cast<size_t>(
        !is_complex_v<T> ? 1 : std::max<int64_t>({1, 7 * k, 5 * k * k + 5 * k, 2 * mx * k + 2 * k * k + k})));
    char jobz = !vectors ? 'N' : (ucols == m && vrows == n) ? 'A' : 'S';
    blasint bm = to_blas(m), bn = to_blas(n), lda = std::max<blasint>(1, bm),
            ldu = std::max<blasint>(1, bm), ldvt = std::max<blasint>(1, to_blas(vrows)), inf = 0,
            lwork = -1;
    std::vector<blasint> iwork(static_cast<size_t>(std::max<int64_t>(1, 8 * k)));
    T query{};
    T dummy_u{}, dummy_vt{};
    if (k > 0) {
      gesdd_x(&jobz, &bm, &bn, nullptr, &lda, nullptr, &dummy_u, &ldu, &dummy_vt, &ldvt, &query, &lwork,
              rwork.data(), iwork.data(), &inf);
    }
    lwork = work_size(query);
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < b.count; ++i) {
      T* up = vectors ? ptr<T>(u) + i * m * ucols : &dummy_u;
      T* vp = vectors ? ptr<T>(vh) + i * vrows * n : &dummy_vt;
      blasint* ip = ptr<blasint>(info) + i;
      *ip = 0;
      if (k == 0) {
        // An empty side: the full factor of the other side is the identity (PyTorch's too).
        if (vectors) {
          for (int64_t j = 0; j < ucols * m; ++j) up[j] = T(0);
          for (int64_t d = 0; d < std::min(m, ucols); ++d) up[d + d * m] = T(1);
          for (int64_t j = 0; j < vrows * n; ++j) vp[j] = T(0);
          for (int64_t d = 0; d < std::min(n, vrows); ++d) vp[d + d * vrows] = T(1);
        }
        continue;
      }
      gesdd_x(&jobz, &bm, &bn, ptr<T>(a) + i * b.stride(), &lda, ptr<R>(s) + i * k, up, &ldu, vp, &ldvt,
              work.data(), &lwork, rwork.data(), iwork.data(), ip);
    }
  });
}

void syevd(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info) {
  const Batch b(a);
  visit_real(a, [&]<class T>() {
    char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
    blasint n = to_blas(b.rows), lda = std::max<blasint>(1, n), inf = 0, lwork = -1, liwork = -1;
    for (int64_t i = 0; i < b.count; ++i) ptr<blasint>(info)[i] = 0;
    if (n == 0) return;
    T query{};
    blasint iquery = 0;
    syevd_fn(T{})(&jobz, &uplo, &n, nullptr, &lda, nullptr, &query, &lwork, &iquery, &liwork, &inf,
                  1, 1);
    lwork = work_size(query);
    liwork = std::max<blasint>(1, iquery);
    std::vector<T> work(static_cast<size_t>(lwork));
    std::vector<blasint> iwork(static_cast<size_t>(liwork));
    for (int64_t i = 0; i < b.count; ++i) {
      blasint* ip = ptr<blasint>(info) + i;
      syevd_fn(T{})(&jobz, &uplo, &n, ptr<T>(a) + i * b.stride(), &lda, ptr<T>(w) + i * n,
                    work.data(), &lwork, iwork.data(), &liwork, ip, 1, 1);
    }
  });
}

void gels(const std::string& driver, const Tensor& a, const Tensor& rhs, double rcond,
          const Tensor& rank, const Tensor& s, const Tensor& info) {
  const Batch ba(a), bb(rhs);
  const int64_t m = ba.rows, n = ba.cols, k = std::min(m, n);
  visit_real_or_complex(a, [&]<class T>() {
    using R = real_t<T>;
    blasint bm = to_blas(m), bn = to_blas(n), nrhs = to_blas(bb.cols),
            lda = std::max<blasint>(1, bm), ldb = std::max<blasint>(1, to_blas(bb.rows)), inf = 0,
            lwork = -1, rk = 0;
    R rc = static_cast<R>(rcond);
    T query{};
    char trans = 'N';
    std::vector<blasint> jpvt(static_cast<size_t>(std::max<int64_t>(1, n)));
    std::vector<R> sv(static_cast<size_t>(std::max<int64_t>(1, k)));
    // The complex drivers' real workspace: gelsy 2n, gelss 5 min(m, n), gelsd from its query.
    std::vector<R> rwork(static_cast<size_t>(std::max<int64_t>({1, 2 * n, 5 * k})));
    // gelsd's integer workspace (LAPACK's documented bound; its query answers it too).
    blasint iq = 1;
    std::vector<blasint> iwork(1);
    if (k > 0 && nrhs > 0) {
      if (driver == "gels") {
        gels_fn(T{})(&trans, &bm, &bn, &nrhs, nullptr, &lda, nullptr, &ldb, &query, &lwork, &inf, 1);
      } else if (driver == "gelsy") {
        gelsy_x(&bm, &bn, &nrhs, nullptr, &lda, nullptr, &ldb, jpvt.data(), &rc, &rk, &query, &lwork,
                rwork.data(), &inf);
      } else if (driver == "gelsd") {
        gelsd_x(&bm, &bn, &nrhs, nullptr, &lda, nullptr, &ldb, sv.data(), &rc, &rk, &query, &lwork,
                rwork.data(), &iq, &inf);
        iwork.resize(static_cast<size_t>(std::max<blasint>(1, iq)));
        if (is_complex_v<T>) rwork.resize(std::max(rwork.size(), static_cast<size_t>(std::ceil(rwork[0]))));
      } else {
        gelss_x(&bm, &bn, &nrhs, nullptr, &lda, nullptr, &ldb, sv.data(), &rc, &rk, &query, &lwork,
                rwork.data(), &inf);
      }
    }
    lwork = work_size(query);
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < ba.count; ++i) {
      T* ap = ptr<T>(a) + i * ba.stride();
      T* bp = ptr<T>(rhs) + i * bb.stride();
      rk = 0;
      inf = 0;
      if (k > 0 && nrhs > 0) {
        std::fill(jpvt.begin(), jpvt.end(), 0);
        if (driver == "gels") {
          gels_fn(T{})(&trans, &bm, &bn, &nrhs, ap, &lda, bp, &ldb, work.data(), &lwork, &inf, 1);
        } else if (driver == "gelsy") {
          gelsy_x(&bm, &bn, &nrhs, ap, &lda, bp, &ldb, jpvt.data(), &rc, &rk, work.data(), &lwork,
                  rwork.data(), &inf);
        } else if (driver == "gelsd") {
          gelsd_x(&bm, &bn, &nrhs, ap, &lda, bp, &ldb, sv.data(), &rc, &rk, work.data(), &lwork,
                  rwork.data(), iwork.data(), &inf);
        } else {
          gelss_x(&bm, &bn, &nrhs, ap, &lda, bp, &ldb, sv.data(), &rc, &rk, work.data(), &lwork,
                  rwork.data(), &inf);
        }
      } else if (k > 0 && driver != "gels") {
        // No right-hand sides: the rank (and gelsd / gelss's singular values) still need A's
        // factorization; one zero column stands in (gelss for gelsd: the same values).
        blasint one = 1, ldb1 = std::max<blasint>(1, std::max(bm, bn)), lq = -1;
        std::vector<T> b1(static_cast<size_t>(ldb1), T(0));
        T q1{};
        if (driver == "gelsy") {
          gelsy_x(&bm, &bn, &one, ap, &lda, b1.data(), &ldb1, jpvt.data(), &rc, &rk, &q1, &lq, rwork.data(), &inf);
        } else {
          gelss_x(&bm, &bn, &one, ap, &lda, b1.data(), &ldb1, sv.data(), &rc, &rk, &q1, &lq, rwork.data(), &inf);
        }
        lq = work_size(q1);
        std::vector<T> w1(static_cast<size_t>(lq));
        if (driver == "gelsy") {
          gelsy_x(&bm, &bn, &one, ap, &lda, b1.data(), &ldb1, jpvt.data(), &rc, &rk, w1.data(), &lq,
                  rwork.data(), &inf);
        } else {
          gelss_x(&bm, &bn, &one, ap, &lda, b1.data(), &ldb1, sv.data(), &rc, &rk, w1.data(), &lq,
                  rwork.data(), &inf);
        }
      }
      ptr<blasint>(info)[i] = inf;
      if (rank.defined()) ptr<int64_t>(rank)[i] = rk;
      if (s.defined()) std::copy(sv.begin(), sv.begin() + k, ptr<R>(s) + i * k);
    }
  });
}

void trsm(const Tensor& a, const Tensor& rhs, bool upper, bool left, bool transpose, bool unit) {
  const Batch ba(a), bb(rhs);
  visit_real_or_complex(a, [&]<class T>() {
    const blasint m = to_blas(bb.rows), n = to_blas(bb.cols), lda = std::max<blasint>(1, to_blas(ba.rows)),
                  ldb = std::max<blasint>(1, m);
    if (m == 0 || n == 0) return;
    const auto side = left ? CblasLeft : CblasRight;
    const auto uplo = upper ? CblasUpper : CblasLower;
    const auto tr = !transpose ? CblasNoTrans : is_complex_v<T> ? CblasConjTrans : CblasTrans;
    const auto diag = unit ? CblasUnit : CblasNonUnit;
    const T one(1);
    for (int64_t i = 0; i < bb.count; ++i) {
      T* ap = ptr<T>(a) + i * ba.stride();
      T* bp = ptr<T>(rhs) + i * bb.stride();
      if constexpr (std::is_same_v<T, double>) {
        cblas_dtrsm(CblasColMajor, side, uplo, tr, diag, m, n, one, ap, lda, bp, ldb);
      } else if constexpr (std::is_same_v<T, float>) {
        cblas_strsm(CblasColMajor, side, uplo, tr, diag, m, n, one, ap, lda, bp, ldb);
      } else if constexpr (std::is_same_v<T, std::complex<float>>) {
        cblas_ctrsm(CblasColMajor, side, uplo, tr, diag, m, n, &one, ap, lda, bp, ldb);
      } else {
        cblas_ztrsm(CblasColMajor, side, uplo, tr, diag, m, n, &one, ap, lda, bp, ldb);
      }
    }
  });
}

void det_from_lu(const Tensor& lu, const Tensor& pivots, const Tensor& det) {
  const Batch b(lu);
  const int64_t n = b.rows;
  visit_real_or_complex(lu, [&]<class T>() {
    for (int64_t i = 0; i < b.count; ++i) {
      const T* a = ptr<T>(lu) + i * b.stride();
      const int32_t* piv = ptr<int32_t>(pivots) + i * n;
      T d = T(1);
      for (int64_t j = 0; j < n; ++j) d *= piv[j] != j + 1 ? -a[j + j * n] : a[j + j * n];
      ptr<T>(det)[i] = d;
    }
  });
}

// sign: real or complex as the matrices (the product of the diagonal's phases, with the
// permutation's parity); logabsdet: always real.
void slogdet_from_lu(const Tensor& lu, const Tensor& pivots, const Tensor& sign,
                     const Tensor& logabsdet) {
  const Batch b(lu);
  const int64_t n = b.rows;
  visit_real_or_complex(lu, [&]<class T>() {
    using R = real_t<T>;
    for (int64_t i = 0; i < b.count; ++i) {
      const T* a = ptr<T>(lu) + i * b.stride();
      const int32_t* piv = ptr<int32_t>(pivots) + i * n;
      T s = T(1);
      R l = R(0);
      for (int64_t j = 0; j < n; ++j) {
        const T v = a[j + j * n];
        const R av = std::abs(v);
        if (piv[j] != j + 1) s = -s;
        s = av == R(0) ? T(0) : s * (v / av);
        l += std::log(av);
      }
      ptr<T>(sign)[i] = s;
      ptr<R>(logabsdet)[i] = l;
    }
  });
}

// P, L, U are row-major contiguous here (they are fresh outputs); lu is batched column-major.
void lu_unpack(const Tensor& lu, const Tensor& pivots, const Tensor& p, const Tensor& l,
               const Tensor& u) {
  const Batch b(lu);
  const int64_t m = b.rows, n = b.cols, k = std::min(m, n);
  visit_real_or_complex(lu, [&]<class T>() {
    std::vector<int64_t> perm(static_cast<size_t>(m));
    for (int64_t i = 0; i < b.count; ++i) {
      const T* a = ptr<T>(lu) + i * b.stride();
      if (l.defined()) {
        T* lp = ptr<T>(l) + i * m * k;
        for (int64_t r = 0; r < m; ++r)
          for (int64_t c = 0; c < k; ++c) lp[r * k + c] = r == c ? T(1) : r > c ? a[r + c * m] : T(0);
      }
      if (u.defined()) {
        T* up = ptr<T>(u) + i * k * n;
        for (int64_t r = 0; r < k; ++r)
          for (int64_t c = 0; c < n; ++c) up[r * n + c] = r <= c ? a[r + c * m] : T(0);
      }
      if (p.defined()) {
        // getrf swapped row j with row piv[j] - 1, in order: replay the swaps on 0..m-1.
        for (int64_t r = 0; r < m; ++r) perm[r] = r;
        const int32_t* piv = ptr<int32_t>(pivots) + i * k;
        for (int64_t j = 0; j < k; ++j) {
          const int64_t to = piv[j] - 1;
          EMBER_CHECK(to >= 0 && to < m, "lu_unpack: pivots must be in 1..", m, ", got ", piv[j]);
          std::swap(perm[j], perm[to]);
        }
        T* pp = ptr<T>(p) + i * m * m;
        std::fill(pp, pp + m * m, T(0));
        for (int64_t c = 0; c < m; ++c) pp[perm[c] * m + c] = T(1);  // A = P L U
      }
    }
  });
}

}  // namespace ember::cpu::lapack
