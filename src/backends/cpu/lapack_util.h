// Helpers shared by the LAPACK kernels of lapack.cpp and lapack_more.cpp: OpenBLAS's 32-bit
// sizes, batches of column-major matrices (Note [LAPACK layout], lapack.h), the float / double
// switch and workspace queries.
#pragma once

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "ember/error.h"
#include "ember/tensor.h"

namespace ember::cpu::lapack {

inline blasint to_blas(int64_t v) {
  EMBER_CHECK(v <= std::numeric_limits<blasint>::max(), "linalg: dimension ", v,
              " is too large for LAPACK's 32-bit integers");
  return static_cast<blasint>(v);
}

// The matrices of a batched column-major tensor: count, rows, cols, and a pointer per batch.
struct Batch {
  int64_t count, rows, cols;
  explicit Batch(const Tensor& t) : rows(t.size(-2)), cols(t.size(-1)) {
    count = 1;
    for (int64_t d = 0; d + 2 < t.dim(); ++d) count *= t.size(d);
  }
  int64_t stride() const { return rows * cols; }
};

template <class T>
inline T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// Runs f.template operator()<T>() for the tensor's float dtype.
template <class F>
inline void visit_real(const Tensor& t, F&& f) {
  if (t.dtype() == kFloat64) {
    f.template operator()<double>();
  } else {
    EMBER_ASSERT(t.dtype() == kFloat32, "lapack kernels take float32 / float64");
    f.template operator()<float>();
  }
}

// visit_real, and complex64 / complex128 too (the LU-based kernels: getrf, getri, getrs, det).
template <class F>
inline void visit_real_or_complex(const Tensor& t, F&& f) {
  if (t.dtype() == kComplexFloat) {
    f.template operator()<std::complex<float>>();
  } else if (t.dtype() == kComplexDouble) {
    f.template operator()<std::complex<double>>();
  } else {
    visit_real(t, std::forward<F>(f));
  }
}

// The real type under T (float for std::complex<float>), and whether T is complex.
template <class T>
struct real_of {
  using type = T;
};
template <class T>
struct real_of<std::complex<T>> {
  using type = T;
};
template <class T>
using real_t = typename real_of<T>::type;
template <class T>
inline constexpr bool is_complex_v = !std::is_same_v<T, real_t<T>>;

// The element count of a workspace query's answer (LAPACK returns it as a floating number,
// complex for the complex routines).
template <class T>
inline blasint work_size(T query) {
  return std::max<blasint>(1, static_cast<blasint>(std::ceil(static_cast<double>(std::real(query)))));
}

}  // namespace ember::cpu::lapack
