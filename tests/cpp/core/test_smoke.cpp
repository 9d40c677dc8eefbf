#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;

TEST(Core, ZerosOnesFull) {
  expect_values(zeros({2, 3}), {2, 3}, {0, 0, 0, 0, 0, 0});
  Tensor f = full({2}, 7);
  EXPECT_EQ(f.dtype(), kInt64);
  expect_values(f, {2}, {7, 7});
  EXPECT_EQ(full({1}, 2.5).dtype(), kFloat32);
  EXPECT_EQ(full({1}, true).dtype(), kBool);
}

TEST(Core, AddBroadcastAndPromotion) {
  Tensor a = ones({2, 3});
  Tensor b = full({3}, 2, kInt32);
  Tensor c = a + b;
  EXPECT_EQ(c.dtype(), kFloat32);
  expect_values(c, {2, 3}, {3, 3, 3, 3, 3, 3});
  Tensor i = full({2}, 3, kInt32) + 1;  // weak int scalar keeps int32
  EXPECT_EQ(i.dtype(), kInt32);
  Tensor f = full({2}, 3, kInt32) + 1.5;  // a float scalar lifts to the default float
  EXPECT_EQ(f.dtype(), kFloat32);
  expect_values(f, {2}, {4.5, 4.5});
  expect_values(ember::add(ones({2}), ones({2}), 3), {2}, {4, 4});
}

TEST(Core, AddShapeMismatchNamesSizes) {
  expect_error([] { ones({2, 3}) + ones({2, 4}); },
               "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
  // Checked from the last dim, as PyTorch: the rightmost mismatch is the one named.
  expect_error([] { ones({2, 3}) * ones({3, 2}); },
               "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
}

TEST(Core, InplaceAddBumpsVersionAndChecksCast) {
  Tensor a = zeros({3}, kInt64);
  uint32_t v = a.version();
  a += 2;
  EXPECT_EQ(a.version(), v + 1);
  expect_values(a, {3}, {2, 2, 2});
  expect_error([&] { a += ones({3}); }, "result type Float can't be cast to the desired output type Long");
  expect_values(a, {3}, {2, 2, 2});  // unchanged after the failed op
}

TEST(Core, MetaTensorsHaveShapesNoData) {
  DeviceGuard g(kMeta);
  Tensor m = zeros({5, 3});
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.data_ptr(), nullptr);
  Tensor s = m + ones({3});
  EXPECT_TRUE(s.is_meta());
  EXPECT_EQ(s.sizes().vec(), (std::vector<int64_t>{5, 3}));
}

TEST(Core, ToCopiesAndConverts) {
  Tensor a = full({2, 2}, 1.75);
  Tensor b = a.to(kInt64);
  expect_values(b, {2, 2}, {1, 1, 1, 1});
  EXPECT_TRUE(a.to(kFloat32).is_same(a));
  EXPECT_FALSE(a.to(kFloat32, /*copy=*/true).is_same(a));
  Tensor h = a.to(kBFloat16).to(kFloat64);
  expect_values(h, {2, 2}, {1.75, 1.75, 1.75, 1.75});
}

}  // namespace
}  // namespace ember
