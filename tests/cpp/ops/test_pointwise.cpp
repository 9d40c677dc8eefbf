// clamp, where, masked_fill: every dtype and layout against a float64 reference, promotion,
// PyTorch's checked Scalar conversion, error texts, in-place rules, meta.
#include <cmath>
#include <limits>

#include "ops/elementwise_harness.h"

namespace ember {
namespace {

using testing::concat;
using testing::expect_error;
using testing::make_operand;
using testing::expect_values;
using testing::Layout;
using testing::Operand;
using testing::tensor_of;
using testing::UnaryRow;
using testing::values;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// clamp_'s refusal names self's dtype by its C++ type, as PyTorch's message does.
std::string clamp_cast_error(ScalarType result, ScalarType self) {
  const char* cpp = self == kBool    ? "bool"
                    : self == kInt8  ? "signed char"
                    : self == kUInt8 ? "unsigned char"
                    : self == kInt16 ? "short int"
                    : self == kInt32 ? "int"
                                     : "long int";
  return std::string("result type ") + scalar_type_name(result) +
         " can't be cast to the desired output type " + cpp;
}

TEST(Pointwise, ClampIntegerLimits) {
  UnaryRow row;
  row.name = "clamp(-2, 3)";
  row.fn = [](const Tensor& t) { return t.clamp(-2, 3); };
  row.inplace = [](Tensor& t) -> Tensor& { return t.clamp_(-2, 3); };
  // For uint8 the limit -2 reads as 254 (PyTorch's wrapping conversion), so all becomes 3.
  row.typed_ref = [](double x, ScalarType t) {
    return std::min(std::max(x, t == kUInt8 ? 254.0 : -2.0), 3.0);
  };
  row.dtypes = concat(testing::kFloatDtypes, testing::kIntDtypes);
  row.compute_dtype = [](ScalarType t) { return t == kBool ? kInt64 : t; };  // bool with ints
  row.inplace_error = clamp_cast_error;
  testing::run_unary_row(row);
}

TEST(Pointwise, ClampFloatLimitsPromoteIntegers) {
  UnaryRow row;
  row.name = "clamp(-1.5, 2.5)";
  row.fn = [](const Tensor& t) { return ember::clamp(t, -1.5, 2.5); };
  row.inplace = [](Tensor& t) -> Tensor& { return ember::clamp_(t, -1.5, 2.5); };
  row.ref = [](double x) { return std::min(std::max(x, -1.5), 2.5); };
  row.dtypes = testing::kFloatDtypes;
  row.compute_dtype = [](ScalarType t) { return is_floating(t) ? t : default_dtype(); };
  row.inplace_error = clamp_cast_error;
  testing::run_unary_row(row);
}

TEST(Pointwise, ClampOneSided) {
  UnaryRow row;
  row.name = "clamp(min=0)";
  row.fn = [](const Tensor& t) { return t.clamp(0); };
  row.inplace = [](Tensor& t) -> Tensor& { return t.clamp_(0); };
  row.ref = [](double x) { return std::max(x, 0.0); };
  row.dtypes = concat(testing::kFloatDtypes, testing::kIntDtypes);
  row.compute_dtype = [](ScalarType t) { return t == kBool ? kInt64 : t; };
  row.inplace_error = clamp_cast_error;
  testing::run_unary_row(row);
  row.name = "clamp(max=1)";
  row.fn = [](const Tensor& t) { return t.clamp(std::nullopt, 1); };
  row.inplace = [](Tensor& t) -> Tensor& { return t.clamp_(std::nullopt, 1); };
  row.ref = [](double x) { return std::min(x, 1.0); };
  testing::run_unary_row(row);
}

TEST(Pointwise, ClampSemantics) {
  Tensor f = tensor_of({1, 2, kNaN}, kFloat32);
  expect_values(f.clamp(1.5, 1.2), {3}, {1.2, 1.2, kNaN});  // min > max gives max
  expect_values(f.clamp(kNaN, 3), {3}, {kNaN, kNaN, kNaN});  // a NaN limit fills NaN
  expect_values(f.clamp(kNaN), {3}, {1, 2, kNaN});          // ... but alone is ignored
  expect_values(f.clamp(std::nullopt, kNaN), {3}, {1, 2, kNaN});
  expect_values(f.clamp(1, kInf), {3}, {1, 2, kNaN});
  EXPECT_EQ(tensor_of({1, 0}, kBool).clamp(0, 1).dtype(), kInt64);
  EXPECT_EQ(tensor_of({1, 2}, kInt32).clamp(0.5, 1).dtype(), kFloat32);
  EXPECT_EQ(tensor_of({1, 2}, kInt32).clamp(scalar_tensor(1.5).item()).dtype(), kFloat32);
  EXPECT_EQ(tensor_of({1, 2}, kInt8).clamp(true, 2).dtype(), kInt8);
  // bfloat16 reads its limits as bfloat16: 0.3333 → 0.333984375; float16 as float16 (PyTorch
  // 1.13 refuses float16 clamp on CPU, later versions compute it): 0.3333 → 0.333251953125.
  expect_values(tensor_of({0, 1}, kBFloat16).clamp(0.3333, 1), {2}, {0.333984375, 1}, 0, 0);
  expect_values(tensor_of({0, 1, 2}, kFloat16).clamp(0.3333, 1.3), {3}, {0.333251953125, 1, 1.2998046875}, 0, 0);
  expect_values(tensor_of({0, 1}, kFloat16).clamp(0.3333), {2}, {0.333251953125, 1}, 0, 0);
  expect_values(tensor_of({0, 2}, kFloat16).clamp(std::nullopt, 1.3), {2}, {0, 1.2998046875}, 0, 0);
  // uint8 takes negative integer limits by wrapping (-1 is 255), as PyTorch's conversion does.
  expect_values(tensor_of({1, 2, 3}, kUInt8).clamp(-1, 2), {3}, {2, 2, 2});
  expect_error([] { ember::clamp(tensor_of({1}, kInt64), std::nullopt); },
               "ember.clamp: At least one of 'min' or 'max' must not be None");
  expect_error([] { tensor_of({1}, kInt64).clamp(std::nullopt, std::nullopt); },
               "ember.clamp: At least one of 'min' or 'max' must not be None");
  expect_error([] { tensor_of({1}, kInt8).clamp(-1, 300); },
               "value cannot be converted to type int8_t without overflow");
  expect_error([] { tensor_of({1}, kUInt8).clamp(-300, 2); },
               "value cannot be converted to type uint8_t without overflow");
  expect_error([] { tensor_of({1}, kInt32).clamp(-1e39); },  // computes in float32
               "value cannot be converted to type float without overflow");
  expect_error([] { tensor_of({1}, kInt32).clamp(int64_t{-1} << 40); },
               "value cannot be converted to type int without overflow");
  expect_error([] { tensor_of({1}, kBFloat16).clamp(-1e39, 1); },
               "value cannot be converted to type at::BFloat16 without overflow");
  expect_error([] { tensor_of({1}, kFloat16).clamp(-1e5, 1); },  // float16's largest is 65504
               "value cannot be converted to type at::Half without overflow");
  expect_error([] { tensor_of({1}, kBool).clamp(true, true); },
               "\"clamp_scalar_cpu\" not implemented for 'Bool'");
  Tensor i = tensor_of({1, 5}, kInt32);
  expect_error([&] { i.clamp_(1.5); }, "result type Float can't be cast to the desired output type int");
  expect_error([&] { i.clamp_(-1, int64_t{1} << 40); }, "value cannot be converted to type int without overflow");
  expect_values(i, {2}, {1, 5});
  EXPECT_EQ(i.version(), 0u);
  Tensor ex = ones({2, 1}).expand({2, 3});
  expect_error([&] { ex.clamp_(1); }, "unsupported operation: more than one element of the written-to tensor");
  // Meta: inference only.
  Tensor m = empty({2, 3}, TensorOptions(kInt16).device(kMeta));
  EXPECT_EQ(m.clamp(0.5).dtype(), kFloat32);
  EXPECT_TRUE(m.clamp_(1, 2).is_meta());
  EXPECT_EQ(m.version(), 1u);
}

// ---- where ----

TEST(Pointwise, WhereAllDtypesAndLayouts) {
  uint64_t seed = 500;
  for (ScalarType dt : testing::kAllDtypes) {
    for (const testing::BinaryCase& c : testing::binary_cases()) {
      const std::string what = std::string("where ") + dtype_name(dt) + " " + c.name;
      Tensor a = make_operand(c.a, dt, {-5, 5}, seed++);
      Tensor b = make_operand(c.b, dt, {-5, 5}, seed++);
      DimVector shape = broadcast_shapes(a.sizes(), b.sizes());
      Operand cond_spec{shape, shape.empty() ? Layout::Contiguous : Layout::Sliced};
      Tensor cond = make_operand(cond_spec, kBool, {}, seed++);
      for (ScalarType cond_dtype : {kBool, kUInt8}) {
        Tensor cnd = cond.to(cond_dtype);
        Tensor y = where(cnd, a, b);
        ASSERT_EQ(y.dtype(), dt) << what;
        ASSERT_EQ(y.sizes().vec(), shape) << what;
        std::vector<double> c_v = values(cnd), a_v = values(a.expand(shape)), b_v = values(b.expand(shape));
        std::vector<double> expected(c_v.size());
        for (size_t k = 0; k < c_v.size(); ++k) expected[k] = c_v[k] != 0 ? a_v[k] : b_v[k];
        testing::expect_close(y, expected, dt, what);
      }
      // The condition broadcasts too.
      Tensor y = a.where(scalar_tensor(false), b);
      testing::expect_close(y, values(b.to(dt).expand(shape)), dt, what + " (0-d condition)");
    }
  }
}

TEST(Pointwise, WherePromotionAndErrors) {
  Tensor c = tensor_of({1, 0}, kBool);
  EXPECT_EQ(where(c, tensor_of({1, 2}, kInt64), tensor_of({3, 4}, kFloat32)).dtype(), kFloat32);
  EXPECT_EQ(where(c, tensor_of({1, 2}, kInt8), tensor_of({3, 4}, kUInt8)).dtype(), kInt16);
  EXPECT_EQ(where(c, tensor_of({1, 2}, kFloat16), tensor_of({3, 4}, kBFloat16)).dtype(), kFloat32);
  // 0-d operands only raise the category.
  Tensor w = where(c, tensor_of({1, 2}, kInt64), scalar_tensor(3.5, kFloat64));
  EXPECT_EQ(w.dtype(), kFloat64);
  EXPECT_EQ(where(c, tensor_of({1, 2}, kFloat16), scalar_tensor(3.5, kFloat64)).dtype(), kFloat16);
  expect_values(w, {2}, {1, 3.5});
  Tensor n = where(c, tensor_of({1, 2}, kInt8), scalar_tensor(300, kInt64));
  EXPECT_EQ(n.dtype(), kInt8);
  expect_values(n, {2}, {1, 44});  // 300 wraps into int8
  Tensor col = where(tensor_of({1, 0}, kBool, {2, 1}), tensor_of({1, 2}, kInt64), scalar_tensor(3.5));
  expect_values(col, {2, 2}, {1, 2, 3.5, 3.5});
  expect_error([&] { where(tensor_of({1, 0}, kInt64), c, c); },
               "where expected condition to be a boolean tensor, but got a tensor with dtype Long");
  expect_error([&] { where(tensor_of({1, 0}, kFloat32), c, c); },
               "where expected condition to be a boolean tensor, but got a tensor with dtype Float");
  expect_error([&] { where(tensor_of({1, 0}, kBool, {2, 1}), tensor_of({1, 2}, kInt64), ones({3})); },
               "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1");
  Tensor m = empty({2, 1}, TensorOptions(kBool).device(kMeta));
  Tensor r = where(m, empty({3}, TensorOptions(kInt32).device(kMeta)), scalar_tensor(1.5));
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(r.dtype(), kFloat32);
  EXPECT_EQ(r.sizes().vec(), (std::vector<int64_t>{2, 3}));
  expect_error([&] { where(m, ones({2, 3}), ones({2, 3})); }, "Expected all tensors to be on the same device");
}

// ---- masked_fill ----

TEST(Pointwise, MaskedFillAllDtypesAndLayouts) {
  const std::vector<std::pair<std::string, Operand>> selves = {
      {"0-d", {{}}},
      {"empty", {{0, 3}}},
      {"transposed", {{3, 5}, Layout::Transposed}},
      {"sliced", {{3, 5}, Layout::Sliced}},
      {"permuted", {{2, 3, 4}, Layout::Permuted}},
      {"large", {{300, 257}}},
  };
  uint64_t seed = 900;
  for (ScalarType dt : testing::kAllDtypes) {
    for (const auto& [name, spec] : selves) {
      // A full mask and one broadcast along the first dim.
      std::vector<std::vector<int64_t>> mask_shapes = {spec.shape};
      if (!spec.shape.empty()) mask_shapes.push_back({spec.shape.begin() + 1, spec.shape.end()});
      for (const auto& mask_shape : mask_shapes) {
        for (const Scalar& value : {Scalar(7), Scalar(2.5), Scalar(true)}) {
          for (ScalarType mask_dtype : {kBool, kUInt8}) {
            const std::string what = std::string("masked_fill_ ") + dtype_name(dt) + " " + name +
                                     " mask " + dtype_name(mask_dtype) + " value " + value.str();
            Tensor self = make_operand(spec, dt, {-5, 5}, seed);
            Tensor before = self.clone();
            Tensor mask = make_operand({mask_shape}, kBool, {}, seed + 1).to(mask_dtype);
            ++seed;
            const double v = wrapped_scalar_tensor(value).to(dt).item<double>();
            std::vector<double> m_v = values(mask.expand(self.sizes())), s_v = values(before);
            std::vector<double> expected(s_v.size());
            for (size_t k = 0; k < s_v.size(); ++k) expected[k] = m_v[k] != 0 ? v : s_v[k];
            Tensor out = self.masked_fill(mask, value);  // out of place: self untouched
            testing::expect_close(out, expected, dt, what + " (masked_fill)");
            testing::expect_close(self, s_v, dt, what + " (self untouched)");
            Tensor& r = self.masked_fill_(mask, value);
            EXPECT_TRUE(r.is_same(self)) << what;
            EXPECT_EQ(self.version(), 1u) << what;
            testing::expect_close(self, expected, dt, what);
            Tensor self2 = before.clone();
            self2.masked_fill_(mask, scalar_tensor(value, kFloat64));  // a 0-d value tensor
            testing::expect_close(self2, expected, dt, what + " (tensor value)");
          }
        }
      }
    }
  }
}

TEST(Pointwise, MaskedFillBroadcastAndErrors) {
  Tensor s = tensor_of({1, 2}, kFloat32);
  Tensor diag = tensor_of({1, 0, 0, 1}, kBool, {2, 2});
  // Out of place, self broadcasts to the mask; in place it cannot.
  expect_values(s.masked_fill(diag, 5), {2, 2}, {5, 2, 1, 5});
  expect_error([&] { s.masked_fill_(diag, 5); }, "output with shape [2] doesn't match the broadcast shape [2, 2]");
  expect_values(s, {2}, {1, 2});
  EXPECT_EQ(s.version(), 0u);
  Tensor sq = tensor_of({1, 2, 3, 4}, kFloat32, {2, 2});
  expect_error([&] { sq.masked_fill_(tensor_of({1, 0, 1}, kBool), 5); },
               "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1");
  Tensor t = sq.t();
  t.masked_fill_(tensor_of({1, 0}, kBool), 5);  // a column of sq
  expect_values(t, {2, 2}, {5, 3, 5, 4});
  expect_values(sq, {2, 2}, {5, 5, 3, 4});
  expect_error([&] { s.masked_fill_(tensor_of({1, 0}, kInt64), 5); },
               "masked_fill_ only supports boolean masks, but got mask with dtype long int");
  expect_error([&] { s.masked_fill(tensor_of({1, 0}, kFloat32), 5); },
               "masked_fill_ only supports boolean masks, but got mask with dtype float");
  expect_error([&] { s.masked_fill_(tensor_of({1, 0}, kBool), tensor_of({5}, kFloat32)); },
               "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s).");
  expect_error([&] { s.masked_fill(tensor_of({1, 0}, kBool), ones({1, 1})); },
               "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 2 dimension(s).");
  // The value is converted to self's dtype with PyTorch's overflow check.
  Tensor u = tensor_of({1, 2}, kUInt8);
  expect_values(u.masked_fill(tensor_of({1, 0}, kBool), -1), {2}, {255, 2});
  expect_error([&] { u.masked_fill_(tensor_of({1, 0}, kBool), 300); },
               "value cannot be converted to type uint8_t without overflow");
  expect_error([&] { u.masked_fill_(tensor_of({1, 0}, kBool), -1.5); },
               "value cannot be converted to type uint8_t without overflow");
  expect_error([] { tensor_of({1}, kInt64).masked_fill(tensor_of({1}, kBool), kNaN); },
               "value cannot be converted to type int64_t without overflow");
  expect_error([] { tensor_of({1}, kFloat16).masked_fill(tensor_of({1}, kBool), 70000); },
               "value cannot be converted to type at::Half without overflow");
  expect_error([] { tensor_of({1}, kInt8).masked_fill(tensor_of({1}, kBool), scalar_tensor(300)); },
               "value cannot be converted to type int8_t without overflow");
  expect_values(u, {2}, {1, 2});
  expect_values(tensor_of({1}, kFloat16).masked_fill(tensor_of({1}, kBool), kInf), {1}, {kInf});
  expect_values(tensor_of({1, 2}, kInt64).masked_fill(tensor_of({1, 0}, kBool), 5.5), {2}, {5, 2});
  expect_values(tensor_of({0, 0}, kBool).masked_fill(tensor_of({1, 0}, kBool), -3), {2}, {1, 0});
  // An expanded self is allowed (as PyTorch, which only warns): every alias gets the value.
  Tensor e = tensor_of({1, 2}, kFloat32);
  Tensor ex = e.expand({2, 2});
  ex.masked_fill_(tensor_of({1, 0, 0, 0}, kBool, {2, 2}), 9);
  expect_values(e, {2}, {9, 2});
  // A mask sharing part of self's memory is refused.
  Tensor bits = tensor_of({1, 0, 1, 1}, kBool);
  Tensor tail = bits.slice(0, 1);
  expect_error([&] { tail.masked_fill_(bits.slice(0, 0, 3), false); },
               "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location.");
}

TEST(Pointwise, MaskedFillMetaAndComposite) {
  Tensor m = empty({2}, TensorOptions(kFloat32).device(kMeta));
  m.masked_fill_(empty({2}, TensorOptions(kBool).device(kMeta)), 5);
  EXPECT_EQ(m.version(), 1u);
  Tensor r = m.masked_fill(empty({3, 2}, TensorOptions(kBool).device(kMeta)), scalar_tensor(5.0));
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(r.sizes().vec(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(r.dtype(), kFloat32);
  // The out-of-place forms are Composite: a dispatch mode sees clone and masked_fill_.
  struct Names : DispatchMode {
    std::vector<std::string> seen;
    std::optional<Stack> torch_dispatch(const OpHandle& op, const Stack& args) override {
      seen.push_back(op.full_name());
      return op.redispatch(args);
    }
  };
  auto mode = make_intrusive<Names>();
  Tensor out;
  {
    DispatchModeGuard g(mode);
    out = tensor_of({1, 2}, kFloat32).masked_fill(tensor_of({0, 1}, kBool), 3);
  }
  expect_values(out, {2}, {1, 3});
  ASSERT_FALSE(mode->seen.empty());
  EXPECT_EQ(mode->seen.back(), "aten::masked_fill_.Scalar");
  for (const auto& name : mode->seen) EXPECT_NE(name, "aten::masked_fill.Scalar");
}

}  // namespace
}  // namespace ember
