// Range factories (arange, linspace, eye) and tensor literals. Expected values were computed
// with PyTorch 1.13 and pasted; comparisons are exact (the kernels reproduce PyTorch's arithmetic).
#include <limits>

#include "backends/cpu/range_kernels.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;

// Every element as a double, read straight from memory (any dtype, contiguous or not).
std::vector<double> raw(const Tensor& t) { return testing::values(t); }

void expect_exact(const Tensor& t, ScalarType dtype, const std::vector<double>& expected) {
  EXPECT_EQ(t.dtype(), dtype);
  ASSERT_EQ(t.sizes().vec(), (std::vector<int64_t>{static_cast<int64_t>(expected.size())}));
  auto got = raw(t);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], expected[i]) << "at " << i;
}

std::vector<double> at(const Tensor& t, std::initializer_list<int64_t> idx) {
  auto all = raw(t);
  std::vector<double> r;
  for (int64_t i : idx) r.push_back(all[static_cast<size_t>(i)]);
  return r;
}

// Restores the default dtype after a test that changes it.
struct DefaultDtypeGuard {
  ScalarType prev = default_dtype();
  explicit DefaultDtypeGuard(ScalarType t) { set_default_dtype(t); }
  ~DefaultDtypeGuard() { set_default_dtype(prev); }
};

// ---- arange ----

TEST(Arange, DtypeInference) {
  expect_exact(arange(5), kInt64, {0, 1, 2, 3, 4});
  expect_exact(arange(1, 4, 0.5), kFloat32, {1, 1.5, 2, 2.5, 3, 3.5});
  expect_exact(arange(true, 3), kInt64, {1, 2});  // bools count as integers
  expect_exact(arange(2.0), kFloat32, {0, 1});
  expect_exact(arange(10, 0, -3), kInt64, {10, 7, 4, 1});
  expect_exact(arange(-5, 5, 3), kInt64, {-5, -2, 1, 4});
  expect_exact(arange(5, 5), kInt64, {});
  DefaultDtypeGuard g(kFloat64);
  expect_exact(arange(0, 1, 0.5), kFloat64, {0, 0.5});
  expect_exact(arange(0, 2), kInt64, {0, 1});
}

TEST(Arange, FloatValuesMatchTorch) {
  expect_exact(arange(0, 1, 0.1), kFloat32,
               {0.0, 0.10000000149011612, 0.20000000298023224, 0.30000001192092896, 0.4000000059604645,
                0.5, 0.6000000238418579, 0.699999988079071, 0.800000011920929, 0.8999999761581421});
  expect_exact(arange(0, 1, 0.1, kFloat64), kFloat64,
               {0.0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6000000000000001, 0.7000000000000001,
                0.8, 0.9});
  expect_exact(arange(0.1, 1.0, 0.1), kFloat32,
               {0.10000000149011612, 0.20000000298023224, 0.30000001192092896, 0.4000000059604645,
                0.5, 0.6000000238418579, 0.699999988079071, 0.800000011920929, 0.8999999761581421});
  expect_exact(arange(1, -1, -0.25, kFloat64), kFloat64, {1, 0.75, 0.5, 0.25, 0, -0.25, -0.5, -0.75});
  expect_exact(arange(0, 1, 1.0 / 3), kFloat32, {0.0, 0.3333333432674408, 0.6666666865348816});
  Tensor big = arange(0, 1000, 0.37);
  EXPECT_EQ(big.numel(), 2703);
  EXPECT_EQ(at(big, {1, 7, 100, 999, 2702}),
            (std::vector<double>{0.3700000047683716, 2.5899999141693115, 37.0, 369.6300048828125,
                                 999.739990234375}));
  // Sized in double: 1e30 / 1e29 is 10.000000000000002, so 11 elements, as PyTorch.
  EXPECT_EQ(arange(0, 1e30, 1e29).numel(), 11);
}

TEST(Arange, ReducedPrecisionComputesInFloat) {
  expect_exact(arange(-1.5, 2.5, 0.7, kFloat16), kFloat16,
               {-1.5, -0.7998046875, -0.0999755859375, 0.60009765625, 1.2998046875, 2.0});
  expect_exact(arange(-1.5, 2.5, 0.7, kBFloat16), kBFloat16,
               {-1.5, -0.80078125, -0.10009765625, 0.6015625, 1.296875, 2.0});
  expect_exact(arange(0, 70000, 10000, kFloat16), kFloat16,
               {0, 10000, 20000, 30000, 40000, 49984, 60000});
  const double inf = std::numeric_limits<double>::infinity();
  Tensor wide = arange(-100000, 100000, 3, kFloat16);  // beyond half's range: infinities
  EXPECT_EQ(wide.numel(), 66667);
  EXPECT_EQ(at(wide, {0, 1, 7, 1000, 66666}), (std::vector<double>{-inf, -inf, -inf, -inf, inf}));
}

