// Unary math: harness rows (every dtype and layout against a float64 reference) and the cases
// the rows cannot express: exact error texts, special values, promotion with the default dtype.
#include <cmath>
#include <limits>

#include "ops/elementwise_harness.h"

namespace ember {
namespace {

using testing::Domain;
using testing::expect_error;
using testing::expect_values;
using testing::UnaryRow;
using testing::concat;
using testing::tensor_of;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

ScalarType float_compute(ScalarType t) { return is_floating(t) ? t : default_dtype(); }

// A floating function: integer and bool inputs compute in the default dtype; float16 and bfloat16
// compute in float (PyTorch 1.13's CPU kernels refuse float16, later versions support it).
UnaryRow float_row(const std::string& name, Tensor (Tensor::*fn)() const,
                   Tensor& (Tensor::*inplace)(), double (*ref)(double), Domain domain) {
  UnaryRow row;
  row.name = name;
  row.fn = [fn](const Tensor& t) { return (t.*fn)(); };
  row.inplace = [inplace](Tensor& t) -> Tensor& { return (t.*inplace)(); };
  row.ref = ref;
  row.dtypes = testing::kFloatDtypes;
  row.domain = domain;
  row.compute_dtype = float_compute;
  return row;
}

TEST(Unary, Exp) {
  run_unary_row(float_row("exp", &Tensor::exp, &Tensor::exp_, [](double x) { return std::exp(x); }, {-5, 5}));
}
TEST(Unary, Log) {
  run_unary_row(float_row("log", &Tensor::log, &Tensor::log_, [](double x) { return std::log(x); }, {-1, 10}));
}
TEST(Unary, Log1p) {
  run_unary_row(float_row("log1p", &Tensor::log1p, &Tensor::log1p_, [](double x) { return std::log1p(x); }, {-1, 10}));
}
TEST(Unary, Expm1) {
  run_unary_row(float_row("expm1", &Tensor::expm1, &Tensor::expm1_, [](double x) { return std::expm1(x); }, {-3, 3}));
}
TEST(Unary, Sqrt) {
  run_unary_row(float_row("sqrt", &Tensor::sqrt, &Tensor::sqrt_, [](double x) { return std::sqrt(x); }, {-1, 10}));
}
TEST(Unary, Rsqrt) {
  run_unary_row(float_row("rsqrt", &Tensor::rsqrt, &Tensor::rsqrt_, [](double x) { return 1 / std::sqrt(x); }, {-1, 10}));
}
TEST(Unary, Sin) {
  run_unary_row(float_row("sin", &Tensor::sin, &Tensor::sin_, [](double x) { return std::sin(x); }, {-5, 5}));
}
TEST(Unary, Cos) {
  run_unary_row(float_row("cos", &Tensor::cos, &Tensor::cos_, [](double x) { return std::cos(x); }, {-5, 5}));
}
TEST(Unary, Tanh) {
  run_unary_row(float_row("tanh", &Tensor::tanh, &Tensor::tanh_, [](double x) { return std::tanh(x); }, {-5, 5}));
}
TEST(Unary, Sigmoid) {
  run_unary_row(float_row("sigmoid", &Tensor::sigmoid, &Tensor::sigmoid_,
                          [](double x) { return 1 / (1 + std::exp(-x)); }, {-10, 10}));
}

TEST(Unary, Neg) {
  UnaryRow row;
  row.name = "neg";
  row.fn = [](const Tensor& t) { return -t; };
  row.inplace = [](Tensor& t) -> Tensor& { return t.neg_(); };
  row.ref = [](double x) { return -x; };
  row.dtypes = concat(testing::kFloatDtypes, testing::kIntDtypes);  // uint8 wraps around
  row.unsupported_error = [](ScalarType) {
    return std::string(
        "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
        "invert a mask, use the `~` or `logical_not()` operator instead.");
  };
  run_unary_row(row);
}

TEST(Unary, Abs) {
  UnaryRow row;
  row.name = "abs";
  row.fn = [](const Tensor& t) { return ember::abs(t); };
  row.inplace = [](Tensor& t) -> Tensor& { return t.abs_(); };
  row.ref = [](double x) { return std::abs(x); };
  row.dtypes = concat(testing::kFloatDtypes, testing::kIntDtypes);
  run_unary_row(row);  // bool: "abs_cpu" not implemented for 'Bool'
}

TEST(Unary, Sign) {
  UnaryRow row;
  row.name = "sign";
  row.fn = [](const Tensor& t) { return t.sign(); };
  row.inplace = [](Tensor& t) -> Tensor& { return t.sign_(); };
  row.ref = [](double x) { return static_cast<double>((0 < x) - (x < 0)); };
  row.dtypes = testing::kAllDtypes;
  run_unary_row(row);
}

TEST(Unary, Relu) {
  UnaryRow row;
  row.name = "relu";
  row.fn = [](const Tensor& t) { return t.relu(); };
  row.inplace = [](Tensor& t) -> Tensor& { return t.relu_(); };
  row.ref = [](double x) { return x < 0 ? 0.0 : x; };
  row.dtypes = concat(testing::kFloatDtypes, testing::kIntDtypes);
  row.unsupported_error = [](ScalarType) { return std::string("Boolean inputs not supported for relu"); };
  run_unary_row(row);
}

TEST(Unary, LogicalNot) {
  UnaryRow row;
  row.name = "logical_not";
  row.fn = [](const Tensor& t) { return t.logical_not(); };
  row.inplace = [](Tensor& t) -> Tensor& { return t.logical_not_(); };
  row.ref = [](double x) { return x == 0 ? 1.0 : 0.0; };
  row.dtypes = testing::kAllDtypes;
  row.domain = {-2, 2};
  row.result_dtype = [](ScalarType) { return kBool; };
  row.inplace_any_dtype = true;  // logical_not_ writes 0/1 in self's dtype
  run_unary_row(row);
}

TEST(Unary, BitwiseNot) {
  UnaryRow row;
  row.name = "bitwise_not";
  row.fn = [](const Tensor& t) { return ~t; };
  row.inplace = [](Tensor& t) -> Tensor& { return t.bitwise_not_(); };
  row.typed_ref = [](double x, ScalarType t) {
    return t == kBool ? (x == 0 ? 1.0 : 0.0) : static_cast<double>(~static_cast<int64_t>(x));
  };
  row.dtypes = concat(testing::kIntDtypes, {kBool});
  run_unary_row(row);  // floats: "bitwise_not_cpu" not implemented for 'Float'
}

TEST(Unary, ErrorTextsAsPyTorch) {
  expect_error([&] { ones({2}, kFloat32).bitwise_not(); },
               "\"bitwise_not_cpu\" not implemented for 'Float'");
  expect_error([&] { ones({2}, kBool).abs(); }, "\"abs_cpu\" not implemented for 'Bool'");
  Tensor i = tensor_of({1, 2}, kInt64);
  expect_error([&] { i.exp_(); }, "result type Float can't be cast to the desired output type Long");
  expect_values(i, {2}, {1, 2});
  EXPECT_EQ(i.version(), 0u);
  // Meta tensors only infer: no kernel, so no dtype error (as PyTorch's meta kernels).
  EXPECT_EQ(empty({2}, TensorOptions(kFloat16).device(kMeta)).exp().dtype(), kFloat16);
  expect_error([&] { -empty({2}, TensorOptions(kBool).device(kMeta)); },
               "Negation, the `-` operator, on a bool tensor is not supported.");
}

// PyTorch 1.13's CPU kernels refuse float16 ("exp_vml_cpu" not implemented for 'Half'); ember
// computes it in float and rounds once, as later versions do. Expected: torch on the float16
// inputs converted to float32, rounded back to float16 (the same as float64 rounded back).
TEST(Unary, Float16ComputesInFloat) {
  Tensor h = tensor_of({-2.5, -0.0, 0.3, 1.7, 11.0}, kFloat16);
  expect_values(h.exp(), {5}, {0.08209228515625, 1.0, 1.349609375, 5.4765625, 59872.0}, 0, 0);
  expect_values(h.rsqrt(), {5}, {kNaN, -kInf, 1.8251953125, 0.76708984375, 0.301513671875}, 0, 0);
  expect_values(h.sigmoid(), {5}, {0.07586669921875, 0.5, 0.57421875, 0.845703125, 1.0}, 0, 0);
  expect_values(h.log1p(), {5}, {kNaN, -0.0, 0.262451171875, 0.9931640625, 2.484375}, 0, 0);
  expect_values(h.tanh(), {5}, {-0.98681640625, -0.0, 0.291259765625, 0.935546875, 1.0}, 0, 0);
  Tensor r = h.relu();
  expect_values(r, {5}, {0.0, -0.0, 0.300048828125, 1.7001953125, 11.0}, 0, 0);
  EXPECT_TRUE(std::signbit(r.to(kFloat64).data_ptr<double>()[1]));  // relu(-0.0) is -0.0
  EXPECT_EQ(r.dtype(), kFloat16);
  // exp(12) = 162755 is beyond float16's largest finite value, 65504; exp(-20) = 2.1e-9 is below
  // half its smallest subnormal, 6e-8.
  expect_values(tensor_of({12.0, -20.0}, kFloat16).exp(), {2}, {kInf, 0.0}, 0, 0);
  Tensor t = tensor_of({0.0, 1.0}, kFloat16);
  t.sigmoid_();
  expect_values(t, {2}, {0.5, 0.73095703125}, 0, 0);
  EXPECT_EQ(t.version(), 1u);
}

TEST(Unary, SpecialValues) {
  Tensor f = tensor_of({-2.0, -0.0, 0.0, 3.0, kNaN, kInf}, kFloat32);
  expect_values(f.sign(), {6}, {-1, 0, 0, 1, 0, 1});  // sign(NaN) is 0 in PyTorch 1.13
  Tensor r = f.relu();
  expect_values(r, {6}, {0, 0, 0, 3, kNaN, kInf});
  EXPECT_TRUE(std::signbit(r.to(kFloat64).data_ptr<double>()[1]));  // relu(-0.0) is -0.0
  expect_values(tensor_of({0.0, -1.0, 4.0}, kFloat32).rsqrt(), {3}, {kInf, kNaN, 0.5});
  expect_values(tensor_of({-1000.0, 1000.0}, kFloat32).sigmoid(), {2}, {0, 1});
  expect_values(f.logical_not(), {6}, {0, 1, 1, 0, 0, 0});  // -0.0 is false, NaN true
  expect_values(tensor_of({-128, 127}, kInt8).abs(), {2}, {-128, 127});
  expect_values(tensor_of({-128, 5}, kInt8).neg(), {2}, {-128, -5});
  expect_values(tensor_of({0, 5, 255}, kUInt8).neg(), {3}, {0, 251, 1});
  expect_values(tensor_of({0, 5}, kUInt8).bitwise_not(), {2}, {255, 250});
  expect_values(~tensor_of({1, 0}, kBool), {2}, {0, 1});
  expect_values(tensor_of({1, 0}, kBool).sign(), {2}, {1, 0});
  EXPECT_EQ(tensor_of({1, 0}, kBool).sign().dtype(), kBool);
}

TEST(Unary, IntegersPromoteToTheDefaultDtype) {
  Tensor i = tensor_of({1, 4}, kInt32);
  EXPECT_EQ(i.sqrt().dtype(), kFloat32);
  expect_values(i.sqrt(), {2}, {1, 2});
  EXPECT_EQ(tensor_of({1}, kBool).exp().dtype(), kFloat32);
  set_default_dtype(kFloat64);
  Tensor d = i.sqrt();
  set_default_dtype(kFloat32);
  EXPECT_EQ(d.dtype(), kFloat64);
  expect_error([&] { i.sqrt_(); }, "result type Float can't be cast to the desired output type Int");
  EXPECT_EQ(i.relu().dtype(), kInt32);
  EXPECT_EQ(i.abs().dtype(), kInt32);
  EXPECT_EQ(i.logical_not().dtype(), kBool);
}

TEST(Unary, InplaceOnViewsAndRefusals) {
  Tensor base = tensor_of({1.0, -2.0, 3.0, -4.0, 5.0, -6.0}, kFloat32, {2, 3});
  Tensor col = base.select(1, 1);  // non-contiguous view
  col.neg_();
  expect_values(base, {2, 3}, {1, 2, 3, -4, -5, -6});
  EXPECT_EQ(base.version(), 1u);  // views share the version counter
  Tensor ex = tensor_of({1.0}, kFloat32).expand({3});
  expect_error([&] { ex.exp_(); }, "unsupported operation: more than one element of the written-to tensor refers to a single memory location.");
  Tensor t = tensor_of({1, 0, 2, 0}, kInt64, {2, 2});
  Tensor& r = t.logical_not_();
  EXPECT_TRUE(r.is_same(t));
  EXPECT_EQ(t.dtype(), kInt64);
  expect_values(t, {2, 2}, {0, 1, 0, 1});
}

TEST(Unary, BoxedCallsThroughTheOpTable) {
  Stack out = find_op("aten::exp").call({Value(tensor_of({0.0, 1.0}, kFloat32))});
  ASSERT_EQ(out.size(), 1u);
  expect_values(out[0].to_tensor(), {2}, {1, std::exp(1.0)});
  Tensor t = tensor_of({-1.0, 2.0}, kFloat32);
  find_op("aten::relu_").call({Value(t)});
  expect_values(t, {2}, {0, 2});
}

}  // namespace
}  // namespace ember
