// geev over OpenBLAS's LAPACK (lapack_eig.h), through the Fortran symbols as lapack.cpp calls
// them (Note [LAPACK through the Fortran symbols]).
#include "lapack_eig.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "ember/error.h"

extern "C" {
void sgeev_(char* jobvl, char* jobvr, blasint* n, float* a, blasint* lda, float* wr, float* wi, float* vl,
            blasint* ldvl, float* vr, blasint* ldvr, float* work, blasint* lwork, blasint* info, size_t, size_t);
void dgeev_(char* jobvl, char* jobvr, blasint* n, double* a, blasint* lda, double* wr, double* wi, double* vl,
            blasint* ldvl, double* vr, blasint* ldvr, double* work, blasint* lwork, blasint* info, size_t, size_t);
void cgeev_(char* jobvl, char* jobvr, blasint* n, std::complex<float>* a, blasint* lda, std::complex<float>* w,
            std::complex<float>* vl, blasint* ldvl, std::complex<float>* vr, blasint* ldvr,
            std::complex<float>* work, blasint* lwork, float* rwork, blasint* info, size_t, size_t);
void zgeev_(char* jobvl, char* jobvr, blasint* n, std::complex<double>* a, blasint* lda, std::complex<double>* w,
            std::complex<double>* vl, blasint* ldvl, std::complex<double>* vr, blasint* ldvr,
            std::complex<double>* work, blasint* lwork, double* rwork, blasint* info, size_t, size_t);
void cheevd_(char* jobz, char* uplo, blasint* n, std::complex<float>* a, blasint* lda, float* w,
             std::complex<float>* work, blasint* lwork, float* rwork, blasint* lrwork, blasint* iwork,
             blasint* liwork, blasint* info, size_t, size_t);
void zheevd_(char* jobz, char* uplo, blasint* n, std::complex<double>* a, blasint* lda, double* w,
             std::complex<double>* work, blasint* lwork, double* rwork, blasint* lrwork, blasint* iwork,
             blasint* liwork, blasint* info, size_t, size_t);
}

namespace ember::cpu::lapack {

namespace {

inline void geev_real(char* jl, char* jr, blasint* n, float* a, blasint* lda, float* wr, float* wi, float* vr,
                      blasint* ldvr, float* work, blasint* lwork, blasint* info) {
  blasint one = 1;
  sgeev_(jl, jr, n, a, lda, wr, wi, nullptr, &one, vr, ldvr, work, lwork, info, 1, 1);
}
inline void geev_real(char* jl, char* jr, blasint* n, double* a, blasint* lda, double* wr, double* wi, double* vr,
                      blasint* ldvr, double* work, blasint* lwork, blasint* info) {
  blasint one = 1;
  dgeev_(jl, jr, n, a, lda, wr, wi, nullptr, &one, vr, ldvr, work, lwork, info, 1, 1);
}
inline void geev_complex(char* jl, char* jr, blasint* n, std::complex<float>* a, blasint* lda,
                         std::complex<float>* w, std::complex<float>* vr, blasint* ldvr, std::complex<float>* work,
                         blasint* lwork, float* rwork, blasint* info) {
  blasint one = 1;
  cgeev_(jl, jr, n, a, lda, w, nullptr, &one, vr, ldvr, work, lwork, rwork, info, 1, 1);
}
inline void geev_complex(char* jl, char* jr, blasint* n, std::complex<double>* a, blasint* lda,
                         std::complex<double>* w, std::complex<double>* vr, blasint* ldvr, std::complex<double>* work,
                         blasint* lwork, double* rwork, blasint* info) {
  blasint one = 1;
  zgeev_(jl, jr, n, a, lda, w, nullptr, &one, vr, ldvr, work, lwork, rwork, info, 1, 1);
}

blasint to_blas(int64_t v) {
  EMBER_CHECK(v <= std::numeric_limits<blasint>::max(), "linalg: dimension ", v,
              " is too large for LAPACK's 32-bit integers");
  return static_cast<blasint>(v);
}

template <class T>
blasint work_size(T query) {
  return std::max<blasint>(1, static_cast<blasint>(std::ceil(static_cast<double>(std::real(query)))));
}

// Real input: w = wr + i wi; a pair wi[j] > 0, wi[j+1] < 0 has the eigenvectors
// vr[:, j] +- i vr[:, j+1].
template <class R>
void geev_real_batch(const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info, int64_t count, int64_t n) {
  using C = std::complex<R>;
  const bool vectors = v.defined();
  char jl = 'N', jr = vectors ? 'V' : 'N';
  blasint bn = to_blas(n), lda = std::max<blasint>(1, bn), ldv = lda, lwork = -1, inf = 0;
  std::vector<R> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n));
  std::vector<R> vr(vectors ? static_cast<size_t>(n * n) : 1);
  R query{};
  geev_real(&jl, &jr, &bn, nullptr, &lda, wr.data(), wi.data(), vr.data(), &ldv, &query, &lwork, &inf);
  lwork = work_size(query);
  std::vector<R> work(static_cast<size_t>(lwork));
  for (int64_t b = 0; b < count; ++b) {
    blasint* ib = static_cast<blasint*>(info.data_ptr()) + b;
    geev_real(&jl, &jr, &bn, static_cast<R*>(a.data_ptr()) + b * n * n, &lda, wr.data(), wi.data(), vr.data(), &ldv,
              work.data(), &lwork, ib);
    C* wo = static_cast<C*>(w.data_ptr()) + b * n;
    for (int64_t j = 0; j < n; ++j) wo[j] = C(wr[static_cast<size_t>(j)], wi[static_cast<size_t>(j)]);
    if (!vectors) continue;
    C* vo = static_cast<C*>(v.data_ptr()) + b * n * n;
    for (int64_t j = 0; j < n; ++j) {
      const R* col = vr.data() + j * n;
      if (wi[static_cast<size_t>(j)] == R(0) || j + 1 == n) {
        for (int64_t i = 0; i < n; ++i) vo[j * n + i] = C(col[i], 0);
      } else {
        const R* next = col + n;
        for (int64_t i = 0; i < n; ++i) {
          vo[j * n + i] = C(col[i], next[i]);
          vo[(j + 1) * n + i] = C(col[i], -next[i]);
        }
        ++j;
      }
    }
  }
}