TEST(Arange, IntegerDtypesTruncateBounds) {
  // int32 sizes in double with the true bounds (ceil(4.5 / 1.5) = 3) but steps by trunc(1.5) = 1.
  expect_exact(arange(0.5, 5, 1.5, kInt32), kInt32, {0, 1, 2});
  expect_exact(arange(0, 5, 1.5, kInt32), kInt32, {0, 1, 2, 3});
  // int64 sizes with the truncated bounds: (10 - 0 + 2 - 1) / 2 = 5.
  expect_exact(arange(0.5, 10, 2.5, kInt64), kInt64, {0, 2, 4, 6, 8});
  expect_exact(arange(-3, 3, 2, kUInt8), kUInt8, {253, 255, 1});  // wraps like a C cast
  expect_exact(arange(0, 300, 100, kUInt8), kUInt8, {0, 100, 200});
  const int64_t two53 = int64_t{1} << 53;  // exact beyond double's integers
  Tensor t = arange(two53, two53 + 4);
  ASSERT_EQ(t.numel(), 4);
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(t.data_ptr<int64_t>()[i], two53 + i);
  expect_exact(arange(0, 6, 2, kInt8), kInt8, {0, 2, 4});
  expect_exact(arange(0, 6, 2, kInt16), kInt16, {0, 2, 4});
}

TEST(Arange, Errors) {
  expect_error([] { arange(0, 10, 0); }, "step must be nonzero");
  expect_error([] { arange(0, 5, 0.5, kInt64); }, "step must be nonzero");  // trunc(0.5) = 0
  expect_error([] { arange(0, 10, -1); }, "upper bound and larger bound inconsistent with step sign");
  expect_error([] { arange(0, 5, 1, kBool); }, "\"arange_cpu\" not implemented for 'Bool'");
  const double inf = std::numeric_limits<double>::infinity();
  expect_error([&] { arange(0, inf); }, "unsupported range: 0 -> inf");
  expect_error([&] { arange(0, std::nan("")); }, "unsupported range: 0 -> nan");
  expect_error([&] { arange(0, inf, 1, kFloat16); }, "unsupported range: 0 -> inf");
  expect_error([] { arange(0, 1e30, 1e-30); }, "invalid size, possible overflow?");
  expect_error([] { arange(0, std::numeric_limits<int64_t>::max(), int64_t{1} << 62); },
               "invalid size, possible overflow?");
  expect_error([&] { arange(0, inf, 1, kInt64); }, "value cannot be converted to type int64_t without overflow");
  expect_error([] { arange(0, 1e39, 1e38, kFloat16); }, "value cannot be converted to type float without overflow");
}

TEST(Arange, KernelMatchesReference) {
  for (ScalarType dt : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8, kUInt8, kInt32, kInt64}) {
    Tensor fast = empty({100003}, dt), ref = empty({100003}, dt);
    cpu::arange_kernel(fast, -7, 3);
    cpu::arange_kernel_ref(ref, -7, 3);
    EXPECT_EQ(std::memcmp(fast.data_ptr(), ref.data_ptr(), fast.nbytes()), 0) << dtype_name(dt);
  }
}

// ---- linspace ----

