// Comparisons and logical ops (harness rows: promoted compare, bool result, in-place writes 0/1
// in self's dtype), equal and allclose.
#include <cmath>
#include <limits>

#include "ops/elementwise_harness.h"

namespace ember {
namespace {

using testing::BinaryRow;
using testing::expect_error;
using testing::expect_values;
using testing::tensor_of;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

BinaryRow compare_row(const std::string& name, Tensor (*fn)(const Tensor&, const Tensor&),
                      Tensor& (Tensor::*inplace)(const Tensor&),
                      Tensor (Tensor::*scalar)(const Scalar&) const, bool (*ref)(double, double)) {
  BinaryRow row;
  row.name = name;
  row.fn = fn;
  row.inplace = [inplace](Tensor& a, const Tensor& b) -> Tensor& { return (a.*inplace)(b); };
  row.ref = [ref](double a, double b) { return ref(a, b) ? 1.0 : 0.0; };
  row.dtypes = testing::kAllDtypes;
  // Small integers, so that equal elements occur.
  row.a_domain = row.b_domain = {-2, 2};
  row.result_dtype = [](ScalarType) { return kBool; };
  row.inplace_any_dtype = true;
  row.scalar_fn = [scalar](const Tensor& a, const Scalar& s) { return (a.*scalar)(s); };
  row.scalars = {Scalar(1), Scalar(-1.5), Scalar(true), Scalar(0)};
  return row;
}

TEST(Compare, Eq) {
  testing::run_binary_row(compare_row(
      "eq", [](const Tensor& a, const Tensor& b) { return a == b; }, &Tensor::eq_, &Tensor::eq,
      [](double a, double b) { return a == b; }));
}
TEST(Compare, Ne) {
  testing::run_binary_row(compare_row(
      "ne", [](const Tensor& a, const Tensor& b) { return a != b; }, &Tensor::ne_, &Tensor::ne,
      [](double a, double b) { return a != b; }));
}
TEST(Compare, Lt) {
  testing::run_binary_row(compare_row(
      "lt", [](const Tensor& a, const Tensor& b) { return a < b; }, &Tensor::lt_, &Tensor::lt,
      [](double a, double b) { return a < b; }));
}
TEST(Compare, Le) {
  testing::run_binary_row(compare_row(
      "le", [](const Tensor& a, const Tensor& b) { return a <= b; }, &Tensor::le_, &Tensor::le,
      [](double a, double b) { return a <= b; }));
}
TEST(Compare, Gt) {
  testing::run_binary_row(compare_row(
      "gt", [](const Tensor& a, const Tensor& b) { return ember::gt(a, b); }, &Tensor::gt_,
      &Tensor::gt, [](double a, double b) { return a > b; }));
}
TEST(Compare, Ge) {
  testing::run_binary_row(compare_row(
      "ge", [](const Tensor& a, const Tensor& b) { return a >= b; }, &Tensor::ge_, &Tensor::ge,
      [](double a, double b) { return a >= b; }));
}
TEST(Compare, LogicalAnd) {
  testing::run_binary_row(compare_row(
      "logical_and", [](const Tensor& a, const Tensor& b) { return ember::logical_and(a, b); },
      &Tensor::logical_and_, &Tensor::logical_and,
      [](double a, double b) { return a != 0 && b != 0; }));
}
TEST(Compare, LogicalOr) {
  testing::run_binary_row(compare_row(
      "logical_or", [](const Tensor& a, const Tensor& b) { return a.logical_or(b); },
      &Tensor::logical_or_, &Tensor::logical_or,
      [](double a, double b) { return a != 0 || b != 0; }));
}
TEST(Compare, LogicalXor) {
  testing::run_binary_row(compare_row(
      "logical_xor", [](const Tensor& a, const Tensor& b) { return ember::logical_xor(a, b); },
      &Tensor::logical_xor_, &Tensor::logical_xor,
      [](double a, double b) { return (a != 0) != (b != 0); }));
}

TEST(Compare, PromotedOperandsAndSpecialValues) {
  Tensor f = tensor_of({1, 2, kNaN, kInf}, kFloat32), g = tensor_of({1, 3, kNaN, kInf}, kFloat32);
  expect_values(f == g, {4}, {1, 0, 0, 1});
  expect_values(f != g, {4}, {0, 1, 1, 0});
  expect_values(f < 2.5, {4}, {1, 1, 0, 0});
  expect_values(tensor_of({1, 2, 3}, kInt64) < 2.5, {3}, {1, 1, 0});
  // The scalar is cast to the tensor's dtype first, as PyTorch casts it.
  expect_values(tensor_of({1, 2, 3}, kUInt8) < -1, {3}, {1, 1, 1});  // -1 is 255
  expect_values(tensor_of({1, 2, 3}, kInt8) == 257, {3}, {1, 0, 0});
  expect_values(tensor_of({1, 2, 3}, kInt8) == scalar_tensor(257, kInt64), {3}, {1, 0, 0});
  expect_values(tensor_of({0.5, 0}, kFloat32).logical_and(tensor_of({2, 0}, kInt64)), {2}, {1, 0});
  expect_values(tensor_of({kNaN}, kFloat32).logical_and(tensor_of({1}, kBool)), {1}, {1});
  EXPECT_EQ((tensor_of({1}, kFloat16) < tensor_of({2}, kBFloat16)).dtype(), kBool);
}

TEST(Compare, InplaceKeepsSelfDtype) {
  Tensor f = tensor_of({1, 2, 3}, kFloat32);
  Tensor& r = f.lt_(tensor_of({2}, kInt64));
  EXPECT_TRUE(r.is_same(f));
  EXPECT_EQ(f.dtype(), kFloat32);
  expect_values(f, {3}, {1, 0, 0});
  EXPECT_EQ(f.version(), 1u);
  Tensor i = tensor_of({1, 2, 3}, kInt64);
  i.lt_(2.5);  // no "can't be cast" rule for comparisons
  expect_values(i, {3}, {1, 1, 0});
  Tensor b = tensor_of({1, 0}, kBool);
  b.lt_(tensor_of({2.5}, kFloat32));
  expect_values(b, {2}, {1, 1});
  Tensor l = tensor_of({1, 0}, kInt64);
  l.logical_and_(tensor_of({2, 0.5}, kFloat32));
  expect_values(l, {2}, {1, 0});
  Tensor s = tensor_of({1, 2}, kInt64);
  expect_error([&] { s.eq_(ones({2, 2}, kInt64)); },
               "output with shape [2] doesn't match the broadcast shape [2, 2]");
  expect_values(s, {2}, {1, 2});
  EXPECT_EQ(s.version(), 0u);
  expect_error([] { ones({2, 1}).expand({2, 3}).lt_(1); },
               "unsupported operation: more than one element of the written-to tensor refers to a single memory location.");
}

TEST(Compare, Meta) {
  Tensor m = empty({2, 1, 3}, TensorOptions(kInt32).device(kMeta));
  Tensor r = m < empty({4, 3}, TensorOptions(kFloat32).device(kMeta));
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(r.dtype(), kBool);
  EXPECT_EQ(r.sizes().vec(), (std::vector<int64_t>{2, 4, 3}));
  EXPECT_EQ(m.eq(1.5).dtype(), kBool);
  m.ge_(2);
  EXPECT_EQ(m.dtype(), kInt32);
  EXPECT_EQ(m.version(), 1u);
}

TEST(Compare, Equal) {
  EXPECT_TRUE(equal(tensor_of({1, 2}, kInt64), tensor_of({1, 2}, kFloat32)));  // promoted
  EXPECT_FALSE(equal(tensor_of({1, 2}, kInt64), tensor_of({1, 2}, kInt64, {1, 2})));
  EXPECT_FALSE(equal(tensor_of({kNaN}, kFloat32), tensor_of({kNaN}, kFloat32)));
  EXPECT_FALSE(equal(tensor_of({1, 2}, kInt64), tensor_of({1, 3}, kInt64)));
  EXPECT_TRUE(equal(tensor_of({1}, kFloat32), tensor_of({1}, kBFloat16)));
  EXPECT_TRUE(equal(empty({0}), empty({0}, kInt64)));
  EXPECT_FALSE(equal(empty({0, 2}), empty({2, 0})));
  EXPECT_FALSE(equal(scalar_tensor(1), tensor_of({1}, kInt64)));
  Tensor a = tensor_of({1, 2, 3, 4, 5, 6}, kFloat32, {2, 3});
  EXPECT_TRUE(equal(a.t(), a.t().contiguous()));
  EXPECT_FALSE(equal(a.t(), a.t().contiguous() + 1));
  EXPECT_TRUE(equal(ones({3, 4}).slice(1, 0, std::nullopt, 2), ones({1, 2}).expand({3, 2})));
  expect_error([] { equal(empty({2}, TensorOptions().device(kMeta)), empty({2}, TensorOptions().device(kMeta))); },
               "Could not run 'aten::equal' with arguments from the 'Meta' backend.",
               ErrorKind::NotImplemented);
  expect_error([] { equal(ones({2}), empty({2}, TensorOptions().device(kMeta))); },
               "Cannot compare two tensors on different devices. Got: cpu and meta");
}

TEST(Compare, Allclose) {
  Tensor a = tensor_of({1, 2}, kFloat32);
  EXPECT_TRUE(allclose(a, a + 1e-6));
  EXPECT_FALSE(allclose(a, a + 1e-3));
  EXPECT_TRUE(allclose(a, a + 1e-3, /*rtol=*/1e-3));
  EXPECT_TRUE(allclose(a, a + 0.5, 0, /*atol=*/0.5));
  EXPECT_FALSE(allclose(tensor_of({1, kNaN}, kFloat32), tensor_of({1, kNaN}, kFloat32)));
  EXPECT_TRUE(allclose(tensor_of({1, kNaN}, kFloat32), tensor_of({1, kNaN}, kFloat32), 1e-5, 1e-8, true));
  EXPECT_TRUE(allclose(tensor_of({1, kInf}, kFloat32), tensor_of({1, kInf}, kFloat32)));
  EXPECT_FALSE(allclose(tensor_of({kInf}, kFloat32), tensor_of({-kInf}, kFloat32)));
  EXPECT_TRUE(allclose(a, tensor_of({1, 2}, kFloat32, {1, 2})));  // broadcasts
  EXPECT_TRUE(allclose(tensor_of({1, 2}, kInt64), tensor_of({1, 3}, kInt64), 0, 1));
  EXPECT_TRUE(allclose(tensor_of({1}, kInt8), tensor_of({127}, kInt8), 0, 200));  // no overflow
  EXPECT_TRUE(allclose(tensor_of({1, 0}, kBool), tensor_of({1, 0}, kBool)));
  EXPECT_TRUE(allclose(tensor_of({1}, kFloat16), tensor_of({1}, kFloat16)));
  EXPECT_TRUE(allclose(empty({0, 2}), empty({1, 2})));
  // Tolerances enter in the inputs' dtype: atol=1e-8 is 0 in float16, 1e-5 becomes 1.0014e-5.
  EXPECT_FALSE(allclose(tensor_of({1}, kFloat16), tensor_of({1.0009765625}, kFloat16)));
  EXPECT_TRUE(allclose(tensor_of({1}, kFloat16), tensor_of({1.0009765625}, kFloat16), 1e-3));
  expect_error([] { allclose(tensor_of({1}, kInt64), tensor_of({1}, kFloat32)); },
               "Long did not match Float");
  expect_error([] { allclose(tensor_of({1}, kFloat32), tensor_of({1}, kFloat64)); },
               "Float did not match Double");
  expect_error([&] { allclose(a, a, -1); }, "rtol must be greater than or equal to zero, but got -1");
  expect_error([&] { allclose(a, a, 0, -1); }, "atol must be greater than or equal to zero, but got -1");
  expect_error([&] { allclose(a, ones({3})); },
               "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0");
  expect_error([] { allclose(empty({2}, TensorOptions().device(kMeta)), empty({2}, TensorOptions().device(kMeta))); },
               "Could not run 'aten::_local_scalar_dense' with arguments from the 'Meta' backend.",
               ErrorKind::NotImplemented);
}

}  // namespace
}  // namespace ember
