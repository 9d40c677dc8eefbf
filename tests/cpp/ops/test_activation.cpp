// Activations: hardtanh (integers too), relu6, hardswish, hardsigmoid, gelu (both forms), silu.
#include <cmath>
#include <limits>

#include "ops/elementwise_harness.h"

namespace ember {
namespace {

using testing::concat;
using testing::expect_error;
using testing::expect_values;
using testing::tensor_of;
using testing::UnaryRow;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double clamp_ref(double x, double lo, double hi) { return std::min(std::max(x, lo), hi); }

UnaryRow float_activation(const std::string& name, std::function<Tensor(const Tensor&)> fn,
                          std::function<Tensor&(Tensor&)> inplace, std::function<double(double)> ref) {
  UnaryRow row;
  row.name = name;
  row.fn = std::move(fn);
  row.inplace = std::move(inplace);
  row.ref = std::move(ref);
  row.dtypes = testing::kFloatDtypes;  // integers: "hardswish_cpu" not implemented for 'Long'
  row.domain = {-5, 5};
  return row;
}

TEST(Activation, Hardtanh) {
  UnaryRow row;
  row.name = "hardtanh";
  row.fn = [](const Tensor& t) { return hardtanh(t, -2, 3); };
  row.inplace = [](Tensor& t) -> Tensor& { return hardtanh_(t, -2, 3); };
  row.ref = [](double x) { return clamp_ref(x, -2, 3); };
  row.dtypes = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8, kInt16, kInt32, kInt64};
  row.unsupported_error = [](ScalarType t) {
    return t == kBool ? std::string("Bool inputs not supported for hardtanh")
                      : std::string("cannot do hardtanh on an unsigned type with negative limits");
  };
  testing::run_unary_row(row);
}

TEST(Activation, Relu6) {
  UnaryRow row;
  row.name = "relu6";
  row.fn = [](const Tensor& t) { return relu6(t); };
  row.ref = [](double x) { return clamp_ref(x, 0, 6); };
  row.dtypes = concat(testing::kFloatDtypes, testing::kIntDtypes);  // uint8 too
  row.domain = {-8, 8};
  row.unsupported_error = [](ScalarType) { return std::string("Bool inputs not supported for hardtanh"); };
  testing::run_unary_row(row);
}

TEST(Activation, Hardswish) {
  testing::run_unary_row(float_activation(
      "hardswish", [](const Tensor& t) { return hardswish(t); },
      [](Tensor& t) -> Tensor& { return hardswish_(t); },
      [](double x) { return x * clamp_ref(x + 3, 0, 6) / 6; }));
}

TEST(Activation, Hardsigmoid) {
  testing::run_unary_row(float_activation(
      "hardsigmoid", [](const Tensor& t) { return hardsigmoid(t); },
      [](Tensor& t) -> Tensor& { return hardsigmoid_(t); },
      [](double x) { return clamp_ref(x + 3, 0, 6) / 6; }));
}

TEST(Activation, Silu) {
  testing::run_unary_row(float_activation(
      "silu", [](const Tensor& t) { return silu(t); }, [](Tensor& t) -> Tensor& { return silu_(t); },
      [](double x) { return x / (1 + std::exp(-x)); }));
}

TEST(Activation, Gelu) {
  testing::run_unary_row(float_activation(
      "gelu", [](const Tensor& t) { return gelu(t); }, nullptr,
      [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }));
  testing::run_unary_row(float_activation(
      "gelu(tanh)", [](const Tensor& t) { return gelu(t, "tanh"); }, nullptr, [](double x) {
        const double k = std::sqrt(2 / M_PI);
        return 0.5 * x * (1 + std::tanh(k * (x + 0.044715 * x * x * x)));
      }));
}

TEST(Activation, ValuesAsPyTorch) {
  Tensor x = tensor_of({-4, -3, -1, 0, 1, 3, 4}, kFloat32);
  // torch.ops.aten.hardswish / hardsigmoid / gelu(approximate='tanh') on the same input.
  expect_values(hardswish(x), {7}, {-0.0, -0.0, -0.3333333432674408, 0.0, 0.6666666865348816, 3.0, 4.0});
  expect_values(hardsigmoid(x), {7}, {0, 0, 0.3333333432674408, 0.5, 0.6666666865348816, 1, 1});
  expect_values(gelu(x, "tanh"), {7},
                {-7.021427154541016e-05, -0.0036374330520629883, -0.15880799293518066, 0.0,
                 0.8411920070648193, 2.9963626861572266, 3.999929904937744});
  Tensor y = tensor_of({5, 2, 3}, kFloat32);
  expect_values(gelu(y), {3}, {4.999998569488525, 1.9544999599456787, 2.995950222015381});
  expect_values(silu(y), {3}, {4.966535568237305, 1.7615940570831299, 2.857722520828247});
  // bfloat16 computes in float and rounds once (PyTorch 1.13 rounds every step in bfloat16 and
  // gets 1.765625 for silu(2); 1.7578125 is the bfloat16 nearest to 1.76159).
  expect_values(silu(y.to(kBFloat16)), {3}, {4.96875, 1.7578125, 2.859375}, 0, 0);
  expect_values(hardswish(y.to(kBFloat16)), {3}, {5.0, 1.6640625, 3.0}, 0, 0);
  expect_values(hardtanh(tensor_of({1, kNaN, 3}, kFloat32)), {3}, {1, kNaN, 1});
  expect_values(hardsigmoid(tensor_of({kNaN}, kFloat32)), {1}, {kNaN});
  // Limits on integer tensors are truncated and never promote the result.
  Tensor i = tensor_of({1, 2, 3}, kInt64);
  EXPECT_EQ(hardtanh(i, 0.5, 2).dtype(), kInt64);
  expect_values(hardtanh(i, 0.5, 2), {3}, {1, 2, 2});
  expect_values(hardtanh(tensor_of({1, 2, 3}, kUInt8), 0, 2), {3}, {1, 2, 2});
  expect_values(hardtanh(tensor_of({1, 2, 3}, kFloat32), 2.5, 1.5), {3}, {1.5, 1.5, 1.5});
  expect_values(relu6(tensor_of({-1, 2, 7}, kFloat32)), {3}, {0, 2, 6});
}

// PyTorch 1.13's CPU kernels refuse float16 ("GeluKernelImpl" not implemented for 'Half'); ember
// computes it in float and rounds once, as later versions do. Expected: torch on the float16
// inputs converted to float32, rounded back to float16 (the same as float64 rounded back).
TEST(Activation, Float16ComputesInFloat) {
  Tensor h = tensor_of({-2.5, -0.0, 0.3, 1.7, 11.0}, kFloat16);
  expect_values(gelu(h), {5}, {-0.01552581787109375, 0.0, 0.1854248046875, 1.6240234375, 11.0}, 0, 0);
  expect_values(gelu(h, "tanh"), {5}, {-0.01508331298828125, -0.0, 0.1854248046875, 1.6240234375, 11.0}, 0, 0);
  expect_values(silu(h), {5}, {-0.189697265625, -0.0, 0.17236328125, 1.4375, 11.0}, 0, 0);
  expect_values(hardswish(h), {5}, {-0.2083740234375, -0.0, 0.1650390625, 1.33203125, 11.0}, 0, 0);
  expect_values(hardsigmoid(h), {5}, {0.08331298828125, 0.5, 0.5498046875, 0.783203125, 1.0}, 0, 0);
  expect_values(hardtanh(h), {5}, {-1.0, -0.0, 0.300048828125, 1.0, 1.0}, 0, 0);
  expect_values(relu6(h), {5}, {0.0, -0.0, 0.300048828125, 1.7001953125, 6.0}, 0, 0);
  EXPECT_EQ(gelu(h).dtype(), kFloat16);
  Tensor t = tensor_of({-4, 0.5, 9}, kFloat16);
  hardtanh_(t, 0.0, 6.0);
  expect_values(t, {3}, {0, 0.5, 6}, 0, 0);
  EXPECT_EQ(t.version(), 1u);
}

TEST(Activation, Errors) {
  Tensor l = tensor_of({1, 2}, kInt64);
  expect_error([&] { hardswish(l); }, "\"hardswish_cpu\" not implemented for 'Long'");
  expect_error([&] { hardsigmoid(l); }, "\"hardsigmoid_cpu\" not implemented for 'Long'");
  expect_error([&] { silu(l); }, "\"silu_cpu\" not implemented for 'Long'");
  expect_error([&] { gelu(l); }, "\"GeluKernelImpl\" not implemented for 'Long'");
  expect_error([&] { hardswish_(l); }, "\"hardswish_cpu\" not implemented for 'Long'");
  expect_values(l, {2}, {1, 2});
  expect_error([] { gelu(ones({2}), "erf"); }, "approximate argument must be either none or tanh.");
  expect_error([] { hardtanh(ones({2}, kBool)); }, "Bool inputs not supported for hardtanh");
  Tensor u = tensor_of({1, 2}, kUInt8);
  expect_error([&] { hardtanh_(u); }, "cannot do hardtanh on an unsigned type with negative limits");
  EXPECT_EQ(u.version(), 0u);
  expect_error([] { hardtanh(tensor_of({1}, kInt8), -1, 200); },
               "value cannot be converted to type int8_t without overflow");
  expect_error([] { hardtanh(ones({1}), -1e39, 1); },
               "value cannot be converted to type float without overflow");
  expect_error([] { hardtanh(ones({1}, kFloat16), -1e5, 1); },
               "value cannot be converted to type at::Half without overflow");
  Tensor expanded = ones({2, 1}).expand({2, 2});
  expect_error([&] { silu_(expanded); },
               "unsupported operation: more than one element of the written-to tensor refers to a single memory location.");
}

TEST(Activation, InplaceAndMeta) {
  Tensor t = tensor_of({-4, -1, 0, 2, 8}, kFloat32);
  Tensor& r = hardtanh_(t, -2, 3);
  EXPECT_TRUE(r.is_same(t));
  EXPECT_EQ(t.version(), 1u);
  expect_values(t, {5}, {-2, -1, 0, 2, 3});
  Tensor col = tensor_of({-4, 1, -1, 2}, kFloat32, {2, 2}).select(1, 0);
  hardsigmoid_(col);
  expect_values(col, {2}, {0, 1.0 / 3});
  DeviceGuard guard(kMeta);
  Tensor m = empty({2, 3}, kBFloat16);
  EXPECT_TRUE(gelu(m, "tanh").is_meta());
  EXPECT_EQ(hardtanh(empty({4}, kInt32)).dtype(), kInt32);
  EXPECT_EQ(relu6(m).sizes().vec(), (std::vector<int64_t>{2, 3}));
  silu_(m);
  EXPECT_EQ(m.version(), 1u);
}

TEST(Activation, BoxedDefaults) {
  Tensor x = tensor_of({-3, 0.5, 3}, kFloat32);
  Stack out = find_op("aten::hardtanh").call({Value(x)});  // min_val=-1, max_val=1 filled in
  expect_values(out[0].to_tensor(), {3}, {-1, 0.5, 1});
  out = find_op("aten::gelu").call({Value(x)});  // approximate='none'
  expect_values(out[0].to_tensor(), {3}, {-0.0040496, 0.3457312, 2.9959502}, 1e-5, 1e-6);
}

}  // namespace
}  // namespace ember