// Note: PyTorch's own linspace is not one function of its arguments: its AVX2 path restarts the
// count at every vector (and at every parallel chunk) with `base + i * step` in the element type.
// ember computes every element with PyTorch's scalar formula, so values are compared with torch
// only where torch runs that formula too (fewer than two vectors' worth of elements), and with
// float64 math elsewhere.
TEST(Linspace, FloatValuesMatchTorch) {
  expect_exact(linspace(0, 1, 5), kFloat32, {0, 0.25, 0.5, 0.75, 1});
  expect_exact(linspace(0, 1, 7), kFloat32,
               {0.0, 0.1666666716337204, 0.3333333432674408, 0.5, 0.6666666269302368,
                0.8333333134651184, 1.0});
  expect_exact(linspace(-2.5, 3.7, 11), kFloat32,
               {-2.5, -1.8799999952316284, -1.2599999904632568, -0.6399999856948853,
                -0.019999980926513672, 0.6000000238418579, 1.2200000286102295, 1.840000033378601,
                2.4600000381469727, 3.0799999237060547, 3.700000047683716});
  // These two depend on the fused multiply-add (plain a + b * c gives other last bits).
  expect_exact(linspace(-2.5, 3.7, 15), kFloat32,
               {-2.5, -2.057142972946167, -1.6142857074737549, -1.1714286804199219, -0.7285715341567993,
                -0.28571441769599915, 0.15714269876480103, 0.600000262260437, 1.0428574085235596,
                1.4857144355773926, 1.9285715818405151, 2.3714287281036377, 2.8142857551574707,
                3.257143020629883, 3.700000047683716});
  expect_exact(linspace(-2.5, 3.7, 7, kFloat64), kFloat64,
               {-2.5, -1.4666666666666666, -0.4333333333333331, 0.5999999999999999, 1.6333333333333333,
                2.666666666666667, 3.7});
  expect_exact(linspace(true, false, 3), kFloat32, {1, 0.5, 0});
  expect_exact(linspace(3, 3, 1), kFloat32, {3});
  expect_exact(linspace(3, 5, 0), kFloat32, {});
  expect_exact(linspace(0, 1, 0, kBool), kBool, {});  // no kernel runs, so bool is fine
  DefaultDtypeGuard g(kFloat64);
  EXPECT_EQ(linspace(0, 1, 2).dtype(), kFloat64);
}

TEST(Linspace, LongRangesFollowFloat64Math) {
  // Both halves within a few ulps of the exact value; both ends exact.
  for (int64_t steps : {100001, 65537, 4}) {
    for (ScalarType dt : {kFloat32, kFloat64}) {
      Tensor t = linspace(-3, 7, steps, dt);
      auto got = raw(t);
      const double ulp = dt == kFloat32 ? 0x1p-23 : 0x1p-52;
      for (int64_t i = 0; i < steps; ++i) {
        const double exact = -3.0 + 10.0 * static_cast<double>(i) / static_cast<double>(steps - 1);
        ASSERT_NEAR(got[static_cast<size_t>(i)], exact, 8 * ulp * std::max(1.0, std::abs(exact)))
            << "at " << i << " of " << steps;
      }
      EXPECT_EQ(got.front(), -3.0);
      EXPECT_EQ(got.back(), 7.0);
    }
  }
}

TEST(Linspace, ReducedPrecisionRoundsEveryOperation) {
  expect_exact(linspace(0.1, 0.9, 10, kFloat16), kFloat16,
               {0.0999755859375, 0.1888427734375, 0.27783203125, 0.36669921875, 0.45556640625,
                0.54443359375, 0.63330078125, 0.72216796875, 0.81103515625, 0.89990234375});
  expect_exact(linspace(0.1, 0.9, 10, kBFloat16), kBFloat16,
               {0.10009765625, 0.1884765625, 0.27734375, 0.365234375, 0.453125, 0.546875, 0.6328125,
                0.72265625, 0.80859375, 0.8984375});
  expect_exact(linspace(0, 3, 31, kFloat16), kFloat16,
               {0.0, 0.0999755859375, 0.199951171875, 0.2998046875, 0.39990234375, 0.5, 0.599609375,
                0.69970703125, 0.7998046875, 0.89990234375, 1.0, 1.099609375, 1.19921875, 1.2998046875,
                1.3994140625, 1.5, 1.6005859375, 1.7001953125, 1.80078125, 1.900390625, 2.0,
                2.099609375, 2.19921875, 2.30078125, 2.400390625, 2.5, 2.599609375, 2.69921875,
                2.80078125, 2.900390625, 3.0});
  expect_exact(linspace(-1, 1, 31, kBFloat16), kBFloat16,
               {-1.0, -0.93359375, -0.8671875, -0.796875, -0.734375, -0.6640625, -0.59765625, -0.53125,
                -0.46484375, -0.3984375, -0.33203125, -0.265625, -0.1953125, -0.12890625, -0.0625, 0.0,
                0.0625, 0.12890625, 0.1953125, 0.265625, 0.33203125, 0.3984375, 0.46484375, 0.53125,
                0.59765625, 0.6640625, 0.734375, 0.796875, 0.8671875, 0.93359375, 1.0});
  // steps - 1 = 4098 becomes 4096 in half before the division (c10::Half / int64_t converts the
  // int first), so the step is exactly 3 / 4096.
  Tensor h = linspace(0, 3, 4099, kFloat16);
  EXPECT_EQ(at(h, {0, 1, 2, 1000, 4097, 4098}),
            (std::vector<double>{0.0, 0.000732421875, 0.00146484375, 0.732421875, 3.0, 3.0}));
}

