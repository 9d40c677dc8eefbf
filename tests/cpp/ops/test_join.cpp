// cat and stack: values against hand / torch 1.13 outputs, dtype promotion, legacy [0] inputs,
// non-contiguous inputs, meta, and PyTorch's error texts.
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::from_values;
using testing::iota;
using testing::values;


// start, start + 1, ... with `sizes`.

std::vector<double> seq(double start, int n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = start + i;
  return v;
}

const ScalarType kAllDtypes[] = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8,
                                 kUInt8,   kInt16,   kInt32,   kInt64,    kBool};

TEST(Cat, ValuesAlongEachDim) {
  Tensor a = iota({2, 3}), b = iota({1, 3}, kFloat32, 10);
  expect_values(cat({a, b}), {3, 3}, {0, 1, 2, 3, 4, 5, 10, 11, 12});
  expect_values(cat({a, iota({2, 1}, kFloat32, 10)}, 1), {2, 4}, {0, 1, 2, 10, 3, 4, 5, 11});
  expect_values(cat({a, iota({2, 2}, kFloat32, 10)}, -1), {2, 5}, {0, 1, 2, 10, 11, 3, 4, 5, 12, 13});
  expect_values(cat({a}), {2, 3}, seq(0, 6));
  // 3-d, middle dim.
  Tensor c = cat({iota({2, 1, 2}), iota({2, 2, 2}, kFloat32, 10)}, 1);
  expect_values(c, {2, 3, 2}, {0, 1, 10, 11, 12, 13, 2, 3, 14, 15, 16, 17});
  EXPECT_TRUE(c.is_contiguous());
}

TEST(Cat, NonContiguousInputs) {
  Tensor a = iota({2, 3});
  Tensor b = iota({3, 2}, kFloat32, 10).t();  // [[10, 12, 14], [11, 13, 15]]
  // torch.cat([a, b.t(), a], 0)
  expect_values(cat({a, b, a}), {6, 3},
                {0, 1, 2, 3, 4, 5, 10, 12, 14, 11, 13, 15, 0, 1, 2, 3, 4, 5});
  // torch.cat([a, b.t()[:, 1:], tensor([[7.], [8.]]).expand(2, 3)], 1)
  Tensor sliced = b.slice(1, 1);
  Tensor expanded = from_values({7, 8}, {2, 1}).expand({2, 3});
  expect_values(cat({a, sliced, expanded}, 1), {2, 8},
                {0, 1, 2, 12, 14, 7, 7, 7, 3, 4, 5, 13, 15, 8, 8, 8});
  // A strided (step 2) slice.
  expect_values(cat({iota({6}).slice(0, 0, std::nullopt, 2), iota({2})}), {5}, {0, 2, 4, 0, 1});
}

TEST(Cat, EveryDtypeKeepsValues) {
  for (ScalarType dt : kAllDtypes) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor a = iota({2, 2}, dt, 1), b = iota({2, 1}, dt, 5);
    Tensor c = cat({a, b}, 1);
    EXPECT_EQ(c.dtype(), dt);
    std::vector<double> want = {1, 2, 5, 3, 4, 6};
    if (dt == kBool) want = {1, 1, 1, 1, 1, 1};
    expect_values(c, {2, 3}, want);
  }
}

TEST(Cat, PromotesDtypes) {
  Tensor f = from_values({1.5, 2.5}, {2});
  Tensor i = from_values({3, 4}, {2}, kInt64);
  Tensor c = cat({i, f});
  EXPECT_EQ(c.dtype(), kFloat32);
  expect_values(c, {4}, {3, 4, 1.5, 2.5});
  EXPECT_EQ(cat({ones({2}, kInt32), ones({2}, kUInt8)}).dtype(), kInt32);
  EXPECT_EQ(cat({ones({2}, kBool), ones({2}, kInt8)}).dtype(), kInt8);
  EXPECT_EQ(cat({ones({2}, kFloat16), ones({2}, kBFloat16)}).dtype(), kFloat32);
  EXPECT_EQ(cat({ones({2}, kInt64), ones({2}, kFloat16)}).dtype(), kFloat16);
  EXPECT_EQ(cat({ones({2}, kFloat64), ones({2}, kFloat32)}).dtype(), kFloat64);
  Tensor u = cat({full({1}, 200, kUInt8), full({1}, -3, kInt8)});
  EXPECT_EQ(u.dtype(), kInt16);
  expect_values(u, {2}, {200, -3});
  expect_values(cat({from_values({1, 0}, {2}, kBool), from_values({2.5}, {1})}), {3}, {1, 0, 2.5});
}

