#include "testing.h"

namespace ember {
namespace {

Tensor iota(IntArrayRef sizes) { return testing::iota(sizes, kFloat64); }

using testing::expect_error;
using testing::expect_values;


TEST(View, ViewSharesStorageAndVersion) {
  Tensor a = iota({2, 3});
  Tensor v = a.view({3, 2});
  EXPECT_EQ(v.data_ptr(), a.data_ptr());
  v += 1;
  EXPECT_EQ(a.version(), v.version());
  expect_values(a, {2, 3}, {1, 2, 3, 4, 5, 6});
  expect_values(a.view({-1}), {6}, {1, 2, 3, 4, 5, 6});
  expect_error([&] { a.view({4}); }, "shape '[4]' is invalid for input of size 6");
  expect_error([&] { a.t().view({6}); }, "view size is not compatible with input tensor's size and stride");
  expect_error([&] { a.view({-1, -1}); }, "only one dimension can be inferred");
  // A 0 beside -1 on a non-empty tensor is just a wrong shape (PyTorch's text).
  expect_error([&] { a.reshape({0, -1}); }, "shape '[0, -1]' is invalid for input of size 6");
  expect_error([&] { iota({2, 0, 3}).reshape({0, -1}); },
               "cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified dimension size -1 "
               "can be any value and is ambiguous");
}

TEST(View, SliceAndFlattenErrorsAsAten) {
  Tensor a = iota({2, 3});
  // aten::slice refuses steps < 1 as a RuntimeError (Python indexing has its own ValueErrors).
  expect_error([&] { a.slice(0, 0, std::nullopt, 0); }, "slice step must be positive");
  expect_error([&] { a.slice(1, 0, std::nullopt, -1); }, "slice step must be positive");
  expect_error([&] { iota({2, 3, 4}).flatten(2, 1); },
               "flatten() has invalid args: start_dim cannot come after end_dim");
}

TEST(View, TransposePermuteContiguous) {
  Tensor a = iota({2, 3});
  Tensor t = a.t();
  EXPECT_FALSE(t.is_contiguous());
  expect_values(t, {3, 2}, {0, 3, 1, 4, 2, 5});
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.strides().vec(), (std::vector<int64_t>{2, 1}));
  Tensor b = iota({2, 3, 4}).permute({2, 0, 1});
  EXPECT_EQ(b.sizes().vec(), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(b.strides().vec(), (std::vector<int64_t>{1, 12, 4}));
  expect_error([&] { a.permute({0, 0}); }, "permute(): duplicate dims are not allowed.");
  expect_error([&] { iota({2, 2, 2}).t(); }, "t() expects a tensor with <= 2 dimensions, but self is 3D");
  expect_error([&] { a.transpose(0, 2); }, "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
               ErrorKind::Index);
}

TEST(View, ReshapeCopiesOnlyWhenNeeded) {
  Tensor a = iota({2, 3});
  EXPECT_EQ(a.reshape({3, 2}).data_ptr(), a.data_ptr());
  Tensor r = a.t().reshape({6});
  EXPECT_NE(r.data_ptr(), a.data_ptr());
  expect_values(r, {6}, {0, 3, 1, 4, 2, 5});
  expect_values(iota({2, 3, 4}).flatten(1), {2, 12}, [] {
    std::vector<double> v(24);
    for (int i = 0; i < 24; ++i) v[i] = i;
    return v;
  }());
  EXPECT_EQ(iota({2, 6}).unflatten(1, {2, -1}).sizes().vec(), (std::vector<int64_t>{2, 2, 3}));
}

TEST(View, SliceSelectNarrowSplit) {
  Tensor a = iota({4, 3});
  expect_values(a.slice(0, 1, std::nullopt, 2), {2, 3}, {3, 4, 5, 9, 10, 11});
  expect_values(a.slice(1, -2), {4, 2}, {1, 2, 4, 5, 7, 8, 10, 11});
  expect_values(a.select(1, -1), {4}, {2, 5, 8, 11});
  expect_values(a.narrow(0, 2, 2), {2, 3}, {6, 7, 8, 9, 10, 11});
  expect_error([&] { a.select(0, 5); }, "select(): index 5 out of range for tensor of size [4, 3] at dimension 0",
               ErrorKind::Index);
  auto parts = a.split(3, 0);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].sizes().vec(), (std::vector<int64_t>{1, 3}));
  auto chunks = a.chunk(3, 1);
  ASSERT_EQ(chunks.size(), 3u);
  expect_values(chunks[2], {4, 1}, {2, 5, 8, 11});
  auto rows = a.unbind(0);
  ASSERT_EQ(rows.size(), 4u);
  expect_values(rows[3], {3}, {9, 10, 11});
}

TEST(View, SqueezeUnsqueezeExpandAsStrided) {
  Tensor a = iota({3});
  EXPECT_EQ(a.unsqueeze(0).sizes().vec(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(a.unsqueeze(-1).sizes().vec(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(a.unsqueeze(0).unsqueeze(2).squeeze().sizes().vec(), (std::vector<int64_t>{3}));
  Tensor e = a.expand({2, 3});
  EXPECT_EQ(e.stride(0), 0);
  expect_values(e, {2, 3}, {0, 1, 2, 0, 1, 2});
  expect_values(a.as_strided({2, 2}, {1, 1}), {2, 2}, {0, 1, 1, 2});
  expect_error([&] { a.as_strided({2, 2}, {1, 1}, 5); }, "out of bounds for storage");
  expect_error([&] { e.add_(1); }, "more than one element of the written-to tensor refers to a single memory location");
}

TEST(View, MetaViews) {
  Tensor m = empty({4, 6}, kMeta);
  EXPECT_EQ(m.view({2, 12}).sizes().vec(), (std::vector<int64_t>{2, 12}));
  EXPECT_TRUE(m.t().reshape({24}).is_meta());
  EXPECT_EQ(m.t().reshape({24}).sizes().vec(), (std::vector<int64_t>{24}));
}

}  // namespace
}  // namespace ember
