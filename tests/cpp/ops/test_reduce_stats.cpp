// var / std, norm and cumsum: values against the scalar references of
// src/backends/cpu/reduce_kernels_ref.cpp and against values printed by PyTorch 1.13.
#include <cmath>
#include <limits>

#include "backends/cpu/reduce_kernels.h"
#include "ops/reduce_testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_matches;
using testing::expect_values;
using testing::iota;
using testing::vals;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

struct Case {
  DimVector sizes;
  DimVector dims;  // empty = all
};
const std::vector<Case> kCases{{{}, {}},        {{}, {0}},       {{7}, {0}},         {{3, 4}, {0}},
                               {{3, 4}, {-1}},  {{3, 4}, {}},    {{2, 3, 4}, {0, 2}}, {{2, 3, 4}, {1}},
                               {{0, 3}, {0}},   {{0, 3}, {1}},   {{33, 70}, {0}},    {{33, 70}, {1}},
                               {{4, 1, 3}, {0, 1}}};

// ---- var / std ----

TEST(ReduceStats, VarStdMatchReference) {
  uint32_t seed = 1;
  for (const Case& c : kCases) {
    for (ScalarType dt : testing::float_dtypes()) {
      for (const auto& [name, x] : testing::layouts(c.sizes, dt, seed++)) {
        for (double correction : {1.0, 0.0, 2.5}) {
          for (bool keepdim : {false, true}) {
            std::string what = testing::describe(name, dt, c.sizes, c.dims, keepdim) +
                               " correction " + std::to_string(correction);
            std::optional<std::vector<int64_t>> dims;
            if (!c.dims.empty()) dims = c.dims;
            Tensor v = x.var(dims, correction, keepdim);
            Tensor s = x.std(dims, correction, keepdim);
            EXPECT_EQ(v.dtype(), dt) << what;
            EXPECT_EQ(s.sizes().vec(), testing::expected_shape(c.sizes, c.dims, keepdim)) << what;
            Tensor ref = cpu::var_ref(x, testing::ref_dims(c.dims, x.dim()), correction);
            const double tol = testing::tolerance(dt);
            expect_matches(v, ref, tol * 2, tol, what);
            std::vector<double> sd = testing::values(ref);
            for (double& e : sd) e = std::sqrt(e);
            SCOPED_TRACE(what);
            expect_values(s.reshape(ref.sizes()), ref.sizes(), sd, tol * 2, tol);
          }
        }
      }
    }
  }
}

TEST(ReduceStats, VarFollowsPyTorchEdgeCases) {
  Tensor x = iota({2, 3});
  expect_values(x.var(), {}, {3.5});
  expect_values(x.std(), {}, {1.8708287}, 1e-6);
  // A divisor of max(0, n - correction) = 0 gives inf, or nan when every deviation is 0 too.
  expect_values(x.var({{1}}, 3), {2}, {kInf, kInf});
  expect_values(x.var({{1}}, 4), {2}, {kInf, kInf});
  expect_values(ember::var(x, std::vector<int64_t>{1}, Scalar(-1)), {2}, {0.5, 0.5});
  expect_values(ember::std(x, std::vector<int64_t>{1}, Scalar(4)), {2}, {kInf, kInf});
  expect_values(vals({1, 1}).var({{0}}, 2), {}, {kNaN});
  expect_values(vals({1, 1}).var({{0}}, 3), {}, {kNaN});
  expect_values(vals({1, kInf}).var(), {}, {kNaN});
  expect_values(vals({1, kNaN}).var(), {}, {kNaN});
  // correction=None means 1; dim=[] means every dim.
  expect_values(ember::var(x, std::nullopt, std::nullopt), {}, {3.5});
  expect_values(ember::var(x, std::vector<int64_t>{}, Scalar(0), true), {1, 1}, {35.0 / 12});
  expect_values(vals({1, 2, 3, 4}).var({{0}}, 1, true), {1}, {5.0 / 3});
  expect_values(scalar_tensor(5.0).var(), {}, {kNaN});
  expect_values(scalar_tensor(5.0).var({{0}}, 0), {}, {0});
  expect_values(empty({0}).var(), {}, {kNaN});
  expect_values(empty({0, 3}).var({{0}}), {3}, {kNaN, kNaN, kNaN});
  expect_values(empty({0, 3}).std({{1}}), {0}, {});
  expect_values(iota({6}, kFloat16).var(), {}, {3.5});
  EXPECT_EQ(iota({6}, kBFloat16).std().dtype(), kBFloat16);
  expect_values(iota({6}, kBFloat16).std(), {}, {1.8671875}, 0, 0);  // PyTorch: 1.8672
  expect_error([] { iota({6}, kInt64).var(); }, "std and var only support floating point and complex dtypes");
  expect_error([] { vals({1}, kBool).std(); }, "std and var only support floating point and complex dtypes");
  expect_error([&] { x.var({{0, 0}}); }, "dim 0 appears multiple times in the list of dims");
}