TEST(Linspace, IntegerDtypesStepInDouble) {
  expect_exact(linspace(0, 10, 4, kInt64), kInt64, {0, 3, 6, 10});
  expect_exact(linspace(10, -10, 6, kInt8), kInt8, {10, 6, 2, -2, -6, -10});
  expect_exact(linspace(10, -10, 7, kInt8), kInt8, {10, 6, 3, 0, -3, -6, -10});
  expect_exact(linspace(-7, 100, 7, kInt64), kInt64, {-7, 10, 28, 46, 64, 82, 100});
  expect_exact(linspace(0, 255, 4, kUInt8), kUInt8, {0, 85, 170, 255});
  expect_exact(linspace(-1, 3, 3, kUInt8), kUInt8, {255, 129, 3});  // -1 wraps to 255 first
  expect_exact(linspace(0.5, 7.5, 3, kInt32), kInt32, {0, 3, 7});
  expect_exact(linspace(-3, 3, 7, kInt16), kInt16, {-3, -2, -1, 0, 1, 2, 3});
  // Longer: trunc(start + step * i) from the start, trunc(end - step * k) from the end, in double
  // (torch's vector path truncates at each vector start instead and gives 36, 45, 54 here).
  expect_exact(linspace(-7, 100, 13, kInt64), kInt64, {-7, 1, 10, 19, 28, 37, 46, 55, 64, 73, 82, 91, 100});
  Tensor big = linspace(0, 1000003, 100001, kInt32);
  auto got = raw(big);
  const double step = 1000003.0 / 100000.0;
  for (int64_t i = 0; i < 100001; ++i) {
    const double v = i < 50000 ? std::fma(step, static_cast<double>(i), 0.0)
                               : std::fma(-step, static_cast<double>(100000 - i), 1000003.0);
    ASSERT_EQ(got[static_cast<size_t>(i)], std::trunc(v)) << "at " << i;
  }
}

TEST(Linspace, Errors) {
  expect_error([] { linspace(3, 5, -1); }, "number of steps must be non-negative");
  expect_error([] { linspace(0, 1, 3, kBool); }, "\"linspace_cpu\" not implemented for 'Bool'");
  expect_error([] { linspace(0, 1e300, 3, kInt8); }, "value cannot be converted to type int8_t without overflow");
  expect_error([] { linspace(0, 1e300, 3, kInt32); }, "value cannot be converted to type int without overflow");
  expect_error([] { linspace(0, 1e300, 3, kFloat16); }, "value cannot be converted to type at::Half without overflow");
  expect_error([] { linspace(0, 1e300, 3, kFloat32); }, "value cannot be converted to type float without overflow");
  expect_error([] { linspace(-1.0, 3, 3, kUInt8); }, "value cannot be converted to type uint8_t without overflow");
  expect_error([] { linspace(0, std::nan(""), 3, kInt32); }, "value cannot be converted to type int without overflow");
  auto nan = raw(linspace(0, std::nan(""), 3));  // NaN fits floating dtypes
  for (double v : nan) EXPECT_TRUE(std::isnan(v));
}

// ---- eye ----

