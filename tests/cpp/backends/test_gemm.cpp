// Tests for ember::cpu::gemm (library-backed) against ember::cpu::gemm_ref (scalar reference).
//
// Standalone build (from the repository root; one line):
//   g++ -std=c++20 -O2 -Wall -Wextra -Werror -Iinclude -Isrc -I/usr/include/x86_64-linux-gnu/openblas-pthread tests/cpp/backends/test_gemm.cpp src/backends/cpu/gemm.cpp src/core/parallel.cpp -o /tmp/test_gemm -ldnnl -L/usr/lib/x86_64-linux-gnu/openblas-pthread -lopenblas -lgomp -lgtest -lgtest_main -pthread
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

#include "backends/cpu/gemm.h"
#include "ember/error.h"

namespace {

using ember::cpu::gemm;
using ember::cpu::gemm_ref;

// A row-major matrix with `pad` extra columns of slack (ld = cols + pad). The slack is filled
// with a sentinel so tests can check that gemm never writes outside the logical matrix.
template <typename T>
struct Mat {
  int64_t rows, cols, ld;
  std::vector<T> data;
  Mat(int64_t r, int64_t c, int64_t pad, std::mt19937& rng)
      : rows(r), cols(c), ld(c + pad), data(std::max<int64_t>(r * (c + pad), 1), T(-777)) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j) data[i * ld + j] = T(dist(rng));
  }
  T& at(int64_t i, int64_t j) { return data[i * ld + j]; }
};

template <typename T>
class GemmTest : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GemmTest, Types);

// Runs gemm and gemm_ref on identical inputs and compares elementwise, including the padding.
template <typename T>
void check_case(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, T beta, int64_t pad,
                bool nan_c = false) {
  SCOPED_TRACE(::testing::Message() << "ta=" << ta << " tb=" << tb << " m=" << m << " n=" << n
                                    << " k=" << k << " alpha=" << alpha << " beta=" << beta
                                    << " pad=" << pad << " nan_c=" << nan_c);
  std::mt19937 rng(1234 + m * 7 + n * 13 + k * 17);
  Mat<T> a(ta ? k : m, ta ? m : k, pad, rng);
  Mat<T> b(tb ? n : k, tb ? k : n, pad, rng);
  Mat<T> c(m, n, pad, rng);
  if (nan_c)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c.at(i, j) = std::numeric_limits<T>::quiet_NaN();
  Mat<T> expect = c;

  gemm(ta, tb, m, n, k, alpha, a.data.data(), a.ld, b.data.data(), b.ld, beta, c.data.data(),
       c.ld);
  gemm_ref(ta, tb, m, n, k, alpha, a.data.data(), a.ld, b.data.data(), b.ld, beta,
           expect.data.data(), expect.ld);

  // Entries are in [-1, 1], so |result| <= |alpha| k + |beta|. The classic dot-product error
  // bound is ~k*eps times that; use it (times 4): far above what blocked GEMMs actually produce,
  // far below the O(1) errors an indexing or transpose mistake causes.
  const double eps = std::numeric_limits<T>::epsilon();
  const double bound = std::abs(double(alpha)) * double(k) + std::abs(double(beta)) + 1;
  const double tol = 4 * eps * double(std::max<int64_t>(k, 1)) * bound;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < c.ld; ++j) {
      const T got = c.at(i, j), want = expect.at(i, j);
      if (j >= n) {
        ASSERT_EQ(got, T(-777)) << "wrote into ldc padding at (" << i << "," << j << ")";
      } else {
        ASSERT_TRUE(std::isfinite(got)) << "at (" << i << "," << j << ")";
        ASSERT_NEAR(got, want, tol) << "at (" << i << "," << j << ")";
      }
    }
  }
}

TYPED_TEST(GemmTest, ShapesTransposesAndLeadingDims) {
  using T = TypeParam;
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {
      {1, 1, 1},    {7, 5, 3},     {5, 7, 1},   {64, 64, 64}, {33, 17, 129},
      {128, 1, 300}, {1, 200, 50}, {255, 257, 31}, {3, 129, 513}};
  for (auto [m, n, k] : shapes)
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (int64_t pad : {0, 3}) check_case<T>(ta, tb, m, n, k, T(1), T(0), pad);
}

TYPED_TEST(GemmTest, AlphaBeta) {
  using T = TypeParam;
  for (auto [alpha, beta] : {std::pair{1.0, 1.0}, {0.5, 2.0}, {-1.5, -0.25}, {2.0, 0.0}})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) check_case<T>(ta, tb, 37, 23, 19, T(alpha), T(beta), 2);
}

TYPED_TEST(GemmTest, BetaZeroOverwritesNaN) {
  using T = TypeParam;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      check_case<T>(ta, tb, 9, 11, 13, T(1), T(0), 1, /*nan_c=*/true);
      check_case<T>(ta, tb, 100, 96, 64, T(-2), T(0), 0, /*nan_c=*/true);
    }
}

TYPED_TEST(GemmTest, KZero) {
  using T = TypeParam;
  for (double beta : {0.0, 1.0, 3.0}) check_case<T>(false, false, 6, 4, 0, T(1), T(beta), 2);
  check_case<T>(true, true, 6, 4, 0, T(1), T(0), 1, /*nan_c=*/true);  // NaN -> 0

  // A and B are never read when k == 0: null pointers must be fine.
  std::vector<T> c(6, T(5));
  gemm(false, false, 2, 3, 0, T(1), static_cast<const T*>(nullptr), 1,
       static_cast<const T*>(nullptr), 3, T(0.5), c.data(), 3);
  for (T v : c) EXPECT_EQ(v, T(2.5));
}