TEST(Cat, LegacyEmptyTensorsAreSkipped) {
  Tensor a = iota({2, 2});
  expect_values(cat({a, empty({0})}), {2, 2}, {0, 1, 2, 3});
  expect_values(cat({empty({0}), a, empty({0})}, 1), {2, 2}, {0, 1, 2, 3});
  // Only [0]-shaped inputs: a [0] result, and dim is not checked.
  Tensor e = cat({empty({0}), empty({0}, kInt64)}, 1);
  expect_values(e, {0}, {});
  EXPECT_EQ(e.dtype(), kFloat32);
  // Skipped tensors still take part in type promotion (torch gives float32 here).
  Tensor p = cat({empty({0}), ones({2}, kInt64)});
  EXPECT_EQ(p.dtype(), kFloat32);
  expect_values(p, {2}, {1, 1});
  // Other empty shapes are not skipped: they must match.
  expect_values(cat({empty({0, 2}), a}), {2, 2}, {0, 1, 2, 3});
  expect_values(cat({empty({2, 0}), a}, 1), {2, 2}, {0, 1, 2, 3});
  expect_values(cat({empty({0, 3}), empty({0, 3})}), {0, 3}, {});
  expect_error([&] { cat({empty({0, 3}), a}); },
               "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2 "
               "for tensor number 1 in the list.");
}

TEST(Cat, Errors) {
  Tensor a = ones({2, 2}), b = ones({2, 3});
  expect_error([&] { cat({a, b}); },
               "Sizes of tensors must match except in dimension 0. Expected size 2 but got size 3 "
               "for tensor number 1 in the list.");
  expect_error([&] { cat({a, a, ones({3, 2})}, 1); },
               "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 "
               "for tensor number 2 in the list.");
  expect_error([&] { cat(std::vector<Tensor>{}); }, "ember.cat(): expected a non-empty list of Tensors");
  expect_error([&] { cat({a, ones({2})}); }, "Tensors must have same number of dimensions: got 2 and 1");
  expect_error([&] { cat({ones({3}), ones({0, 1})}); },
               "Tensors must have same number of dimensions: got 1 and 2");
  expect_error([&] { cat({a, scalar_tensor(1.0)}); },
               "zero-dimensional tensor (at position 1) cannot be concatenated");
  expect_error([&] { cat({a, a}, 2); },
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)", ErrorKind::Index);
  expect_error([&] { cat({empty({0}), a}, -3); },
               "Dimension out of range (expected to be in range of [-2, 1], but got -3)", ErrorKind::Index);
}

TEST(Cat, Meta) {
  Tensor m = empty({2, 3}, TensorOptions(kFloat32).device(kMeta));
  Tensor c = cat({m, empty({4, 3}, TensorOptions(kInt64).device(kMeta))});
  EXPECT_TRUE(c.is_meta());
  EXPECT_EQ(c.sizes().vec(), (std::vector<int64_t>{6, 3}));
  EXPECT_EQ(c.dtype(), kFloat32);
  // Meta outranks CPU, as in PyTorch: the result is meta, nothing is read.
  Tensor mixed = cat({ones({1, 3}), m});
  EXPECT_TRUE(mixed.is_meta());
  EXPECT_EQ(mixed.sizes().vec(), (std::vector<int64_t>{3, 3}));
  expect_error([&] { cat({m, ones({2, 2})}); },
               "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2");
}

