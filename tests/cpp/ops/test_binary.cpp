// Binary arithmetic: harness rows, type promotion, PyTorch's integer semantics (floor and
// remainder signs, division by zero, negative powers), error texts, in-place rules.
#include <cmath>
#include <limits>

#include "ember/dispatch.h"
#include "ops/elementwise_harness.h"

namespace ember {
namespace {

using testing::BinaryRow;
using testing::concat;
using testing::Domain;
using testing::expect_error;
using testing::expect_values;
using testing::tensor_of;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const std::vector<ScalarType> kNoBool = concat(testing::kFloatDtypes, testing::kIntDtypes);

double py_mod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

TEST(Binary, Add) {
  BinaryRow row;
  row.name = "add";
  row.fn = [](const Tensor& a, const Tensor& b) { return a + b; };
  row.inplace = [](Tensor& a, const Tensor& b) -> Tensor& { return a += b; };
  row.ref = [](double a, double b) { return a + b; };
  row.dtypes = testing::kAllDtypes;
  row.scalar_fn = [](const Tensor& a, const Scalar& s) { return a + s; };
  row.scalars = {Scalar(3), Scalar(-2.5), Scalar(true)};
  testing::run_binary_row(row);
}

TEST(Binary, AddWithAlpha) {
  BinaryRow row;
  row.name = "add(alpha=2)";
  row.fn = [](const Tensor& a, const Tensor& b) { return ember::add(a, b, 2); };
  row.inplace = [](Tensor& a, const Tensor& b) -> Tensor& { return a.add_(b, 2); };
  row.ref = [](double a, double b) { return a + 2 * b; };
  row.dtypes = kNoBool;
  row.unsupported_error = [](ScalarType) {
    return std::string("Boolean alpha only supported for Boolean results.");
  };
  testing::run_binary_row(row);
}

TEST(Binary, Sub) {
  BinaryRow row;
  row.name = "sub";
  row.fn = [](const Tensor& a, const Tensor& b) { return a - b; };
  row.inplace = [](Tensor& a, const Tensor& b) -> Tensor& { return a -= b; };
  row.ref = [](double a, double b) { return a - b; };  // uint8 wraps around
  row.dtypes = kNoBool;
  row.unsupported_error = [](ScalarType) {
    return std::string("Subtraction, the `-` operator, with two bool tensors is not supported.");
  };
  row.scalar_fn = [](const Tensor& a, const Scalar& s) { return a - s; };
  testing::run_binary_row(row);
}

TEST(Binary, Mul) {
  BinaryRow row;
  row.name = "mul";
  row.fn = [](const Tensor& a, const Tensor& b) { return a * b; };
  row.inplace = [](Tensor& a, const Tensor& b) -> Tensor& { return a *= b; };
  row.ref = [](double a, double b) { return a * b; };
  row.dtypes = testing::kAllDtypes;
  row.a_domain = row.b_domain = {-10, 10};
  row.scalar_fn = [](const Tensor& a, const Scalar& s) { return a * s; };
  row.scalars = {Scalar(3), Scalar(-2.5), Scalar(true)};
  testing::run_binary_row(row);
}

TEST(Binary, TrueDivision) {
  BinaryRow row;
  row.name = "div";
  row.fn = [](const Tensor& a, const Tensor& b) { return a / b; };
  row.inplace = [](Tensor& a, const Tensor& b) -> Tensor& { return a /= b; };
  row.ref = [](double a, double b) { return a / b; };  // x / 0 is ±inf or nan
  row.dtypes = testing::kFloatDtypes;
  row.compute_dtype = [](ScalarType t) { return is_floating(t) ? t : default_dtype(); };
  row.scalar_fn = [](const Tensor& a, const Scalar& s) { return a / s; };
  testing::run_binary_row(row);
}

TEST(Binary, TruncDivision) {
  BinaryRow row;
  row.name = "div(trunc)";
  row.fn = [](const Tensor& a, const Tensor& b) { return a.div(b, "trunc"); };
  row.inplace = [](Tensor& a, const Tensor& b) -> Tensor& { return a.div_(b, "trunc"); };
  row.ref = [](double a, double b) { return std::trunc(a / b); };
  row.dtypes = kNoBool;
  row.a_domain = {-20, 20};
  row.b_domain = {-5, 5, /*nonzero=*/true};
  row.scalar_fn = [](const Tensor& a, const Scalar& s) { return a.div(s, "trunc"); };
  testing::run_binary_row(row);
}

TEST(Binary, FloorDivision) {
  BinaryRow row;
  row.name = "div(floor)";
  row.fn = [](const Tensor& a, const Tensor& b) { return ember::div(a, b, "floor"); };
  row.inplace = [](Tensor& a, const Tensor& b) -> Tensor& { return a.div_(b, "floor"); };
  row.ref = [](double a, double b) { return std::floor(a / b); };
  row.dtypes = kNoBool;
  row.a_domain = {-20, 20};
  row.b_domain = {-5, 5, /*nonzero=*/true};
  row.scalar_fn = [](const Tensor& a, const Scalar& s) { return a.div(s, "floor"); };
  testing::run_binary_row(row);
}

TEST(Binary, Remainder) {
  BinaryRow row;
  row.name = "remainder";
  row.fn = [](const Tensor& a, const Tensor& b) { return a % b; };
  row.inplace = [](Tensor& a, const Tensor& b) -> Tensor& { return a.remainder_(b); };
  row.ref = py_mod;
  row.dtypes = kNoBool;
  row.a_domain = {-20, 20};
  row.b_domain = {-5, 5, /*nonzero=*/true};
  row.scalar_fn = [](const Tensor& a, const Scalar& s) { return a % s; };
  testing::run_binary_row(row);
}

TEST(Binary, PowTensorTensor) {
  BinaryRow row;
  row.name = "pow";
  row.fn = [](const Tensor& a, const Tensor& b) { return a.pow(b); };
  row.inplace = [](Tensor& a, const Tensor& b) -> Tensor& { return a.pow_(b); };
  row.ref = [](double a, double b) { return std::pow(a, b); };
  row.dtypes = kNoBool;
  row.unsupported_error = [](ScalarType) { return std::string("\"pow\" not implemented for 'Bool'"); };
  row.a_domain = {-3, 3};
  row.b_domain = {0, 3};
  row.scalar_fn = [](const Tensor& a, const Scalar& s) { return a.pow(s); };
  row.scalars = {Scalar(2), Scalar(3), Scalar(0.5), Scalar(0), Scalar(1), Scalar(-2.0), Scalar(-1.0),
                 Scalar(-0.5), Scalar(1.7)};
  testing::run_binary_row(row);
}

TEST(Binary, MaximumMinimum) {
  for (bool is_max : {true, false}) {
    BinaryRow row;
    row.name = is_max ? "maximum" : "minimum";
    row.fn = [is_max](const Tensor& a, const Tensor& b) {
      return is_max ? a.maximum(b) : ember::minimum(a, b);
    };
    row.ref = [is_max](double a, double b) { return is_max ? std::max(a, b) : std::min(a, b); };
    row.dtypes = testing::kAllDtypes;
    testing::run_binary_row(row);
  }
}

TEST(Binary, Bitwise) {
  struct Op {
    const char* name;
    Tensor (*fn)(const Tensor&, const Tensor&);
    Tensor& (Tensor::*inplace)(const Tensor&);
    Tensor (Tensor::*scalar)(const Scalar&) const;
    int64_t (*ref)(int64_t, int64_t);
  };
  const Op ops[] = {
      {"bitwise_and", [](const Tensor& a, const Tensor& b) { return a & b; }, &Tensor::bitwise_and_,
       &Tensor::bitwise_and, [](int64_t a, int64_t b) { return a & b; }},
      {"bitwise_or", [](const Tensor& a, const Tensor& b) { return a | b; }, &Tensor::bitwise_or_,
       &Tensor::bitwise_or, [](int64_t a, int64_t b) { return a | b; }},
      {"bitwise_xor", [](const Tensor& a, const Tensor& b) { return a ^ b; }, &Tensor::bitwise_xor_,
       &Tensor::bitwise_xor, [](int64_t a, int64_t b) { return a ^ b; }},
  };
  for (const Op& op : ops) {
    BinaryRow row;
    row.name = op.name;
    row.fn = op.fn;
    row.inplace = [&op](Tensor& a, const Tensor& b) -> Tensor& { return (a.*op.inplace)(b); };
    row.ref = [&op](double a, double b) {
      return static_cast<double>(op.ref(static_cast<int64_t>(a), static_cast<int64_t>(b)));
    };
    row.dtypes = concat(testing::kIntDtypes, {kBool});
    row.a_domain = row.b_domain = {-20, 20};
    row.scalar_fn = [&op](const Tensor& a, const Scalar& s) { return (a.*op.scalar)(s); };
    row.scalars = {Scalar(6), Scalar(true), Scalar(1.5)};  // a float scalar is refused
    testing::run_binary_row(row);
  }
  expect_error([] { ones({2}) & ones({2}); }, "\"bitwise_and_cpu\" not implemented for 'Float'");
  expect_error([] { ones({2}, kFloat64) ^ ones({2}, kFloat64); },
               "\"bitwise_xor_cpu\" not implemented for 'Double'");
}

TEST(Binary, Promotion) {
  Tensor i32 = tensor_of({1, 2}, kInt32);
  EXPECT_EQ((i32 + 1.5).dtype(), kFloat32);  // int tensor + float scalar → default float
  EXPECT_EQ((i32 + 1).dtype(), kInt32);       // weak int scalar keeps int32
  EXPECT_EQ((i32 / tensor_of({2, 2}, kInt32)).dtype(), kFloat32);
  expect_values(i32 / tensor_of({2, 2}, kInt32), {2}, {0.5, 1});
  EXPECT_EQ((tensor_of({1}, kUInt8) + tensor_of({1}, kInt8)).dtype(), kInt16);
  Tensor b = tensor_of({1, 0}, kBool);
  EXPECT_EQ((b + b).dtype(), kBool);
  expect_values(b + b, {2}, {1, 0});
  EXPECT_EQ((b * 2).dtype(), kInt64);
  EXPECT_EQ((b * true).dtype(), kBool);
  EXPECT_EQ((tensor_of({1}, kFloat16) + tensor_of({1}, kBFloat16)).dtype(), kFloat32);
  EXPECT_EQ((tensor_of({1}, kFloat32) + scalar_tensor(1.0, kFloat64)).dtype(), kFloat32);
  EXPECT_EQ((tensor_of({1}, kInt64) + scalar_tensor(1.0, kFloat64)).dtype(), kFloat64);
  EXPECT_EQ((scalar_tensor(1, kInt64) + scalar_tensor(1.5, kFloat16)).dtype(), kFloat16);
  EXPECT_EQ((tensor_of({5}, kInt8).div(2.5, "floor")).dtype(), kFloat32);
  EXPECT_EQ((tensor_of({5}, kInt64).div(2, "floor")).dtype(), kInt64);
  EXPECT_EQ(tensor_of({2, 3}, kInt64).pow(2.0).dtype(), kFloat32);  // int ** float scalar
  EXPECT_EQ(tensor_of({2, 3}, kInt64).pow(scalar_tensor(2.0, kFloat64)).dtype(), kFloat64);
  EXPECT_EQ(tensor_of({2, 3}, kInt64).pow(scalar_tensor(2.0, kFloat32)).dtype(), kFloat32);
  EXPECT_EQ(tensor_of({2, 3}, kUInt8).pow(tensor_of({1}, kInt8)).dtype(), kInt16);
  EXPECT_EQ(b.pow(2).dtype(), kInt64);
  EXPECT_EQ(tensor_of({1, 2}, kInt64).maximum(scalar_tensor(1.5, kFloat64)).dtype(), kFloat64);
  EXPECT_EQ(tensor_of({1, 2}, kFloat16).maximum(scalar_tensor(1.5, kFloat64)).dtype(), kFloat16);
  set_default_dtype(kFloat64);
  ScalarType div_dtype = (i32 / i32).dtype(), scalar_dtype = (i32 * 1.5).dtype();
  set_default_dtype(kFloat32);
  EXPECT_EQ(div_dtype, kFloat64);
  EXPECT_EQ(scalar_dtype, kFloat64);
  // Wrapped scalars are cast to the compute dtype: uint8 - 3 wraps around.
  expect_values(tensor_of({1, 2}, kUInt8) - 3, {2}, {254, 255});
  expect_values(tensor_of({1, 2}, kInt8) * 300, {2}, {44, 88});
}

TEST(Binary, IntegerDivisionSemantics) {
  Tensor a = tensor_of({7, -7, 7, -7}, kInt64), b = tensor_of({2, 2, -2, -2}, kInt64);
  expect_values(a.div(b, "floor"), {4}, {3, -4, -4, 3});
  expect_values(a.div(b, "trunc"), {4}, {3, -3, -3, 3});
  expect_values(a % b, {4}, {1, 1, -1, -1});  // the divisor's sign, as Python
  Tensor m = tensor_of({-128}, kInt8), n = tensor_of({-1}, kInt8);
  expect_values(m.div(n, "floor"), {1}, {-128});  // wraps, no trap
  expect_values(m.div(n, "trunc"), {1}, {-128});
  expect_values(m % n, {1}, {0});
  Tensor big = tensor_of({-9223372036854775807.0 - 1}, kInt64);
  EXPECT_EQ(big.div(tensor_of({-1}, kInt64), "floor").item<int64_t>(),
            std::numeric_limits<int64_t>::min());
  expect_values(tensor_of({1, 2}, kUInt8).div(-1, "floor"), {2}, {0, 0});  // -1 is 255
  // Division by zero: floats give IEEE values, integers an error (self untouched).
  Tensor f = tensor_of({5, -5, 0}, kFloat32), z = zeros({3});
  expect_values(f / z, {3}, {kInf, -kInf, kNaN});
  expect_values(f.div(z, "floor"), {3}, {kInf, -kInf, kNaN});
  expect_values(f.div(z, "trunc"), {3}, {kInf, -kInf, kNaN});
  expect_values(f % z, {3}, {kNaN, kNaN, kNaN});
  expect_values(tensor_of({5, -5, 0}, kInt64) / zeros({3}, kInt64), {3}, {kInf, -kInf, kNaN});
  Tensor i = tensor_of({5, -5, 3}, kInt32), iz = tensor_of({1, 0, 1}, kInt32);
  expect_error([&] { i.div(iz, "floor"); }, "ZeroDivisionError");
  expect_error([&] { i.div(iz, "trunc"); }, "ZeroDivisionError");
  expect_error([&] { i % iz; }, "ZeroDivisionError");
  expect_error([&] { i.remainder(0); }, "ZeroDivisionError");
  expect_error([&] { i.div_(iz, "floor"); }, "ZeroDivisionError");
  expect_error([&] { i.remainder_(iz); }, "ZeroDivisionError");
  expect_values(i, {3}, {5, -5, 3});
  EXPECT_EQ(i.version(), 0u);
  EXPECT_EQ(empty({0}, kInt64).div(scalar_tensor(0, kInt64), "floor").numel(), 0);  // nothing divided
  // Floating floor and remainder follow PyTorch at the edges.
  Tensor e = tensor_of({5, -5, -0.0, 6, -6}, kFloat32);
  expect_values(e.div(kInf, "floor"), {5}, {0, -1, -0.0, 0, -1});
  expect_values(e % kInf, {5}, {5, kInf, -0.0, 6, kInf});
  expect_values(tensor_of({-6}, kFloat32) % 2, {1}, {-0.0});
  EXPECT_TRUE(std::signbit((tensor_of({0}, kFloat32).div(-3, "floor")).item<double>()));
  expect_error([&] { i.div(iz, "round"); },
               "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'");
  expect_error([] { tensor_of({1}, kBool).div(tensor_of({1}, kBool), "floor"); },
               "\"div_floor_cpu\" not implemented for 'Bool'");
  expect_error([] { tensor_of({1}, kBool) % tensor_of({1}, kBool); },
               "\"remainder_cpu\" not implemented for 'Bool'");
}

TEST(Binary, PowSemantics) {
  Tensor i = tensor_of({2, 3}, kInt64);
  expect_error([&] { i.pow(-1); }, "Integers to negative integer powers are not allowed.");
  expect_error([&] { tensor_of({1}, kUInt8).pow(-2); }, "Integers to negative integer powers are not allowed.");
  expect_error([&] { i.pow_(-1); }, "Integers to negative integer powers are not allowed.");
  expect_values(i.pow(-1.0), {2}, {0.5, 1.0 / 3});
  // A tensor exponent is not checked: negative powers give 0, or ±1 for a base of ±1.
  expect_values(tensor_of({1, -1, -1, 0, 2}, kInt64).pow(tensor_of({-1, -3, -4, -1, -1}, kInt64)),
                {5}, {1, -1, 1, 0, 0});
  expect_values(tensor_of({2}, kInt8).pow(tensor_of({9}, kInt8)), {1}, {0});  // wraps
  EXPECT_EQ(tensor_of({3}, kInt64).pow(tensor_of({63}, kInt64)).item<int64_t>(), -3237885987332494933);
  expect_values(tensor_of({5, 2}, kInt8).pow(5), {2}, {53, 32});
  expect_error([] { tensor_of({1}, kInt8).pow(300); }, "value cannot be converted to type int8_t without overflow");
  expect_values(tensor_of({kNaN, 2}, kFloat32).pow(0), {2}, {1, 1});
  expect_values(tensor_of({1, 0}, kBool).pow(0), {2}, {1, 1});
  expect_error([] { tensor_of({1, 0}, kBool).pow(false); }, "\"pow\" not implemented for 'Bool'");
  expect_error([] { tensor_of({1}, kBool).pow(tensor_of({1}, kBool)); }, "\"pow\" not implemented for 'Bool'");
  // bfloat16 rounds the exponent to bfloat16 (0.3 → 0.30078125), as PyTorch does.
  expect_values(tensor_of({2, 3}, kBFloat16).pow(0.3), {2}, {1.234375, 1.390625}, 0, 0);
  expect_values(tensor_of({-8, 0}, kFloat32).pow(1.0 / 3), {2}, {kNaN, 0});
  expect_values(tensor_of({0}, kFloat32).pow(-1), {1}, {kInf});
  // In place: the result dtype must be self's.
  Tensor l = tensor_of({2, 3}, kInt64);
  expect_error([&] { l.pow_(0.5); }, "Found dtype Long but expected Float");
  expect_error([&] { tensor_of({1}, kBool).pow_(2); }, "Found dtype Bool but expected Long");
  expect_error([&] { l.pow_(tensor_of({2.0}, kFloat32)); },
               "result type Float can't be cast to the desired output type Long");
  expect_values(l, {2}, {2, 3});
  l.pow_(tensor_of({-1}, kInt64));
  expect_values(l, {2}, {0, 0});
  Tensor h = tensor_of({1, 2}, kFloat16);
  h.pow_(2.5);
  expect_values(h, {2}, {1, 5.65625}, 0, 0);
  EXPECT_EQ(h.version(), 1u);
}

TEST(Binary, MaximumPropagatesNaN) {
  Tensor a = tensor_of({1, kNaN, 3}, kFloat32), b = tensor_of({kNaN, 2, 1}, kFloat32);
  expect_values(a.maximum(b), {3}, {kNaN, kNaN, 3});
  expect_values(ember::minimum(a, b), {3}, {kNaN, kNaN, 1});
  expect_values(tensor_of({1, kNaN}, kBFloat16).maximum(tensor_of({2, 0}, kBFloat16)), {2}, {2, kNaN});
  expect_values(tensor_of({1, 0}, kBool).maximum(tensor_of({0, 0}, kBool)), {2}, {1, 0});
}

TEST(Binary, ScalarOperandsAndOperators) {
  Tensor t = tensor_of({1, 2, 3}, kFloat32);
  expect_values(2 * t, {3}, {2, 4, 6});
  expect_values(6 / t, {3}, {6, 3, 2});
  expect_values(1 - t, {3}, {0, -1, -2});
  expect_values(t % 2, {3}, {1, 0, 1});
  expect_values(tensor_of({-5, 5}, kInt64) % 3, {2}, {1, 2});
  expect_values(tensor_of({-5.5, 5.5}, kFloat32) % 3, {2}, {0.5, 2.5});
  Tensor u = t.clone();
  u *= 2;
  u /= 4;
  expect_values(u, {3}, {0.5, 1, 1.5});
  EXPECT_EQ(u.version(), 2u);
  expect_values(tensor_of({3}, kInt64).bitwise_and(1), {1}, {1});
  expect_values(tensor_of({3}, kInt64).bitwise_and_(tensor_of({1}, kBool)), {1}, {1});
}

TEST(Binary, InplaceRules) {
  Tensor l = tensor_of({1, 2}, kInt64);
  expect_error([&] { l *= 1.5; }, "result type Float can't be cast to the desired output type Long");
  expect_error([&] { l /= 2; }, "result type Float can't be cast to the desired output type Long");
  expect_error([&] { tensor_of({1}, kBool).mul_(tensor_of({2}, kInt64)); },
               "result type Long can't be cast to the desired output type Bool");
  expect_error([&] { l.mul_(ones({2, 2}, kInt64)); }, "output with shape [2] doesn't match the broadcast shape [2, 2]");
  expect_values(l, {2}, {1, 2});
  EXPECT_EQ(l.version(), 0u);
  l.div_(2, "floor");
  expect_values(l, {2}, {0, 1});
  // float16 self with a float32 operand: computed in float32, narrowed into self.
  Tensor h = tensor_of({1, 2}, kFloat16);
  EXPECT_EQ((h / tensor_of({3, 3}, kFloat32)).dtype(), kFloat32);
  h.div_(tensor_of({3, 3}, kFloat32));
  EXPECT_EQ(h.dtype(), kFloat16);
  expect_values(h, {2}, {0.333251953125, 0.66650390625}, 0, 0);
  // Overlap: a partial alias is refused, the same tensor is fine, expanded outputs refused.
  Tensor a = tensor_of({0, 1, 2, 3, 4}, kFloat32);
  expect_error([&] { a.slice(0, 1).add_(a.slice(0, 0, 4)); },
               "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location.");
  expect_values(a, {5}, {0, 1, 2, 3, 4});
  a.add_(a);
  expect_values(a, {5}, {0, 2, 4, 6, 8});
  Tensor sq = tensor_of({0, 1, 2, 3}, kFloat32, {2, 2});
  expect_error([&] { sq.mul_(sq.t()); }, "unsupported operation: some elements of the input tensor");
  // Interleaved views share no element: PyTorch cannot tell and computes; so does ember.
  Tensor v = tensor_of({0, 1, 2, 3, 4, 5}, kFloat32);
  v.slice(0, 0, std::nullopt, 2).add_(v.slice(0, 1, std::nullopt, 2));
  expect_values(v, {6}, {1, 1, 5, 3, 9, 5});
  expect_error([] { ones({2, 1}).expand({2, 3}).mul_(2); },
               "unsupported operation: more than one element of the written-to tensor refers to a single memory location.");
  expect_error([] { tensor_of({1, 2}, kInt8).add(1, 300); },
               "value cannot be converted to type int8_t without overflow");
}

TEST(Binary, Meta) {
  DeviceGuard guard(kMeta);
  Tensor a = empty({4, 1, 3}, kInt32), b = empty({2, 3}, kInt32);
  Tensor q = a / b;
  EXPECT_TRUE(q.is_meta());
  EXPECT_EQ(q.dtype(), kFloat32);
  EXPECT_EQ(q.sizes().vec(), (std::vector<int64_t>{4, 2, 3}));
  // No data: integer division by zero cannot be detected and is not an error.
  EXPECT_EQ(a.div(b, "floor").dtype(), kInt32);
  EXPECT_EQ(a.pow(2).dtype(), kInt32);
  EXPECT_EQ(a.pow(0.5).dtype(), kFloat32);
  Tensor s = empty({2, 3}, kFloat32);
  s.mul_(b);
  EXPECT_EQ(s.version(), 1u);
  expect_error([&] { b.mul_(s); }, "result type Float can't be cast to the desired output type Int");
  expect_error([] { ones({2}, TensorOptions().device(kCPU)) + empty({2}); },
               "Expected all tensors to be on the same device");
}

TEST(Binary, BoxedCallsAndDispatchNames) {
  Tensor a = tensor_of({7, -7}, kInt64), b = tensor_of({2, 2}, kInt64);
  Stack out = find_op("aten::div", "Tensor_mode").call({Value(a), Value(b), Value("floor")});
  expect_values(out[0].to_tensor(), {2}, {3, -4});
  out = find_op("aten::div", "Tensor").call({Value(a), Value(b)});
  expect_values(out[0].to_tensor(), {2}, {3.5, -3.5});
  out = find_op("aten::pow", "Tensor_Scalar").call({Value(a), Value(2)});
  expect_values(out[0].to_tensor(), {2}, {49, 49});

  // `a / b` is aten::div.Tensor, `a.div(b, "trunc")` aten::div.Tensor_mode.
  struct Names : DispatchMode {
    std::vector<std::string> seen;
    std::optional<Stack> torch_dispatch(const OpHandle& op, const Stack& args) override {
      seen.push_back(op.full_name());
      return op.redispatch(args);
    }
  };
  auto mode = make_intrusive<Names>();
  {
    DispatchModeGuard g(mode);
    (void)(a / b);
    (void)a.div(b, "trunc");
    (void)(a * 2);
  }
  ASSERT_EQ(mode->seen.size(), 3u);
  EXPECT_EQ(mode->seen[0], "aten::div.Tensor");
  EXPECT_EQ(mode->seen[1], "aten::div.Tensor_mode");
  EXPECT_EQ(mode->seen[2], "aten::mul.Tensor");
}

}  // namespace
}  // namespace ember