TYPED_TEST(GemmTest, AlphaZeroDoesNotReadAB) {
  using T = TypeParam;
  // BLAS semantics: alpha == 0 means C = beta * C even if A/B hold NaN.
  std::vector<T> a(4 * 3, std::numeric_limits<T>::quiet_NaN()), b(3 * 5, T(1)), c(4 * 5, T(2));
  gemm(false, false, 4, 5, 3, T(0), a.data(), 3, b.data(), 5, T(3), c.data(), 5);
  for (T v : c) EXPECT_EQ(v, T(6));
}

TYPED_TEST(GemmTest, EmptyMOrNIsNoOp) {
  using T = TypeParam;
  std::vector<T> c(4, T(9));
  gemm(false, false, 0, 4, 5, T(1), static_cast<const T*>(nullptr), 5,
       static_cast<const T*>(nullptr), 4, T(0), c.data(), 4);
  gemm(false, false, 4, 0, 5, T(1), static_cast<const T*>(nullptr), 5,
       static_cast<const T*>(nullptr), 1, T(0), c.data(), 1);
  for (T v : c) EXPECT_EQ(v, T(9));
}

TYPED_TEST(GemmTest, RejectsBadLeadingDimensions) {
  using T = TypeParam;
  std::vector<T> a(64, T(1)), b(64, T(1)), c(64, T(0));
  EXPECT_THROW(gemm(false, false, 4, 4, 4, T(1), a.data(), 3, b.data(), 4, T(0), c.data(), 4),
               ember::Error);  // lda < k
  EXPECT_THROW(gemm(false, true, 4, 4, 4, T(1), a.data(), 4, b.data(), 3, T(0), c.data(), 4),
               ember::Error);  // ldb < k for transposed B
  EXPECT_THROW(gemm(false, false, 4, 4, 4, T(1), a.data(), 4, b.data(), 4, T(0), c.data(), 2),
               ember::Error);  // ldc < n
  EXPECT_THROW(gemm(false, false, -1, 4, 4, T(1), a.data(), 4, b.data(), 4, T(0), c.data(), 4),
               ember::Error);
}

// The reference itself, on a hand-computed example (also covers integer T).
TEST(GemmRef, Int64HandComputed) {
  // A = [[1,2,3],[4,5,6]] (2x3), B = [[7,8],[9,10],[11,12]] (3x2), A*B = [[58,64],[139,154]].
  const std::vector<int64_t> a = {1, 2, 3, 4, 5, 6}, b = {7, 8, 9, 10, 11, 12};
  const std::vector<int64_t> at = {1, 4, 2, 5, 3, 6}, bt = {7, 9, 11, 8, 10, 12};
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      std::vector<int64_t> c = {1, 1, 1, 1};
      gemm_ref<int64_t>(ta, tb, 2, 2, 3, 2, (ta ? at : a).data(), ta ? 2 : 3,
                        (tb ? bt : b).data(), tb ? 3 : 2, 10, c.data(), 2);
      EXPECT_EQ(c, (std::vector<int64_t>{126, 138, 288, 318})) << "ta=" << ta << " tb=" << tb;
    }
}

TEST(GemmRef, FloatBetaZeroIgnoresNaN) {
  const float a[2] = {1, 2}, b[2] = {3, 4};
  float c[1] = {std::numeric_limits<float>::quiet_NaN()};
  gemm_ref<float>(false, false, 1, 1, 2, 1.f, a, 2, b, 1, 0.f, c, 1);
  EXPECT_EQ(c[0], 11.f);
}

// set_gemm_num_threads must reach threads other than the caller (libgomp's thread count is a
// per-thread value), and results must not depend on the thread count.
TEST(GemmThreads, AppliesToOtherThreadsAndKeepsResults) {
  EXPECT_THROW(ember::cpu::set_gemm_num_threads(0), ember::Error);
  const int64_t n = 192;
  std::vector<float> a(n * n), b(n * n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (auto& x : a) x = dist(rng);
  for (auto& x : b) x = dist(rng);
  auto run = [&] {
    std::vector<float> c(n * n);
    gemm(false, false, n, n, n, 1.f, a.data(), n, b.data(), n, 0.f, c.data(), n);
    return c;
  };
  for (int threads : {1, 2}) {
    ember::cpu::set_gemm_num_threads(threads);
    EXPECT_EQ(ember::cpu::get_gemm_num_threads(), threads);
    std::vector<float> c;
    int seen = -1;
    bool restored = false;
    std::thread worker([&] {
      const int before = omp_get_max_threads();
      c = run();
      {
        // the team a oneDNN call on this thread runs with; the thread's own OpenMP setting is
        // put back afterwards (other libraries in the process, such as libtorch, read it)
        const ember::cpu::ScopedOnednnThreads scope;
        seen = scope.threads();
      }
      restored = omp_get_max_threads() == before;
    });
    worker.join();
    EXPECT_EQ(seen, threads);
    EXPECT_TRUE(restored);
    std::vector<float> c_main = run();
    for (int64_t i = 0; i < n * n; ++i) ASSERT_NEAR(c[i], c_main[i], 1e-4f);
  }
}

}  // namespace
