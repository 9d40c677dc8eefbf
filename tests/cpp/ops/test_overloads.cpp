// The alternative overloads (include/ember/ops/overloads.h) and out= writing (ember/ops/out.h),
// with values printed by PyTorch 1.13 for the same inputs.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/ops/out.h"
#include "ember/warning.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::from_values;

// [[3, -1, 2], [0, 4, -2]]
Tensor x() { return from_values({3, -1, 2, 0, 4, -2}, {2, 3}, kFloat32); }

TEST(Overloads, SortWithoutStable) {
  auto [v, i] = sort(x(), 1, true);
  expect_values(v, {2, 3}, {3, 2, -1, 4, 0, -2});
  expect_values(i, {2, 3}, {0, 2, 1, 1, 0, 2});
  EXPECT_EQ(i.dtype(), kInt64);
}

TEST(Overloads, MaxMinOfTwoTensors) {
  Tensor b = from_values({1, 1, 1}, {3}, kFloat64);
  Tensor m = max(x(), b);
  EXPECT_EQ(m.dtype(), kFloat64);  // promoted and broadcast, as maximum
  expect_values(m, {2, 3}, {3, 1, 2, 1, 4, 1});
  expect_values(min(x(), b), {2, 3}, {1, -1, 1, 0, 1, -2});
}

TEST(Overloads, VarStdUnbiased) {
  // torch.tensor([[3., -1, 2], [0, 4, -2]]).var(1, False) -> [2.8889, 6.2222]
  expect_values(var(x(), std::vector<int64_t>{1}, false), {2}, {26.0 / 9, 56.0 / 9}, 1e-5);
  expect_values(std(x(), std::vector<int64_t>{1}, true, true), {2, 1},
                {std::sqrt(13.0 / 3), std::sqrt(28.0 / 3)}, 1e-5);
  expect_values(var(x(), true), {}, {5.6});
  auto [v, m] = var_mean(x(), std::vector<int64_t>{0}, Scalar(0), false);
  expect_values(v, {3}, {2.25, 6.25, 4}, 1e-5);
  expect_values(m, {3}, {1.5, 1.5, 0});
  auto [s, m2] = std_mean(x());
  expect_values(s, {}, {std::sqrt(5.6)}, 1e-5);
  expect_values(m2, {}, {1});
}

TEST(Overloads, NormsWithoutDims) {
  expect_values(norm(x()), {}, {std::sqrt(34.0)}, 1e-6);
  expect_values(norm(x(), 1), {}, {12});
  Tensor n = norm(x(), Scalar(2), std::vector<int64_t>{1}, false, kFloat64);
  EXPECT_EQ(n.dtype(), kFloat64);
  expect_values(n, {2}, {std::sqrt(14.0), std::sqrt(20.0)});
  expect_error([] { norm(x(), Scalar(2), kInt64); }, "the desired output dtype should be either floating point");
}

TEST(Overloads, SplitBySizesNonzeroAndWhere) {
  auto parts = split(x(), IntArrayRef{1, 2}, 1);
  ASSERT_EQ(parts.size(), 2u);
  expect_values(parts[1], {2, 2}, {-1, 2, 4, -2});
  auto idx = where(gt(x(), wrapped_scalar_tensor(Scalar(1))));
  ASSERT_EQ(idx.size(), 2u);
  expect_values(idx[0], {3}, {0, 0, 1});  // 3 at (0, 0), 2 at (0, 2), 4 at (1, 1)
  expect_values(idx[1], {3}, {0, 2, 1});
  auto zero_d = nonzero_numpy(from_values({5}, {}, kFloat32));
  ASSERT_EQ(zero_d.size(), 1u);  // a 0-d input counts as 1-d
  expect_values(zero_d[0], {1}, {0});
}