TEST(Cat, LargeInputsMatchElementwiseReference) {
  // Large enough for copy_kernel to split the work over threads.
  Tensor a = iota({300, 257}), b = iota({300, 131}, kFloat32, 1e5), c = iota({257, 300}).t();
  Tensor along1 = cat({a, b, c}, 1);
  ASSERT_EQ(along1.sizes().vec(), (std::vector<int64_t>{300, 645}));
  auto va = values(a), vb = values(b), vc = values(c), got = values(along1);
  bool same = true;
  for (int64_t r = 0; r < 300 && same; ++r) {
    for (int64_t j = 0; j < 645 && same; ++j) {
      double want = j < 257 ? va[r * 257 + j] : j < 388 ? vb[r * 131 + j - 257] : vc[r * 257 + j - 388];
      same = got[r * 645 + j] == want;
    }
  }
  EXPECT_TRUE(same);
  Tensor along0 = cat({a, a.to(kInt32)});
  auto v0 = values(along0);
  EXPECT_TRUE(std::equal(va.begin(), va.end(), v0.begin()));
  EXPECT_TRUE(std::equal(va.begin(), va.end(), v0.begin() + static_cast<int64_t>(va.size())));
}

TEST(Stack, Values) {
  Tensor a = iota({2, 3}), b = iota({2, 3}, kFloat32, 10);
  expect_values(stack({a, b}), {2, 2, 3}, {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15});
  expect_values(stack({a, b}, 1), {2, 2, 3}, {0, 1, 2, 10, 11, 12, 3, 4, 5, 13, 14, 15});
  expect_values(stack({a, b}, 2), {2, 3, 2}, {0, 10, 1, 11, 2, 12, 3, 13, 4, 14, 5, 15});
  expect_values(stack({a, b}, -1), {2, 3, 2}, {0, 10, 1, 11, 2, 12, 3, 13, 4, 14, 5, 15});
  // Non-contiguous inputs.
  expect_values(stack({a.t(), b.t()}), {2, 3, 2}, {0, 3, 1, 4, 2, 5, 10, 13, 11, 14, 12, 15});
  // 0-d inputs, with promotion.
  Tensor s = stack({scalar_tensor(1.5), scalar_tensor(2)});
  EXPECT_EQ(s.dtype(), kFloat32);
  expect_values(s, {2}, {1.5, 2});
  // [0] inputs are stacked, not skipped.
  expect_values(stack({empty({0}), empty({0})}), {2, 0}, {});
  expect_values(stack({a}), {1, 2, 3}, seq(0, 6));
}

TEST(Stack, ErrorsAndMeta) {
  Tensor a = ones({2, 2}), b = ones({2, 3});
  expect_error([&] { stack({a, b}); },
               "stack expects each tensor to be equal size, but got [2, 2] at entry 0 and [2, 3] at entry 1");
  expect_error([&] { stack({a, a, b}, -1); },
               "stack expects each tensor to be equal size, but got [2, 2] at entry 0 and [2, 3] at entry 2");
  expect_error([&] { stack(std::vector<Tensor>{}); }, "stack expects a non-empty TensorList");
  expect_error([&] { stack({a, a}, 3); },
               "Dimension out of range (expected to be in range of [-3, 2], but got 3)", ErrorKind::Index);
  Tensor m = stack({empty({2, 3}, TensorOptions(kMeta)), empty({2, 3}, TensorOptions(kMeta))}, 1);
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.sizes().vec(), (std::vector<int64_t>{2, 2, 3}));
}

TEST(Cat, BoxedEntries) {
  Tensor a = iota({1, 2}), b = iota({1, 2}, kFloat32, 5);
  Stack out = find_op("aten::cat").call({Value(std::vector<Tensor>{a, b}), Value(1)});
  expect_values(out.at(0).to_tensor(), {1, 4}, {0, 1, 5, 6});
  out = find_op("aten::stack").call({Value(std::vector<Tensor>{a, b})});  // dim defaults to 0
  expect_values(out.at(0).to_tensor(), {2, 1, 2}, {0, 1, 5, 6});
}

}  // namespace
}  // namespace ember