template <class R>
void geev_complex_batch(const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info, int64_t count,
                        int64_t n) {
  using C = std::complex<R>;
  const bool vectors = v.defined();
  char jl = 'N', jr = vectors ? 'V' : 'N';
  blasint bn = to_blas(n), lda = std::max<blasint>(1, bn), ldv = lda, lwork = -1, inf = 0;
  std::vector<R> rwork(static_cast<size_t>(std::max<int64_t>(1, 2 * n)));
  std::vector<C> vr(vectors ? static_cast<size_t>(n * n) : 1);
  C query{};
  geev_complex(&jl, &jr, &bn, nullptr, &lda, nullptr, vr.data(), &ldv, &query, &lwork, rwork.data(), &inf);
  lwork = work_size(query);
  std::vector<C> work(static_cast<size_t>(lwork));
  for (int64_t b = 0; b < count; ++b) {
    C* vo = vectors ? static_cast<C*>(v.data_ptr()) + b * n * n : vr.data();
    geev_complex(&jl, &jr, &bn, static_cast<C*>(a.data_ptr()) + b * n * n, &lda, static_cast<C*>(w.data_ptr()) + b * n,
                 vo, &ldv, work.data(), &lwork, rwork.data(), static_cast<blasint*>(info.data_ptr()) + b);
  }
}

inline auto heevd_fn(float) { return &cheevd_; }
inline auto heevd_fn(double) { return &zheevd_; }

template <class R>
void heevd_batch(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info, int64_t count,
                 int64_t n) {
  using C = std::complex<R>;
  char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  blasint bn = to_blas(n), lda = std::max<blasint>(1, bn), inf = 0, lwork = -1, lrwork = -1, liwork = -1;
  C query{};
  R rquery{};
  blasint iquery = 0;
  heevd_fn(R{})(&jobz, &uplo, &bn, nullptr, &lda, nullptr, &query, &lwork, &rquery, &lrwork, &iquery, &liwork, &inf,
                1, 1);
  lwork = work_size(query);
  lrwork = work_size(rquery);
  liwork = std::max<blasint>(1, iquery);
  std::vector<C> work(static_cast<size_t>(lwork));
  std::vector<R> rwork(static_cast<size_t>(lrwork));
  std::vector<blasint> iwork(static_cast<size_t>(liwork));
  for (int64_t b = 0; b < count; ++b) {
    heevd_fn(R{})(&jobz, &uplo, &bn, static_cast<C*>(a.data_ptr()) + b * n * n, &lda,
                  static_cast<R*>(w.data_ptr()) + b * n, work.data(), &lwork, rwork.data(), &lrwork, iwork.data(),
                  &liwork, static_cast<blasint*>(info.data_ptr()) + b, 1, 1);
  }
}

}  // namespace

void heevd(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info) {
  const int64_t n = a.size(-1);
  int64_t count = 1;
  for (int64_t d = 0; d + 2 < a.dim(); ++d) count *= a.size(d);
  for (int64_t b = 0; b < count; ++b) static_cast<blasint*>(info.data_ptr())[b] = 0;
  if (n == 0 || count == 0) return;
  if (a.dtype() == kComplexFloat) heevd_batch<float>(a, w, vectors, upper, info, count, n);
  else heevd_batch<double>(a, w, vectors, upper, info, count, n);
}

void geev(const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info) {
  const int64_t n = a.size(-1);
  int64_t count = 1;
  for (int64_t d = 0; d + 2 < a.dim(); ++d) count *= a.size(d);
  for (int64_t b = 0; b < count; ++b) static_cast<blasint*>(info.data_ptr())[b] = 0;
  if (n == 0 || count == 0) return;
  switch (a.dtype()) {
    case kFloat32: geev_real_batch<float>(a, w, v, info, count, n); break;
    case kFloat64: geev_real_batch<double>(a, w, v, info, count, n); break;
    case kComplexFloat: geev_complex_batch<float>(a, w, v, info, count, n); break;
    case kComplexDouble: geev_complex_batch<double>(a, w, v, info, count, n); break;
    default: EMBER_ASSERT(false, "geev takes float32 / float64 / complex64 / complex128");
  }
}

}  // namespace ember::cpu::lapack