TEST(Overloads, ClampByTensors) {
  Tensor lo = from_values({0, 0, 0}, {3}, kFloat32), hi = from_values({1}, {1}, kFloat32);
  expect_values(clamp(x(), lo, hi), {2, 3}, {1, 0, 1, 0, 1, 0});
  expect_values(clamp(x(), Tensor(), hi), {2, 3}, {1, -1, 1, 0, 1, -2});
  Tensor t = x();
  clamp_(t, lo);
  expect_values(t, {2, 3}, {3, 0, 2, 0, 4, 0});
  Tensor ints = from_values({1, 2}, {2}, kInt64);
  expect_error([&] { clamp_(ints, from_values({0.5}, {1}, kFloat32)); },
               "result type Float can't be cast to the desired output type Long");
  expect_error([] { clamp(x(), Tensor(), Tensor()); },
               "At least one of 'min' or 'max' must not be None");
}

TEST(Overloads, AminmaxAndKthvalue) {
  auto [lo, hi] = aminmax(x());
  expect_values(lo, {}, {-2});
  expect_values(hi, {}, {4});
  auto [lo1, hi1] = aminmax(x(), 1, true);
  expect_values(lo1, {2, 1}, {-1, -2});
  expect_values(hi1, {2, 1}, {3, 4});
  auto [v, i] = kthvalue(x(), 2, 1);
  expect_values(v, {2}, {2, 0});
  expect_values(i, {2}, {2, 0});
  expect_error([] { kthvalue(x(), 4, 1); }, "kthvalue(): selected number k out of range for dimension 1");
}

TEST(Overloads, MedianAndNanmedian) {
  const double nan = std::nan("");
  Tensor y = from_values({1, nan, 3, nan, 4, 2}, {2, 3}, kFloat32);  // [[1, nan, 3], [nan, 4, 2]]
  auto [v, i] = median(y, 1);
  expect_values(v, {2}, {nan, nan});  // a NaN wins, with the first NaN's index
  expect_values(i, {2}, {1, 0});
  auto [nv, ni] = nanmedian(y, 1, true);
  expect_values(nv, {2, 1}, {1, 2});  // the lower median of the other values
  expect_values(ni, {2, 1}, {0, 2});
  expect_values(median(x()), {}, {0});  // [3, -1, 2, 0, 4, -2]: lower median
  expect_values(nanmedian(y), {}, {2});
  expect_error([] { median(empty({2, 0}), 1); }, "median(): Expected reduction dim 1 to have non-zero size.",
               ErrorKind::Index);
}

TEST(Overloads, FloorDivide) {
  Tensor a = from_values({7, -7, 9}, {3}, kInt64);
  Tensor b = from_values({2, 2, -4}, {3}, kInt64);
  Tensor q = floor_divide(a, b);
  EXPECT_EQ(q.dtype(), kInt64);
  expect_values(q, {3}, {3, -4, -3});  // rounded down, as Python's //
  floor_divide_(a, b);
  expect_values(a, {3}, {3, -4, -3});
}

TEST(OutArguments, ResizeWarnsOnlyWhenOutHadElements) {
  Tensor out = empty({3}, kFloat32);
  {
    WarningCapture w;
    write_out(x().sum(), out);
    ASSERT_EQ(w.messages.size(), 1u);
    EXPECT_NE(w.messages[0].find("An output with one or more elements was resized since it had "
                                 "shape [3], which does not match the required output shape []."),
              std::string::npos);
  }
  expect_values(out, {}, {6});
  Tensor empty_out = empty({0}, kFloat64);
  {
    WarningCapture w;
    write_out(x(), empty_out);
    EXPECT_TRUE(w.messages.empty());
  }
  EXPECT_EQ(empty_out.dtype(), kFloat64);
  expect_values(empty_out, {2, 3}, {3, -1, 2, 0, 4, -2});
  Tensor longs = empty({0}, kInt64);
  expect_error([&] { write_out(x(), longs); },
               "result type Float can't be cast to the desired output type Long");
  EXPECT_EQ(longs.numel(), 0);  // left unchanged
}

}  // namespace
}  // namespace ember
