// sort and topk: against a stable insertion-sort reference (src/backends/cpu/sort_kernels.cpp)
// on every layout and dtype, and against PyTorch 1.13's outputs, NaN ordering included.
#include <cmath>
#include <limits>

#include "backends/cpu/sort_kernels.h"
#include "ops/reduce_testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::vals;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::vector<double> idx(const Tensor& t) { return testing::values(t); }

TEST(Sort, MatchesStableReferenceOnEveryLayoutAndDtype) {
  // Integer and bool inputs are full of ties: the indices check stability.
  uint32_t seed = 1;
  for (const DimVector& sizes : {DimVector{}, DimVector{9}, DimVector{3, 4}, DimVector{2, 3, 4},
                                 DimVector{0, 3}, DimVector{20, 40}}) {
    for (ScalarType dt : testing::all_dtypes()) {
      for (const auto& [name, x] : testing::layouts(sizes, dt, seed++)) {
        for (int64_t dim = -1; dim < std::max<int64_t>(x.dim(), 1); ++dim) {
          const int64_t w = x.dim() == 0 ? 0 : (dim < 0 ? dim + x.dim() : dim);
          for (bool descending : {false, true}) {
            std::string what = testing::describe(name, dt, sizes, {dim}, descending);
            auto [v, i] = x.sort(dim, descending);
            EXPECT_EQ(v.dtype(), dt) << what;
            EXPECT_EQ(i.dtype(), kInt64) << what;
            Tensor rv = empty(sizes, kFloat64), ri = empty(sizes, kInt64);
            cpu::sort_ref(rv, ri, x, w, descending);
            SCOPED_TRACE(what);
            expect_values(v, sizes, testing::values(rv), 0, 0);
            expect_values(i, sizes, testing::values(ri), 0, 0);
            // topk(k) is the first k of the sort (same tie rule).
            const int64_t len = x.dim() == 0 ? 1 : x.size(w);
            for (int64_t k : {int64_t{0}, std::min<int64_t>(len, 3), len}) {
              auto [tv, ti] = x.topk(k, dim, /*largest=*/descending);
              Tensor want_v = x.dim() == 0 ? v : v.narrow(w, 0, k);
              Tensor want_i = x.dim() == 0 ? i : i.narrow(w, 0, k);
              expect_values(tv, want_v.sizes(), testing::values(want_v), 0, 0);
              expect_values(ti, want_i.sizes(), testing::values(want_i), 0, 0);
            }
          }
        }
      }
    }
  }
}

TEST(Sort, LongLinesRadixSortMatchReference) {
  // Lines of >= 256 elements take the radix path; floats get NaNs, infinities and signed zeros.
  uint32_t seed = 500;
  for (ScalarType dt : testing::all_dtypes()) {
    for (const DimVector& sizes : {DimVector{3, 600}, DimVector{600, 3}}) {
      Tensor x = testing::random_tensor(sizes, dt, seed++);
      if (is_floating(dt)) {
        Tensor flat = x.view({-1});
        const double specials[] = {kNaN, kInf, -kInf, 0.0, -0.0, kNaN, -0.0};
        for (int64_t i = 0; i < flat.numel(); i += 37) flat.narrow(0, i, 1).fill_(specials[(i / 37) % 7]);
      }
      for (int64_t dim : {0, 1}) {
        for (bool descending : {false, true}) {
          std::string what = testing::describe("radix", dt, sizes, {dim}, descending);
          auto [v, i] = x.sort(dim, descending);
          Tensor rv = empty(sizes, kFloat64), ri = empty(sizes, kInt64);
          cpu::sort_ref(rv, ri, x, dim, descending);
          SCOPED_TRACE(what);
          expect_values(v, sizes, testing::values(rv), 0, 0);
          expect_values(i, sizes, testing::values(ri), 0, 0);
          const int64_t k = std::min<int64_t>(5, x.size(dim));
          auto [tv, ti] = x.topk(k, dim, descending);
          expect_values(ti, tv.sizes(), testing::values(ri.narrow(dim, 0, k)), 0, 0);
        }
      }
    }
  }
}

