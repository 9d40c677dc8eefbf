// softmax / log_softmax and the _softmax / _log_softmax primitives: values against the long
// double reference of src/backends/cpu/softmax_kernels.cpp and PyTorch 1.13's behaviour.
#include <cmath>
#include <limits>

#include "backends/cpu/softmax_kernels.h"
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

TEST(Softmax, MatchesReferenceOnEveryLayoutDimAndFloatDtype) {
  uint32_t seed = 1;
  for (const DimVector& sizes : {DimVector{}, DimVector{5}, DimVector{3, 4}, DimVector{2, 3, 4},
                                 DimVector{0, 3}, DimVector{33, 70}, DimVector{3, 100, 5}}) {
    for (ScalarType dt : testing::float_dtypes()) {
      for (const auto& [name, x] : testing::layouts(sizes, dt, seed++)) {
        for (int64_t dim = -1; dim < std::max<int64_t>(x.dim(), 1); ++dim) {
          const int64_t w = x.dim() == 0 ? 0 : (dim < 0 ? dim + x.dim() : dim);
          std::string what = testing::describe(name, dt, sizes, {dim}, false);
          const double tol = std::max(testing::tolerance(dt), 1e-6);
          Tensor s = x.softmax(dim);
          EXPECT_EQ(s.dtype(), dt) << what;
          EXPECT_TRUE(s.is_contiguous()) << what;
          expect_matches(s, cpu::softmax_ref(x, w, false), tol * 2, tol, what + " softmax");
          Tensor l = x.log_softmax(dim);
          EXPECT_EQ(l.sizes().vec(), sizes) << what;
          expect_matches(l, cpu::softmax_ref(x, w, true), tol * 2, tol * 4, what + " log_softmax");
        }
      }
    }
  }
}

TEST(Softmax, ValuesAsPyTorch) {
  const double e1 = std::exp(1.0), e2 = std::exp(2.0), z = 1 + e1 + e2;
  expect_values(iota({2, 3}).softmax(1), {2, 3}, {1 / z, e1 / z, e2 / z, 1 / z, e1 / z, e2 / z});
  expect_values(iota({2, 3}).log_softmax(-1), {2, 3},
                {-std::log(z), 1 - std::log(z), 2 - std::log(z), -std::log(z), 1 - std::log(z), 2 - std::log(z)});
  // Down dim 0 each column is [j, j + 3].
  const double a = 1 / (1 + std::exp(3.0)), b = std::exp(3.0) / (1 + std::exp(3.0));
  expect_values(iota({2, 3}).softmax(0), {2, 3}, {a, a, a, b, b, b});
  // dtype converts first, so integer inputs work with a floating dtype.
  Tensor i = iota({6}, kInt64).softmax(0, kFloat32);
  EXPECT_EQ(i.dtype(), kFloat32);
  double sum = 0;
  for (int k = 0; k < 6; ++k) sum += std::exp(k);
  expect_values(i, {6}, {1 / sum, e1 / sum, e2 / sum, std::exp(3) / sum, std::exp(4) / sum, std::exp(5) / sum});
  Tensor d = iota({2, 3}).softmax(1, kFloat64);
  EXPECT_EQ(d.dtype(), kFloat64);
  expect_values(d, {2, 3}, {1 / z, e1 / z, e2 / z, 1 / z, e1 / z, e2 / z}, 1e-7, 1e-7);
  expect_values(vals({1, 2}, kInt64).softmax(0, kFloat64), {2}, {0.2689414213699951, 0.7310585786300049}, 1e-12, 0);
}

TEST(Softmax, EdgeCases) {
  expect_values(scalar_tensor(3.0).softmax(0), {}, {1});
  expect_values(scalar_tensor(3.0).log_softmax(-1), {}, {0});
  expect_values(empty({0, 3}).softmax(0), {0, 3}, {});
  expect_values(empty({0, 3}).log_softmax(1), {0, 3}, {});
  expect_values(vals({-kInf, -kInf}).softmax(0), {2}, {kNaN, kNaN});
  expect_values(vals({-kInf, -kInf}).log_softmax(0), {2}, {kNaN, kNaN});
  expect_values(vals({kInf, 1}).softmax(0), {2}, {kNaN, kNaN});
  expect_values(vals({kNaN, 1}).softmax(0), {2}, {kNaN, kNaN});
  expect_values(vals({1, kNaN}, kFloat32, {2, 1}).log_softmax(0), {2, 1}, {kNaN, kNaN});
  expect_values(vals({-kInf, 1}).log_softmax(0), {2}, {-kInf, 0});
  expect_values(vals({-kInf, 1}).softmax(0), {2}, {0, 1});
  // Max-subtracted: no overflow for large inputs.
  expect_values(vals({1000, 0}).log_softmax(0), {2}, {0, -1000});
  expect_values(vals({1000, 1000}).softmax(0), {2}, {0.5, 0.5});
  expect_values(vals({1000, 0, 0, 1000}, kFloat32, {2, 2}).softmax(0), {2, 2}, {1, 0, 0, 1}, 0, 0);
}

TEST(Softmax, HalfInputsComputeInFloat) {
  Tensor h = vals({1, 2, 3}, kFloat16);
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  std::vector<double> want{std::exp(1.0) / z, std::exp(2.0) / z, std::exp(3.0) / z};
  EXPECT_EQ(h.softmax(0).dtype(), kFloat16);
  expect_values(h.softmax(0), {3}, want, 1e-3, 0);
  // half_to_float: the float result without rounding through half.
  Tensor f = _softmax(h, 0, true);
  EXPECT_EQ(f.dtype(), kFloat32);
  expect_values(f, {3}, want, 1e-6, 0);
  Tensor lf = _log_softmax(vals({1, 2, 3}, kBFloat16, {3, 1}), 0, true);
  EXPECT_EQ(lf.dtype(), kFloat32);
  expect_values(lf, {3, 1}, {1 - std::log(z), 2 - std::log(z), 3 - std::log(z)}, 1e-6, 0);
  // dtype=float32 converts first, then computes in float.
  expect_values(h.softmax(0, kFloat32), {3}, want, 1e-6, 0);
  expect_error([] { _softmax(iota({3}), 0, true); },
               "softmax: half_to_float=True expects a float16 or bfloat16 input, but got float32");
}

TEST(Softmax, Errors) {
  expect_error([] { iota({6}, kInt64).softmax(0); }, "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  expect_error([] { iota({2, 3}, kInt32).softmax(0); }, "\"softmax_kernel_impl\" not implemented for 'Int'");
  expect_error([] { iota({6}, kInt64).log_softmax(0); },
               "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  expect_error([] { _softmax(iota({6}, kBool), 0, false); }, "\"softmax_lastdim_kernel_impl\" not implemented for 'Bool'");
  expect_error([] { iota({2, 3}).softmax(2); }, "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
               ErrorKind::Index);
  expect_error([] { iota({2, 3}).softmax(1, kInt64); }, "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
}

TEST(Softmax, MetaTensorsGetShapesAndDtypes) {
  DeviceGuard g(kMeta);
  Tensor x = empty({2, 3});
  Tensor s = x.softmax(0);
  EXPECT_TRUE(s.is_meta());
  EXPECT_EQ(s.sizes().vec(), (DimVector{2, 3}));
  EXPECT_EQ(x.log_softmax(1, kFloat64).dtype(), kFloat64);
  EXPECT_EQ(_softmax(empty({4}, kFloat16), 0, true).dtype(), kFloat32);
  expect_error([] { empty({2}, kInt64).softmax(0); }, "not implemented for 'Long'");
}

}  // namespace
}  // namespace ember