// ---- norm ----

TEST(ReduceStats, NormMatchesReferenceForEveryP) {
  uint32_t seed = 50;
  for (const Case& c : kCases) {
    for (ScalarType dt : testing::float_dtypes()) {
      for (const auto& [name, x] : testing::layouts(c.sizes, dt, seed++)) {
        for (double p : {2.0, 1.0, kInf, -kInf, 0.0, 3.0, 0.5, -1.0}) {
          bool keepdim = p > 1;
          std::string what = testing::describe(name, dt, c.sizes, c.dims, keepdim) + " p " + std::to_string(p);
          Tensor n = ember::norm(x, Scalar(p), c.dims, keepdim);
          EXPECT_EQ(n.dtype(), dt) << what;
          EXPECT_EQ(n.sizes().vec(), testing::expected_shape(c.sizes, c.dims, keepdim)) << what;
          const double tol = std::max(testing::tolerance(dt), 1e-6);
          expect_matches(n, cpu::norm_ref(x, testing::ref_dims(c.dims, x.dim()), p), tol * 4, tol, what);
        }
      }
    }
  }
}

TEST(ReduceStats, NormFollowsPyTorch) {
  Tensor x = iota({2, 3});
  expect_values(x.norm(), {}, {7.4161984});
  expect_values(x.norm(1), {}, {15});
  expect_values(x.norm(kInf), {}, {5});
  expect_values(x.norm(-kInf), {}, {0});
  expect_values(x.norm(0), {}, {5});
  expect_values(x.norm(3), {}, {6.0822019});
  expect_values(x.norm(0.5), {}, {70.263527}, 1e-6);
  expect_values(x.norm(-1), {}, {0});
  expect_values(x.norm(-2, {{1}}), {2}, {0, 2.1636524});
  expect_values(ember::norm(x, std::nullopt, {1}), {2}, {2.2360680, 7.0710678});
  expect_values(ember::norm(x, Scalar(2), {}), {}, {7.4161984});
  expect_values(vals({1, 2, 3, 4}, kFloat32, {2, 2}).norm(2, {{0, 1}}, true), {1, 1}, {5.4772256});
  expect_values(scalar_tensor(-3.0).norm(2, {{0}}), {}, {3});
  // No elements: zeros for every p (PyTorch fills before looking at p).
  for (double p : {2.0, kInf, -kInf, -1.0, 0.5}) {
    expect_values(empty({0}).norm(p), {}, {0});
    expect_values(empty({0, 3}).norm(p, {{0}}), {3}, {0, 0, 0});
  }
  expect_values(vals({1e30, 1e30}).norm(), {}, {kInf});  // float32 squares overflow, as in PyTorch
  expect_values(vals({1e30, 1e30}, kFloat64).norm(), {}, {1.4142135623730951e30});
  expect_values(vals({kNaN, 1}).norm(kInf), {}, {kNaN});
  expect_values(vals({kNaN, 1}).norm(-kInf), {}, {kNaN});
  expect_values(vals({kInf, 1}).norm(0), {}, {2});
  expect_values(vals({-3, 4}).norm(1), {}, {7});
  expect_values(iota({2, 3}, kFloat16).norm(), {}, {7.41796875}, 0, 0);  // PyTorch: 7.4180 (float16)
  expect_error([] { iota({6}, kInt64).norm(); },
               "norm(): input dtype should be either floating point or complex. Got Long instead.");
  expect_error([] { vals({1}, kBool).norm(); },
               "norm(): input dtype should be either floating point or complex. Got Bool instead.");
  expect_error([&] { x.norm(2, {{0, 0}}); }, "dim 0 appears multiple times in the list of dims");
}

