// The float GEMM's split over ember's pool (Note [Float GEMM on ember's pool] in gemm.cpp):
// row blocks (m >= n) and column blocks (m < n), every transpose, leading dimensions wider than
// the matrices, beta 0 and 1, on one and two threads, against a double-accumulating reference.
#include <cmath>
#include <random>
#include <vector>

#include "backends/cpu/gemm.h"
#include "ember/parallel.h"
#include "testing.h"

namespace ember::cpu {
namespace {

struct Case {
  int64_t m, n, k;
};

TEST(Perf16GemmSplit, BlocksMatchTheReference) {
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const int previous_threads = get_num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    for (Case c : {Case{1000, 70, 64}, Case{70, 1000, 64}, Case{257, 255, 97}, Case{33, 2049, 8},
                   Case{4099, 17, 19}, Case{64, 64, 64}}) {
      for (int ta = 0; ta < 2; ++ta) {
        for (int tb = 0; tb < 2; ++tb) {
          for (float beta : {0.0f, 1.0f}) {
            const int64_t lda = (ta ? c.m : c.k) + 3, ldb = (tb ? c.k : c.n) + 5, ldc = c.n + 7;
            std::vector<float> a((ta ? c.k : c.m) * lda), b((tb ? c.n : c.k) * ldb), cm(c.m * ldc);
            for (float& v : a) v = u(rng);
            for (float& v : b) v = u(rng);
            for (float& v : cm) v = u(rng);
            const std::vector<float> c0 = cm;
            gemm(ta, tb, c.m, c.n, c.k, 0.5f, a.data(), lda, b.data(), ldb, beta, cm.data(), ldc);
            for (int64_t i = 0; i < c.m; ++i) {
              for (int64_t j = 0; j < c.n; ++j) {
                double s = 0;
                for (int64_t p = 0; p < c.k; ++p) {
                  const double av = ta ? a[p * lda + i] : a[i * lda + p];
                  const double bv = tb ? b[j * ldb + p] : b[p * ldb + j];
                  s += av * bv;
                }
                const double want = 0.5 * s + beta * c0[i * ldc + j];
                ASSERT_NEAR(cm[i * ldc + j], want, 1e-5 * (1 + std::sqrt(double(c.k))))
                    << "m " << c.m << " n " << c.n << " k " << c.k << " ta " << ta << " tb " << tb
                    << " threads " << threads << " at " << i << "," << j;
              }
              // The padding past n is untouched.
              for (int64_t j = c.n; j < ldc; ++j) ASSERT_EQ(cm[i * ldc + j], c0[i * ldc + j]);
            }
          }
        }
      }
    }
  }
  set_num_threads(previous_threads);
}

}  // namespace
}  // namespace ember::cpu
