// LayerNorm's fused kernels (src/backends/cpu/layer_norm_kernels.cpp) against their double
// references: odd row lengths (16-lane partial sums plus a tail), one row, many rows over
// threads, with and without weight / bias, every floating dtype; and native_layer_norm /
// native_layer_norm_backward through the ops (meta, gradients against the Tensor-op formula).
#include <cmath>
#include <tuple>
#include <vector>

#include "backends/cpu/layer_norm_kernels.h"
#include "ember/autograd/gradcheck.h"
#include "ember/ops/factory.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/reduce.h"
#include "ember/parallel.h"
#include "testing.h"

namespace ember::cpu {
namespace {

double tol_of(ScalarType t) {
  return t == kFloat64 ? 1e-12 : t == kFloat32 ? 2e-5 : t == kBFloat16 ? 3e-2 : 4e-3;
}

void expect_close(const Tensor& got, const Tensor& want, double tol, const char* what) {
  const std::vector<double> g = testing::values(got), w = testing::values(want);
  ASSERT_EQ(g.size(), w.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i])) {  // empty rows: 0 / 0 on both sides, as PyTorch's
      ASSERT_TRUE(std::isnan(g[i])) << what << " at " << i;
      continue;
    }
    ASSERT_NEAR(g[i], w[i], tol * (1.0 + std::abs(w[i]))) << what << " at " << i;
  }
}

ScalarType stat_dtype(ScalarType t) { return t == kFloat16 || t == kBFloat16 ? kFloat32 : t; }

TEST(Perf16LayerNorm, FastMatchesRefOnOddSizes) {
  const int previous_threads = get_num_threads();
  for (ScalarType dt : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{
             {1, 1}, {1, 17}, {3, 5}, {7, 33}, {129, 64}, {65, 100}, {2, 0}, {0, 9}}) {
      for (int affine = 0; affine < 4; ++affine) {
        for (int threads : {1, 2}) {
          set_num_threads(threads);
          const Tensor x = (randn({rows, cols}) * 3 + 1.5).to(dt);
          const Tensor w = affine & 1 ? randn({cols}).to(dt) : Tensor();
          const Tensor b = affine & 2 ? randn({cols}).to(dt) : Tensor();
          const Tensor dy = randn({rows, cols}).to(dt);
          Tensor y = empty({rows, cols}, dt), y_ref = empty({rows, cols}, dt);
          Tensor mean = empty({rows}, stat_dtype(dt)), rstd = empty({rows}, stat_dtype(dt));
          Tensor mean_ref = empty({rows}, stat_dtype(dt)), rstd_ref = empty({rows}, stat_dtype(dt));
          layer_norm_kernel(y, mean, rstd, x, w, b, rows, cols, 1e-5);
          layer_norm_ref(y_ref, mean_ref, rstd_ref, x, w, b, rows, cols, 1e-5);
          const double tol = tol_of(dt);
          expect_close(y, y_ref, tol, "y");
          expect_close(mean, mean_ref, tol_of(stat_dtype(dt)), "mean");
          expect_close(rstd, rstd_ref, tol_of(stat_dtype(dt)), "rstd");
          Tensor dx = empty({rows, cols}, dt), dx_ref = empty({rows, cols}, dt);
          Tensor dw = empty({cols}, dt), dw_ref = empty({cols}, dt);
          Tensor db = empty({cols}, dt), db_ref = empty({cols}, dt);
          layer_norm_backward_kernel(dx, dw, db, dy, x, mean_ref, rstd_ref, w, rows, cols);
          layer_norm_backward_ref(dx_ref, dw_ref, db_ref, dy, x, mean_ref, rstd_ref, w, rows, cols);
          expect_close(dx, dx_ref, 4 * tol, "dx");
          // dw and db sum over rows: their error grows with the row count.
          expect_close(dw, dw_ref, tol * std::sqrt(static_cast<double>(rows) + 1), "dw");
          expect_close(db, db_ref, tol * std::sqrt(static_cast<double>(rows) + 1), "db");
        }
      }
    }
  }
  set_num_threads(previous_threads);
}

TEST(Perf16LayerNorm, BackwardWithoutSomeOutputs) {
  const Tensor x = randn({9, 19}), dy = randn({9, 19}), w = randn({19});
  Tensor y = empty({9, 19}), mean = empty({9}), rstd = empty({9});
  layer_norm_kernel(y, mean, rstd, x, w, Tensor(), 9, 19, 1e-5);
  Tensor dx = empty({9, 19}), dx_ref = empty({9, 19}), dw = empty({19}), dw_ref = empty({19});
  // dx alone, then dw alone: each equals the reference's.
  layer_norm_backward_kernel(dx, Tensor(), Tensor(), dy, x, mean, rstd, w, 9, 19);
  layer_norm_backward_ref(dx_ref, Tensor(), Tensor(), dy, x, mean, rstd, w, 9, 19);
  expect_close(dx, dx_ref, 1e-5, "dx");
  layer_norm_backward_kernel(Tensor(), dw, Tensor(), dy, x, mean, rstd, w, 9, 19);
  layer_norm_backward_ref(Tensor(), dw_ref, Tensor(), dy, x, mean, rstd, w, 9, 19);
  expect_close(dw, dw_ref, 1e-5, "dw");
}

TEST(Perf16LayerNorm, OpsMatchTheTensorFormulaAndDoubleBackward) {
  // A transposed (non-contiguous) input of [5, 3, 7] normalised over its last two dims.
  const Tensor x = randn({7, 3, 5}).permute({2, 1, 0}).to(kFloat64).requires_grad_(true);
  const Tensor w = randn({3, 7}, kFloat64).requires_grad_(true);
  const Tensor b = randn({3, 7}, kFloat64).requires_grad_(true);
  auto [y, mean, rstd] = native_layer_norm(x, {3, 7}, w, b, 1e-5);
  EXPECT_EQ(mean.sizes(), IntArrayRef({5, 1, 1}));
  EXPECT_EQ(y.grad_fn()->name(), "NativeLayerNormBackward0");
  const std::vector<int64_t> dims{1, 2};
  const Tensor mu = x.mean(dims, true);
  const Tensor want = (x - mu) * (x.var(dims, 0, true) + 1e-5).rsqrt() * w + b;
  expect_close(y, want, 1e-12, "forward");
  expect_close(mean, mu, 1e-12, "mean");
  EXPECT_TRUE(autograd::gradcheck([](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{std::get<0>(native_layer_norm(in[0], {3, 7}, in[1], in[2], 1e-5))};
  }, {x, w, b}));
  EXPECT_TRUE(autograd::gradgradcheck([](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{std::get<0>(native_layer_norm(in[0], {3, 7}, in[1], in[2], 1e-5))};
  }, {x, w, b}));
  // Meta inputs: shapes and dtypes only.
  const Tensor xm = empty({2, 4}, TensorOptions(kFloat16).device(kMeta));
  auto [ym, mm, rm] = native_layer_norm(xm, {4}, std::nullopt, std::nullopt, 1e-5);
  EXPECT_TRUE(ym.is_meta());
  EXPECT_EQ(ym.dtype(), kFloat16);
  EXPECT_EQ(mm.dtype(), kFloat32);
  EXPECT_EQ(rm.sizes(), IntArrayRef({2, 1}));
}

}  // namespace
}  // namespace ember::cpu