// ---- cumsum ----

TEST(ReduceStats, CumsumMatchesReference) {
  uint32_t seed = 90;
  for (const DimVector& sizes : {DimVector{}, DimVector{7}, DimVector{3, 4}, DimVector{2, 3, 4},
                                 DimVector{0, 3}, DimVector{300, 5}, DimVector{5, 300}}) {
    for (ScalarType dt : testing::all_dtypes()) {
      for (const auto& [name, x] : testing::layouts(sizes, dt, seed++)) {
        for (int64_t dim = -1; dim < std::max<int64_t>(x.dim(), 1); ++dim) {
          std::string what = testing::describe(name, dt, sizes, {dim}, false);
          Tensor c = x.cumsum(dim);
          const ScalarType want = is_floating(dt) ? dt : kInt64;
          EXPECT_EQ(c.dtype(), want) << what;
          EXPECT_EQ(c.sizes().vec(), sizes) << what;
          int64_t w = dim < 0 && x.dim() > 0 ? dim + x.dim() : std::max<int64_t>(dim, 0);
          // 16-bit results are rounded at every step from a float running sum.
          const double tol = testing::tolerance(want);
          expect_matches(c, cpu::cumsum_ref(x, w), tol, tol * (is_floating(dt) ? 300 : 0), what);
        }
      }
    }
  }
}

TEST(ReduceStats, CumsumFollowsPyTorch) {
  // Floats accumulate in double on CPU: 1e8 + 1 - 1e8 is 1, not 0.
  expect_values(vals({1e8, 1, -1e8}).cumsum(0), {3}, {1e8, 1e8, 1});
  Tensor b = vals({1, 1}, kBool).cumsum(0);
  EXPECT_EQ(b.dtype(), kInt64);
  expect_values(b, {2}, {1, 2});
  EXPECT_EQ(vals({1, 2}, kUInt8).cumsum(0).dtype(), kInt64);
  EXPECT_EQ(vals({1, 2}, kInt8).cumsum(0).dtype(), kInt64);
  Tensor i32 = vals({1.5, 2}).cumsum(0, kInt32);  // converts first: [1, 2]
  EXPECT_EQ(i32.dtype(), kInt32);
  expect_values(i32, {2}, {1, 3});
  expect_values(vals({1, 2}, kInt64).cumsum(0, kFloat32), {2}, {1, 3});
  expect_values(vals({1, 2}, kBFloat16).cumsum(0), {2}, {1, 3});
  expect_values(iota({2, 3}).cumsum(0), {2, 3}, {0, 1, 2, 3, 5, 7});
  expect_values(iota({2, 3}).cumsum(-1), {2, 3}, {0, 1, 3, 3, 7, 12});
  expect_values(iota({2, 3}).t().cumsum(1), {3, 2}, {0, 3, 1, 5, 2, 7});
  expect_values(scalar_tensor(5.0).cumsum(0), {}, {5});
  expect_values(scalar_tensor(5.0).cumsum(-1), {}, {5});
  expect_values(empty({0, 3}).cumsum(0), {0, 3}, {});
  expect_error([] { vals({1, 2}, kFloat64).cumsum(0, kBool); }, "\"cumsum_out_cpu\" not implemented for 'Bool'");
  expect_error([] { vals({1.5, 2}).cumsum(1); }, "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
               ErrorKind::Index);
}

TEST(ReduceStats, MetaTensorsGetShapesAndDtypes) {
  DeviceGuard g(kMeta);
  Tensor x = empty({2, 3, 4});
  EXPECT_EQ(x.var({{0, 2}}, 1, true).sizes().vec(), (DimVector{1, 3, 1}));
  EXPECT_TRUE(x.std().is_meta());
  EXPECT_EQ(x.norm(1, {{1}}).sizes().vec(), (DimVector{2, 4}));
  EXPECT_EQ(empty({0, 3}).norm().dim(), 0);
  EXPECT_EQ(empty({2, 3}, kInt32).cumsum(1).dtype(), kInt64);
  EXPECT_EQ(x.cumsum(1).sizes().vec(), (DimVector{2, 3, 4}));
  expect_error([] { empty({2}, kInt32).var(); }, "std and var only support floating point and complex dtypes");
}

}  // namespace
}  // namespace ember