TEST(Eye, Values) {
  Tensor e = eye(3);
  EXPECT_EQ(e.dtype(), kFloat32);
  testing::expect_values(e, {3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  Tensor r = eye(2, 4, kInt64);
  EXPECT_EQ(r.dtype(), kInt64);
  testing::expect_values(r, {2, 4}, {1, 0, 0, 0, 0, 1, 0, 0});
  Tensor b = eye(3, 2, kBool);
  EXPECT_EQ(b.dtype(), kBool);
  testing::expect_values(b, {3, 2}, {1, 0, 0, 1, 0, 0});
  testing::expect_values(eye(2, 3, kFloat16), {2, 3}, {1, 0, 0, 0, 1, 0});
  testing::expect_values(eye(0), {0, 0}, {});
  testing::expect_values(eye(2, 0), {2, 0}, {});
  testing::expect_values(eye(1), {1, 1}, {1});
}

TEST(Eye, Errors) {
  expect_error([] { eye(-1); }, "n must be greater or equal to 0, got -1");
  expect_error([] { eye(2, -1); }, "m must be greater or equal to 0, got -1");
}

// ---- meta and the boxed path ----

TEST(RangeFactories, MetaHasShapesAndChecks) {
  {
    DeviceGuard g(kMeta);
    Tensor a = arange(5);
    EXPECT_TRUE(a.is_meta());
    EXPECT_EQ(a.sizes().vec(), (std::vector<int64_t>{5}));
    EXPECT_EQ(a.dtype(), kInt64);
    Tensor l = linspace(0, 10, 5);
    EXPECT_TRUE(l.is_meta());
    EXPECT_EQ(l.sizes().vec(), (std::vector<int64_t>{5}));
    Tensor e = eye(3, 4);
    EXPECT_TRUE(e.is_meta());
    EXPECT_EQ(e.sizes().vec(), (std::vector<int64_t>{3, 4}));
    EXPECT_EQ(linspace(1, 2, 1).numel(), 1);
    expect_error([] { arange(0, 10, 0); }, "step must be nonzero");
    expect_error([] { eye(-2); }, "n must be greater or equal to 0, got -2");
    expect_error([] { linspace(0, 1, -1); }, "number of steps must be non-negative");
  }
  Tensor m = arange(0, 3, 1, TensorOptions(kFloat64).device(kMeta));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.dtype(), kFloat64);
}

TEST(RangeFactories, BoxedCallsFillDefaults) {
  Stack out = find_op("aten::arange", "start_step").call({Value(Scalar(2)), Value(Scalar(5))});
  ASSERT_EQ(out.size(), 1u);
  expect_exact(out[0].to_tensor(), kInt64, {2, 3, 4});
  out = find_op("aten::linspace").call({Value(Scalar(0)), Value(Scalar(1)), Value(int64_t{3})});
  expect_exact(out[0].to_tensor(), kFloat32, {0, 0.5, 1});
  out = find_op("aten::eye", "m").call({Value(int64_t{2}), Value(int64_t{2})});
  testing::expect_values(out[0].to_tensor(), {2, 2}, {1, 0, 0, 1});
}

// ---- tensor literals ----

TEST(TensorLiteral, ShapesAndDtypeInference) {
  Tensor a = tensor({1, 2, 3});
  EXPECT_EQ(a.dtype(), kInt64);
  testing::expect_values(a, {3}, {1, 2, 3});
  Tensor b = tensor({{1., 2.}, {3., 4.}});
  EXPECT_EQ(b.dtype(), kFloat32);
  testing::expect_values(b, {2, 2}, {1, 2, 3, 4});
  Tensor c = tensor({true, false});
  EXPECT_EQ(c.dtype(), kBool);
  testing::expect_values(c, {2}, {1, 0});
  Tensor d = tensor({1.5, 2.0}, kFloat64);
  EXPECT_EQ(d.dtype(), kFloat64);
  testing::expect_values(d, {2}, {1.5, 2.0});
  Tensor mixed = tensor({1, 2.5});  // any float makes it float
  EXPECT_EQ(mixed.dtype(), kFloat32);
  testing::expect_values(mixed, {2}, {1, 2.5});
  EXPECT_EQ(tensor({true, 1}).dtype(), kInt64);  // bools with ints are ints
  Tensor nested = tensor({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}, {{9, 10}, {11, 12}}});
  testing::expect_values(nested, {3, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Tensor scalar = tensor(5);
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_EQ(scalar.item<int64_t>(), 5);
  EXPECT_EQ(tensor(5.5).dtype(), kFloat32);
  Tensor none = tensor({});
  EXPECT_EQ(none.dtype(), kFloat32);
  EXPECT_EQ(none.sizes().vec(), (std::vector<int64_t>{0}));
  EXPECT_EQ(tensor({{}, {}}).sizes().vec(), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(tensor({{{}}}).sizes().vec(), (std::vector<int64_t>{1, 1, 0}));
  testing::expect_values(tensor({int64_t{1} << 40}), {1}, {1099511627776.0});
  DefaultDtypeGuard g(kFloat64);
  EXPECT_EQ(tensor({1.5}).dtype(), kFloat64);
  EXPECT_EQ(tensor({1, 2}).dtype(), kInt64);
}

TEST(TensorLiteral, VectorsAndScalars) {
  testing::expect_values(tensor(std::vector<float>{0.5f, 1.5f}), {2}, {0.5, 1.5});
  EXPECT_EQ(tensor(std::vector<float>{0.5f}).dtype(), kFloat32);
  Tensor bools = tensor(std::vector<bool>{true, false, true});
  EXPECT_EQ(bools.dtype(), kBool);
  testing::expect_values(bools, {3}, {1, 0, 1});
  Tensor rows = tensor({std::vector<int>{1, 2}, std::vector<int>{3, 4}});
  EXPECT_EQ(rows.dtype(), kInt64);
  testing::expect_values(rows, {2, 2}, {1, 2, 3, 4});
  testing::expect_values(tensor({Scalar(1), Scalar(2.5)}), {2}, {1, 2.5});
  std::vector<TensorData> built;  // lists made at run time, as a Python binding would
  for (int i = 0; i < 3; ++i) built.emplace_back(TensorData{i, i * 10});
  Tensor b = tensor(TensorData(std::move(built)));
  EXPECT_EQ(b.dtype(), kInt64);
  testing::expect_values(b, {3, 2}, {0, 0, 1, 10, 2, 20});
}

TEST(TensorLiteral, ExplicitDtypeConvertsWithChecks) {
  Tensor h = tensor({{1, 2}, {3, 4}}, kFloat16);
  EXPECT_EQ(h.dtype(), kFloat16);
  testing::expect_values(h, {2, 2}, {1, 2, 3, 4});
  testing::expect_values(tensor({1.5, 2.7}, kInt64), {2}, {1, 2});  // truncation
  testing::expect_values(tensor({1.5, 0.0}, kBool), {2}, {1, 0});
  testing::expect_values(tensor({-1}, kUInt8), {1}, {255});  // negative ints wrap into uint8
  testing::expect_values(tensor({true, 3}, kUInt8), {2}, {1, 3});
  const double inf = std::numeric_limits<double>::infinity();
  testing::expect_values(tensor({1e300}, kFloat32), {1}, {inf});  // floats are not range-checked
  expect_error([] { tensor({300, -1}, kUInt8); }, "value cannot be converted to type uint8 without overflow");
  expect_error([] { tensor({-1.5}, kUInt8); }, "value cannot be converted to type uint8 without overflow");
  expect_error([] { tensor({1e10}, kInt32); }, "value cannot be converted to type int32 without overflow");
  expect_error([] { tensor({std::nan("")}, kInt32); }, "value cannot be converted to type int32 without overflow");
  expect_error([] { tensor({1e300}, kInt64); }, "value cannot be converted to type int64 without overflow");
}

TEST(TensorLiteral, RaggedNestingIsAValueError) {
  expect_error([] { tensor({{1, 2}, {3, 4, 5}}); }, "expected sequence of length 2 at dim 1 (got 3)",
               ErrorKind::Value);
  expect_error([] { tensor({{1, 2}, {3}}); }, "expected sequence of length 2 at dim 1 (got 1)", ErrorKind::Value);
  expect_error([] { tensor({{{1, 2}, {3, 4}}, {{1, 2}, {3}}}); },
               "expected sequence of length 2 at dim 2 (got 1)", ErrorKind::Value);
  expect_error([] { tensor({{1, 2}, {}}); }, "expected sequence of length 2 at dim 1 (got 0)", ErrorKind::Value);
  expect_error([] { tensor({{}, {1}}); }, "expected sequence of length 0 at dim 1 (got 1)", ErrorKind::Value);
  expect_error([] { tensor({{1, 2}, 3}); }, "expected sequence of length 2 at dim 1 (got a number)",
               ErrorKind::Type);
  expect_error([] { tensor({1, {2, 3}}); }, "expected a number at dim 1 (got a sequence of length 2)",
               ErrorKind::Type);
}

TEST(TensorLiteral, Devices) {
  Tensor m = tensor({1.5, 2.5}, TensorOptions().device(kMeta));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.sizes().vec(), (std::vector<int64_t>{2}));
  {
    DeviceGuard g(kMeta);
    Tensor n = tensor({{1, 2}});
    EXPECT_TRUE(n.is_meta());
    EXPECT_EQ(n.dtype(), kInt64);
    expect_error([] { tensor({300}, kUInt8); }, "value cannot be converted to type uint8 without overflow");
  }
  EXPECT_TRUE(tensor({1}).is_cpu());
}

}  // namespace
}  // namespace ember