TEST(Sort, NaNIsLargestAsPyTorch) {
  Tensor a = vals({3, kNaN, 1, -kInf, kNaN, kInf, 1, 3});
  auto [v, i] = a.sort();
  expect_values(v, {8}, {-kInf, 1, 1, 3, 3, kInf, kNaN, kNaN});
  EXPECT_EQ(idx(i), (std::vector<double>{3, 2, 6, 0, 7, 5, 1, 4}));
  auto [dv, di] = a.sort(0, /*descending=*/true, /*stable=*/true);
  expect_values(dv, {8}, {kNaN, kNaN, kInf, 3, 3, 1, 1, -kInf});
  EXPECT_EQ(idx(di), (std::vector<double>{1, 4, 5, 0, 7, 2, 6, 3}));
  auto [tv, ti] = a.topk(3);
  expect_values(tv, {3}, {kNaN, kNaN, kInf});
  EXPECT_EQ(idx(ti), (std::vector<double>{1, 4, 5}));
  // PyTorch leaves the order of ties unspecified (it printed [3, 6, 2]); ember puts the lower
  // index first.
  auto [sv, si] = a.topk(3, -1, /*largest=*/false);
  expect_values(sv, {3}, {-kInf, 1, 1});
  EXPECT_EQ(idx(si), (std::vector<double>{3, 2, 6}));
  auto [nv, ni] = vals({1, kNaN, kNaN, 2}).topk(2, 0, false);
  expect_values(nv, {2}, {1, 2});
  EXPECT_EQ(idx(ni), (std::vector<double>{0, 3}));
  // -0.0 and 0.0 are equal: they keep their order.
  auto [zv, zi] = vals({0.0, -0.0, 0.0, -0.0}).sort();
  EXPECT_EQ(idx(zi), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_TRUE(std::signbit(testing::values(zv)[1]));
}

TEST(Sort, ValuesAsPyTorch) {
  Tensor m = vals({3, 1, 2, 0, 5, 4}, kInt64, {2, 3});
  auto [v, i] = m.sort(0, true);
  expect_values(v, {2, 3}, {3, 5, 4, 0, 1, 2});
  expect_values(i, {2, 3}, {0, 1, 1, 1, 0, 0});
  auto [tv, ti] = vals({1, 3, 2, 3, 1}, kInt64).topk(2);
  expect_values(tv, {2}, {3, 3});
  expect_values(ti, {2}, {1, 3});
  auto [bv, bi] = vals({1, 0, 1}, kBool).sort();
  expect_values(bv, {3}, {0, 1, 1});
  expect_values(bi, {3}, {1, 0, 2});
  auto [hv, hi] = vals({1, 2}, kFloat16).sort(0, true);
  EXPECT_EQ(hv.dtype(), kFloat16);
  expect_values(hv, {2}, {2, 1});
  expect_values(hi, {2}, {1, 0});
  // Along dim 0 of a transposed view.
  auto [cv, ci] = vals({1, 2, 3, 4}, kFloat32, {2, 2}).t().topk(1, 0);
  expect_values(cv, {1, 2}, {2, 4});
  expect_values(ci, {1, 2}, {1, 1});
  // sorted=False still returns the k best, best first.
  auto [uv, ui] = vals({5, 9, 7}).topk(2, -1, true, /*sorted=*/false);
  expect_values(uv, {2}, {9, 7});
  expect_values(ui, {2}, {1, 2});
  // The boxed sort.stable accepts stable=None.
  Stack out = find_op("aten::sort", "stable").call({Value(vals({2, 1})), Value()});
  expect_values(out[1].to_tensor(), {2}, {1, 0});
}

TEST(Sort, EdgeCasesAndErrors) {
  Tensor s = scalar_tensor(5.0);
  auto [v, i] = s.sort(0, true);
  expect_values(v, {}, {5});
  expect_values(i, {}, {0});
  for (int64_t k : {0, 1}) {  // a 0-d input gives its element for k = 0 too, as PyTorch
    auto [tv, ti] = s.topk(k);
    expect_values(tv, {}, {5});
    expect_values(ti, {}, {0});
  }
  expect_error([&] { s.topk(2); }, "selected index k out of range");
  Tensor a = vals({1, 2, 3});
  expect_error([&] { a.topk(4); }, "selected index k out of range");
  expect_error([&] { a.topk(-1); }, "selected index k out of range");
  EXPECT_EQ(std::get<0>(a.topk(0)).sizes().vec(), DimVector{0});
  auto [ev, ei] = empty({0, 3}).sort(0);
  EXPECT_EQ(ev.sizes().vec(), (DimVector{0, 3}));
  EXPECT_EQ(ei.dtype(), kInt64);
  EXPECT_EQ(std::get<0>(empty({0, 3}).topk(0, 0)).sizes().vec(), (DimVector{0, 3}));
  EXPECT_EQ(std::get<1>(empty({0, 3}).topk(2, 1)).sizes().vec(), (DimVector{0, 2}));
  expect_error([] { empty({0, 3}).topk(1, 0); }, "selected index k out of range");
  expect_error([] { zeros({2, 3}).sort(2); }, "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
               ErrorKind::Index);
  expect_error([] { zeros({2, 3}).topk(1, -3); }, "Dimension out of range (expected to be in range of [-2, 1], but got -3)",
               ErrorKind::Index);
}

TEST(Sort, LongLinesUsePartialSelection) {
  Tensor x = testing::random_tensor({5000}, kFloat32, 7);
  auto [v, i] = x.sort(0, true);
  auto [tv, ti] = x.topk(10);
  expect_values(tv, {10}, testing::values(v.narrow(0, 0, 10)), 0, 0);
  expect_values(ti, {10}, testing::values(i.narrow(0, 0, 10)), 0, 0);
  std::vector<double> sorted = testing::values(v);
  EXPECT_TRUE(std::is_sorted(sorted.rbegin(), sorted.rend()));
}

TEST(Sort, MetaTensorsGetShapesAndDtypes) {
  DeviceGuard g(kMeta);
  Tensor x = empty({4, 6});
  auto [v, i] = x.sort(1);
  EXPECT_TRUE(v.is_meta());
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(i.sizes().vec(), (DimVector{4, 6}));
  auto [tv, ti] = x.topk(3, 0);
  EXPECT_EQ(tv.sizes().vec(), (DimVector{3, 6}));
  EXPECT_EQ(ti.dtype(), kInt64);
  expect_error([&] { x.topk(7, 0); }, "selected index k out of range");
}

}  // namespace
}  // namespace ember
