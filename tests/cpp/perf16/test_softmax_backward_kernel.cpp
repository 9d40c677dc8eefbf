// The fused last-dim softmax / log_softmax backward (softmax_kernels.cpp) against its double
// reference on odd row lengths, and softmax forward over masked (-inf) scores, which must give
// exact zeros there (the lanes computed from 0, Note in exp_le0).
#include <cmath>
#include <limits>
#include <vector>

#include "backends/cpu/softmax_kernels.h"
#include "ember/ops/factory.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/parallel.h"
#include "testing.h"

namespace ember::cpu {
namespace {

TEST(Perf16SoftmaxBackward, FastMatchesRefOnOddRows) {
  const int previous_threads = get_num_threads();
  for (ScalarType dt : {kFloat32, kFloat64}) {
    for (auto [rows, len] : std::vector<std::pair<int64_t, int64_t>>{
             {1, 1}, {3, 5}, {7, 17}, {33, 64}, {129, 31}, {4, 100}}) {
      for (bool log : {false, true}) {
        for (int threads : {1, 2}) {
          set_num_threads(threads);
          const Tensor x = randn({rows, len}, dt);
          Tensor y = empty({rows, len}, dt);
          softmax_kernel(y, x, 1, log);
          const Tensor g = randn({rows, len}, dt);
          Tensor gi = empty({rows, len}, dt);
          softmax_backward_lastdim_kernel(gi, g, y, log);
          const std::vector<double> got = testing::values(gi);
          const std::vector<double> want = testing::values(softmax_backward_lastdim_ref(g, y, log));
          const double tol = dt == kFloat64 ? 1e-12 : 2e-6;
          for (size_t i = 0; i < got.size(); ++i) {
            ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i])))
                << "rows " << rows << " len " << len << " log " << log << " at " << i;
          }
        }
      }
    }
  }
  set_num_threads(previous_threads);
}

TEST(Perf16SoftmaxBackward, LogOutputAboveZeroStillExact) {
  // A direct call may pass any `output`: exp over the whole range.
  const Tensor y = testing::from_values({0.5, 3.0, -2.0, 10.0, -100.0}, {1, 5});
  const Tensor g = testing::from_values({1.0, -1.0, 0.5, 0.25, 2.0}, {1, 5});
  Tensor gi = empty({1, 5});
  softmax_backward_lastdim_kernel(gi, g, y, true);
  const std::vector<double> got = testing::values(gi);
  const std::vector<double> want = testing::values(softmax_backward_lastdim_ref(g, y, true));
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 4e-7 * (1 + std::abs(want[i])));
}

TEST(Perf16SoftmaxBackward, MaskedScoresGiveExactZeros) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<double> v;
  for (int r = 0; r < 9; ++r)
    for (int k = 0; k < 37; ++k) v.push_back(k > r * 4 ? -inf : 0.1 * (k - r));
  const Tensor x = testing::from_values(v, {9, 37});
  Tensor y = empty({9, 37});
  softmax_kernel(y, x, 1, false);
  const std::vector<double> got = testing::values(y);
  const std::vector<double> want = testing::values(softmax_ref(x, 1, false));
  for (size_t i = 0; i < got.size(); ++i) {
    if (want[i] == 0) {
      EXPECT_EQ(got[i], 0.0) << i;
    } else {
      EXPECT_NEAR(got[i], want[i], 2e-7 * (1 + want[i])) << i;
    }
  }
}

}  // namespace
}  // namespace ember::cpu
