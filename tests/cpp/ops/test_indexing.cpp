// Python-style indexing (Tensor::index / index_put_), aten::index, aten::index_put_, nonzero.
// Expected values were computed with PyTorch 1.13 (A = torch.arange(24.).reshape(2, 3, 4)).
#include <random>

#include "backends/cpu/indexing_kernels.h"
#include "testing.h"

namespace ember {
namespace {

using namespace ember::indexing;
using testing::expect_error;
using testing::expect_values;
using testing::values;
using Shape = std::vector<int64_t>;

Tensor iota(IntArrayRef sizes, ScalarType dt = kFloat64) { return testing::iota(sizes, dt); }


Tensor longs(std::vector<int64_t> v, std::optional<Shape> sizes = std::nullopt) {
  Tensor t = empty(sizes ? IntArrayRef(*sizes) : IntArrayRef{static_cast<int64_t>(v.size())}, kInt64);
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t;
}

Tensor bools(std::vector<int> v, std::optional<Shape> sizes = std::nullopt) {
  Tensor t = empty(sizes ? IntArrayRef(*sizes) : IntArrayRef{static_cast<int64_t>(v.size())}, kBool);
  bool* p = t.data_ptr<bool>();
  for (size_t i = 0; i < v.size(); ++i) p[i] = v[i] != 0;
  return t;
}

Tensor doubles(std::vector<double> v, std::optional<Shape> sizes = std::nullopt) {
  Tensor t = empty(sizes ? IntArrayRef(*sizes) : IntArrayRef{static_cast<int64_t>(v.size())}, kFloat64);
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  return t;
}

// 0, 1, ..., m-1, 0, 1, ... (small values every dtype holds exactly).
Tensor mod_iota(IntArrayRef sizes, int64_t m, ScalarType dt) {
  Tensor t = empty(sizes, kFloat64);
  double* p = t.data_ptr<double>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<double>(i % m);
  return t.to(dt);
}

Tensor A() { return iota({2, 3, 4}); }
Tensor m23() { return bools({1, 0, 1, 0, 1, 1}, Shape{2, 3}); }
Tensor m3() { return bools({0, 1, 1}); }

bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.impl()->storage().get() == b.impl()->storage().get();
}

// ---- basic indices: views ----

TEST(Indexing, IntegerSliceNoneEllipsisAreViews) {
  Tensor a = A();
  Tensor r = a.index({1});
  expect_values(r, {3, 4}, {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23});
  EXPECT_TRUE(shares_storage(r, a));
  EXPECT_EQ(r.storage_offset(), 12);
  Tensor s = a.index({-1, Slice(1, None), Slice(None, None, 2)});
  expect_values(s, {2, 2}, {16, 18, 20, 22});
  EXPECT_TRUE(shares_storage(s, a));
  expect_values(a.index({None, Ellipsis, 0}), {1, 2, 3}, {0, 4, 8, 12, 16, 20});
  expect_values(a.index({Slice(1, None), Slice(-2, None), None, 1}), {1, 2, 1}, {17, 21});
  expect_values(a.index({"...", Slice(1, 3)}), {2, 3, 2}, {1, 2, 5, 6, 9, 10, 13, 14, 17, 18, 21, 22});
  // Python clamping of slice bounds.
  expect_values(a.index({Slice(-100, 100), 0, Slice(3, 1)}), {2, 0}, {});
  EXPECT_EQ(a.index({Slice(None, 3)}).sizes().vec(), (Shape{2, 3, 4}));
  // The whole tensor still comes back as a new view (alias), never as self.
  for (Tensor v : {a.index({Ellipsis}), a.index({Slice(), Slice()}), a.index({})}) {
    EXPECT_FALSE(v.is_same(a));
    EXPECT_EQ(v.data_ptr(), a.data_ptr());
    EXPECT_EQ(v.sizes().vec(), a.sizes().vec());
  }
  // Writes through a basic-index view reach the base.
  Tensor b = A();
  Tensor v = b.index({0, Slice(), 1});
  v.fill_(-1);
  EXPECT_EQ(values(b)[1], -1);
  EXPECT_EQ(values(b)[5], -1);
  EXPECT_EQ(b.version(), v.version());
}

TEST(Indexing, BooleansAndZeroDimTensorIndices) {
  Tensor a = A();
  // true / false add a dim of size 1 that is kept (true) or emptied (false): copies.
  Tensor t = a.index({true});
  expect_values(t, {1, 2, 3, 4}, values(a));
  EXPECT_FALSE(shares_storage(t, a));
  EXPECT_EQ(a.index({false}).sizes().vec(), (Shape{0, 2, 3, 4}));
  expect_values(a.index({0, true}), {1, 3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  EXPECT_EQ(a.index({None, false}).sizes().vec(), (Shape{1, 0, 2, 3, 4}));
  // 0-d integer tensors (any integer dtype) select, as integers do: a view.
  Tensor row = a.index({scalar_tensor(1, kInt64)});
  EXPECT_TRUE(shares_storage(row, a));
  expect_values(row, {3, 4}, values(a.index({1})));
  expect_values(a.index({scalar_tensor(1, kInt32), scalar_tensor(-1, kInt16)}), {4}, {20, 21, 22, 23});
  // 0-d bool tensors act as bools.
  Tensor m = iota({2, 3});
  expect_values(m.index({scalar_tensor(1, kInt64), scalar_tensor(true, kBool)}), {1, 3}, {3, 4, 5});
  EXPECT_EQ(m.index({scalar_tensor(1, kInt64), scalar_tensor(false, kBool)}).sizes().vec(), (Shape{0, 3}));
  expect_values(m.index({scalar_tensor(1, kInt64), scalar_tensor(1, kUInt8)}), {1, 3}, {3, 4, 5});
}

TEST(Indexing, ZeroDimSelf) {
  Tensor s = scalar_tensor(5.0, kFloat64);
  expect_values(s.index({Ellipsis}), {}, {5});
  expect_values(s.index({None}), {1}, {5});
  expect_values(s.index({true}), {1}, {5});
  expect_values(s.index({scalar_tensor(true, kBool)}), {1}, {5});
  EXPECT_EQ(s.index({false}).sizes().vec(), (Shape{0}));
  EXPECT_EQ(s.index({scalar_tensor(false, kBool)}).sizes().vec(), (Shape{0}));
  expect_error([&] { s.index({0}); },
               "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
               "in C++ to convert a 0-dim tensor to a number",
               ErrorKind::Index);
  expect_error([&] { s.index({1}); }, "index 1 is out of bounds for dimension 0 with size 0", ErrorKind::Index);
  expect_error([&] { s.index({Slice(0, 1)}); }, "slice() cannot be applied to a 0-dim tensor.", ErrorKind::Index);
  expect_error([&] { s.index({scalar_tensor(0, kInt64)}); }, "too many indices for tensor of dimension 0",
               ErrorKind::Index);
  expect_error([&] { s.index({None, 0}); }, "too many indices for tensor of dimension 0", ErrorKind::Index);
}

// ---- advanced indices: copies ----

TEST(Indexing, IntegerTensorIndices) {
  Tensor a = A();
  Tensor r = a.index({longs({1, 0, 1})});
  EXPECT_FALSE(shares_storage(r, a));
  expect_values(r, {3, 3, 4}, {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5,
                               6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23});
  expect_values(a.index({Slice(), longs({2, 0})}), {2, 2, 4},
                {8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 12, 13, 14, 15});
  expect_values(a.index({Ellipsis, longs({-1, 0})}), {2, 3, 2}, {3, 0, 7, 4, 11, 8, 15, 12, 19, 16, 23, 20});
  // Broadcast index tensors.
  expect_values(a.index({longs({0, 1}, Shape{2, 1}), longs({0, 2})}), {2, 2, 4},
                {0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23});
  // Empty index tensors give empty results.
  EXPECT_EQ(a.index({longs({})}).sizes().vec(), (Shape{0, 3, 4}));
  EXPECT_EQ(a.index({Slice(), longs({}, Shape{0, 2})}).sizes().vec(), (Shape{2, 0, 2, 4}));
  // ... and no out-of-range error when the broadcast result is empty (as PyTorch).
  EXPECT_EQ(iota({3, 3}).index({longs({7}), longs({})}).sizes().vec(), (Shape{0}));
  Tensor e = empty({0, 3}, kFloat32);
  EXPECT_EQ(e.index({Slice(), longs({1})}).sizes().vec(), (Shape{0, 1}));
  EXPECT_EQ(e.index({Slice(), longs({5})}).sizes().vec(), (Shape{0, 1}));  // nothing read, nothing checked
  e.index_put_({Slice(), longs({5})}, 1);
}

TEST(Indexing, AdvancedIndexPlacement) {
  Tensor a = A();
  // Adjacent advanced indices: the broadcast dims replace them in place.
  expect_values(a.index({Slice(), longs({0, 2}), longs({1, 3})}), {2, 2}, {1, 11, 13, 23});
  expect_values(a.index({1, Slice(), longs({0, 3})}), {3, 2}, {12, 15, 16, 19, 20, 23});
  expect_values(a.index({longs({0, 1}), 1, longs({0, 3})}), {2}, {4, 19});
  // Separated by a slice, None or Ellipsis: the broadcast dims go first.
  expect_values(a.index({longs({0, 1}), Slice(), longs({1, 3})}), {2, 3}, {1, 5, 9, 15, 19, 23});
  expect_values(a.index({longs({0, 1}), None, longs({1, 2})}), {2, 1, 4}, {4, 5, 6, 7, 20, 21, 22, 23});
  expect_values(a.index({longs({1}), Ellipsis, longs({2, 0})}), {2, 3}, {14, 18, 22, 12, 16, 20});
}

TEST(Indexing, BoolMasks) {
  Tensor a = A();
  // A full mask (a % 3 == 0).
  std::vector<int> full(24);
  for (int i = 0; i < 24; ++i) full[i] = i % 3 == 0;
  expect_values(a.index({bools(full, Shape{2, 3, 4})}), {8}, {0, 3, 6, 9, 12, 15, 18, 21});
  // Partial masks, leading or after a slice.
  expect_values(a.index({m23()}), {4, 4}, {0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23});
  expect_values(a.index({Slice(), m3()}), {2, 2, 4}, {4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23});
  expect_values(a.index({Slice(), m3(), Slice(1, 3)}), {2, 2, 2}, {5, 6, 9, 10, 17, 18, 21, 22});
  // A mask next to an integer tensor broadcasts with it.
  expect_values(a.index({m23(), longs({3, 0, 1, 2})}), {4}, {3, 8, 17, 22});
  // uint8 masks too (deprecated in PyTorch, still supported).
  expect_values(a.index({Slice(), m3().to(kUInt8)}), {2, 2, 4}, values(a.index({Slice(), m3()})));
  // All-false mask: empty result.
  EXPECT_EQ(a.index({bools({0, 0})}).sizes().vec(), (Shape{0, 3, 4}));
}

TEST(Indexing, NonContiguousSelf) {
  Tensor a = A();
  expect_values(a.permute({2, 0, 1}).index({longs({3, 0}), Slice(), longs({2, 1})}), {2, 2}, {11, 23, 4, 16});
  expect_values(a.transpose(0, 2).index({Slice(1, None), m3()}), {3, 2, 2},
                {5, 17, 9, 21, 6, 18, 10, 22, 7, 19, 11, 23});
  // Expanded (stride 0) and sliced selves.
  Tensor ex = iota({3}).expand({2, 3});
  expect_values(ex.index({longs({1, 1}), longs({2, 0})}), {2}, {2, 0});
  expect_values(iota({6}).index({Slice(None, None, 2)}).index({longs({2, 0})}), {2}, {4, 0});
  // Non-contiguous index tensors.
  Tensor idx = longs({0, 9, 2, 9}).index({Slice(None, None, 2)});
  expect_values(iota({3}).index({idx}), {2}, {0, 2});
}

TEST(Indexing, EveryDtype) {
  for (ScalarType dt : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8, kUInt8, kInt16, kInt32, kInt64, kBool}) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor a = A().to(dt);
    Tensor r = a.index({longs({1, 0}), Slice(), longs({3, 1})});
    EXPECT_EQ(r.dtype(), dt);
    std::vector<double> expected{15, 19, 23, 1, 5, 9};
    if (dt == kBool) expected = {1, 1, 1, 1, 1, 1};
    expect_values(r, {2, 3}, expected);
    Tensor b = zeros({2, 3}, dt);
    b.index_put_({longs({1, 0, 1}), longs({2, 2, 0})}, ones({}, dt));
    expect_values(b, {2, 3}, {0, 0, 1, 1, 0, 1});
    Tensor c = zeros({2, 3}, dt);
    c.index_put_({Slice(), bools({1, 0, 1})}, 1);  // a Scalar, converted to dt
    expect_values(c.index({Slice(), 0}), {2}, {1, 1});
  }
}

// ---- index_put_ ----

TEST(IndexPut, BroadcastValues) {
  Tensor b = zeros({3, 4}, kFloat32);
  b.index_put_({longs({0, 2})}, doubles({1, 2, 3, 4}).to(kFloat32));
  expect_values(b, {3, 4}, {1, 2, 3, 4, 0, 0, 0, 0, 1, 2, 3, 4});
  b = zeros({3, 4}, kFloat32);
  b.index_put_({Slice(), longs({1, 3})}, doubles({1, 2, 3}, Shape{3, 1}).to(kFloat32));
  expect_values(b, {3, 4}, {0, 1, 0, 1, 0, 2, 0, 2, 0, 3, 0, 3});
  b = iota({3, 4}, kFloat32);
  std::vector<int> mask(12);
  for (int i = 0; i < 12; ++i) mask[i] = i % 5 == 0;
  b.index_put_({bools(mask, Shape{3, 4})}, -1);
  expect_values(b, {3, 4}, {-1, 1, 2, 3, 4, -1, 6, 7, 8, 9, -1, 11});
  b = zeros({3, 4}, kFloat32);
  b.index_put_({longs({1, 0}), Slice(1, 3)}, doubles({5, 6}).to(kFloat32));
  expect_values(b, {3, 4}, {0, 5, 6, 0, 0, 5, 6, 0, 0, 0, 0, 0});
  // Leading size-1 dims of the value are dropped (numpy's rule).
  b = zeros({3, 4}, kFloat32);
  b.index_put_({longs({1, 0}), Slice(), None}, doubles({5, 6, 7, 8}, Shape{1, 4, 1}).to(kFloat32));
  expect_values(b, {3, 4}, {5, 6, 7, 8, 5, 6, 7, 8, 0, 0, 0, 0});
  b = zeros({3, 4}, kFloat32);
  b.index_put_({longs({0, 2}), None, longs({1, 3})}, doubles({5, 6}, Shape{2, 1}).to(kFloat32));
  expect_values(b, {3, 4}, {0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6});
  Tensor p = zeros({2, 3, 4}, kFloat32);
  p.index_put_({Slice(), m3()}, doubles({1, 2, 3, 4}, Shape{1, 4}).to(kFloat32));
  expect_values(p, {2, 3, 4}, {0, 0, 0, 0, 1, 2, 3, 4, 1, 2, 3, 4, 0, 0, 0, 0, 1, 2, 3, 4, 1, 2, 3, 4});
}

TEST(IndexPut, BasicIndicesCopyIntoTheView) {
  Tensor b = zeros({3, 4}, kFloat32);
  uint32_t v0 = b.version();
  b.index_put_({1}, 5);
  b.index_put_({Slice(), Slice(1, 3)}, doubles({7, 8}));          // float64 value: converted
  b.index_put_({Ellipsis, 0}, longs({1, 2, 3}));                  // int64 value: converted
  expect_values(b, {3, 4}, {1, 7, 8, 0, 2, 7, 8, 5, 3, 7, 8, 0});
  EXPECT_GT(b.version(), v0);
  b.index_put_({None}, scalar_tensor(9, kInt64));
  expect_values(b, {3, 4}, std::vector<double>(12, 9));
  uint32_t v1 = b.version();
  b.index_put_({false}, 1);  // selects nothing, writes nothing
  EXPECT_EQ(b.version(), v1);
  expect_values(b, {3, 4}, std::vector<double>(12, 9));
  b.index_put_({true, 0}, doubles({4, 3, 2, 1}).to(kFloat32));  // advanced (bool): same dtype
  expect_values(b.index({0}), {4}, {4, 3, 2, 1});
  Tensor s = zeros({}, kFloat32);
  s.index_put_({Ellipsis}, 3);
  expect_values(s, {}, {3});
}

TEST(IndexPut, NonContiguousSelfAndViews) {
  Tensor b = zeros({3, 4}, kFloat32);
  Tensor bt = b.t();
  bt.index_put_({longs({3, 0})}, doubles({1, 2, 3}).to(kFloat32));
  expect_values(b, {3, 4}, {1, 0, 0, 1, 2, 0, 0, 2, 3, 0, 0, 3});
  EXPECT_EQ(b.version(), bt.version());
  // Advanced index_put_ through a basic-index view writes the base.
  Tensor c = zeros({2, 3, 4}, kFloat32);
  c.index_put_({1, longs({2}), Slice(None, None, 2)}, 7);
  expect_values(c.index({1, 2}), {4}, {7, 0, 7, 0});
  double total = 0;
  for (double x : values(c)) total += x;
  EXPECT_EQ(total, 14);
}

TEST(IndexPut, ExpandedSelf) {
  // PyTorch only warns (deprecated) for index_put_ into an expanded tensor and writes the shared
  // elements; ember does the same, in order.
  Tensor base = zeros({3}, kFloat32);
  Tensor ex = base.expand({2, 3});
  index_put_(ex, {longs({0}), longs({1})}, scalar_tensor(4.0, kFloat32));
  expect_values(base, {3}, {0, 4, 0});
  index_put_(ex, {longs({0, 1}), longs({2, 2})}, ones({2}, kFloat32), /*accumulate=*/true);
  expect_values(base, {3}, {0, 4, 2});
  // Basic indexing copies refuse it, as copy_ does.
  expect_error([&] { ex.index_put_({Slice()}, ones({3}, kFloat32)); },
               "more than one element of the written-to tensor refers to a single memory location");
  expect_error([&] { base.index_put_({0}, Tensor()); }, "index_put_: expected a defined value tensor");
}

TEST(IndexPut, AccumulateAndDuplicates) {
  Tensor b = zeros({3, 4}, kFloat32);
  index_put_(b, {longs({0, 0, 2}), longs({1, 1, 3})}, doubles({1, 2, 3}).to(kFloat32), /*accumulate=*/true);
  expect_values(b, {3, 4}, {0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3});
  // Without accumulate, the last write wins.
  b = zeros({3, 4}, kFloat32);
  index_put_(b, {longs({0, 0, 2}), longs({1, 1, 3})}, doubles({1, 2, 3}).to(kFloat32));
  expect_values(b, {3, 4}, {0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3});
  Tensor m = zeros({2, 3}, kFloat64);
  index_put_(m, {bools({1, 0, 1, 0, 0, 1}, Shape{2, 3})}, doubles({1, 2, 3}), true);
  expect_values(m, {2, 3}, {1, 0, 2, 0, 0, 3});
  // Integer accumulation wraps; bool accumulation is "or" (PyTorch 1.13 values).
  Tensor i8 = zeros({3}, kInt8);
  index_put_(i8, {longs({0, 0, 2})}, longs({100, 100, 1}).to(kInt8), true);
  expect_values(i8, {3}, {-56, 0, 1});
  Tensor u8 = zeros({3}, kUInt8);
  index_put_(u8, {longs({0, 0, 2})}, longs({200, 100, 1}).to(kUInt8), true);
  expect_values(u8, {3}, {44, 0, 1});
  Tensor bo = zeros({3}, kBool);
  index_put_(bo, {longs({0, 0, 2})}, bools({1, 1, 0}), true);
  expect_values(bo, {3}, {1, 0, 0});
  Tensor h = zeros({2}, kFloat16);
  index_put_(h, {longs({1, 1, 1})}, doubles({0.5, 0.25, 1}).to(kFloat16), true);
  expect_values(h, {2}, {0, 1.75});
  // Many duplicates along B with several pre rows: deterministic sums.
  Tensor big = zeros({4, 8}, kFloat64);
  std::vector<int64_t> dup(1000);
  for (size_t i = 0; i < dup.size(); ++i) dup[i] = static_cast<int64_t>(i % 8);
  index_put_(big, {std::nullopt, longs(dup)}, ones({1000}, kFloat64), true);
  expect_values(big, {4, 8}, std::vector<double>(32, 125));
}

TEST(IndexPut, ValueDtypeRules) {
  // Advanced index_put_ wants self's dtype, as PyTorch ...
  Tensor b = zeros({3}, kFloat32);
  expect_error([&] { b.index_put_({longs({0})}, doubles({1})); },
               "Index put requires the source and destination dtypes match, got Float for the "
               "destination and Double for the source.");
  expect_error([&] { index_put_(b, {longs({0, 0, 1})}, doubles({1, 2, 3}), true); },
               "Index put requires the source and destination dtypes match, got Float for the "
               "destination and Double for the source.");
  // ... except one mask with a one-element value, which PyTorch turns into masked_fill_
  // (Note [index_put_ with a mask and one value]).
  b.index_put_({bools({1, 0, 1})}, scalar_tensor(7, kInt64));
  expect_values(b, {3}, {7, 0, 7});
  index_put_(b, {bools({0, 1, 0})}, longs({8}, Shape{1, 1}));
  expect_values(b, {3}, {7, 8, 7});
  // Scalars take self's dtype (3.7 -> 3 in an int64 tensor).
  Tensor c = zeros({4}, kInt64);
  c.index_put_({bools({1, 0, 1, 0})}, 3.7);
  expect_values(c, {4}, {3, 0, 3, 0});
  c.index_put_({longs({1})}, 2.5);
  expect_values(c, {4}, {3, 2, 3, 0});
}

// ---- errors (and nothing written when they happen) ----

TEST(IndexingErrors, BasicIndexErrors) {
  Tensor t = iota({2, 3});
  expect_error([&] { t.index({5}); }, "index 5 is out of bounds for dimension 0 with size 2", ErrorKind::Index);
  expect_error([&] { t.index({-3}); }, "index -3 is out of bounds for dimension 0 with size 2", ErrorKind::Index);
  expect_error([&] { t.index({Slice(), 5}); }, "index 5 is out of bounds for dimension 1 with size 3", ErrorKind::Index);
  // The dimension named is the position in the index list, as in PyTorch.
  expect_error([&] { t.index({None, 5}); }, "index 5 is out of bounds for dimension 1 with size 2", ErrorKind::Index);
  expect_error([&] { t.index({Slice(None, None, -1)}); }, "step must be greater than zero", ErrorKind::Value);
  expect_error([&] { t.index({0, Slice(None, None, -2)}); }, "step must be greater than zero", ErrorKind::Value);
  expect_error([&] { t.index({Slice(None, None, 0)}); }, "slice step cannot be zero", ErrorKind::Value);
  expect_error([&] { t.index({Ellipsis, Ellipsis}); }, "an index can only have a single ellipsis ('...')",
               ErrorKind::Index);
  expect_error([&] { t.index({0, 0, 0}); }, "too many indices for tensor of dimension 2", ErrorKind::Index);
  expect_error([&] { t.index({0, None, 0, 0}); }, "too many indices for tensor of dimension 2", ErrorKind::Index);
  expect_error([&] { t.index({bools({1, 1, 1, 1, 1, 1}, Shape{2, 3}), 0}); },
               "too many indices for tensor of dimension 2", ErrorKind::Index);
  expect_error([&] { t.index({"..x"}); }, "Expected \"...\" to represent an ellipsis index, but got \"..x\"",
               ErrorKind::Value);
}

TEST(IndexingErrors, AdvancedIndexErrors) {
  Tensor t = iota({2, 3});
  expect_error([&] { t.index({longs({7})}); }, "index 7 is out of bounds for dimension 0 with size 2",
               ErrorKind::Index);
  expect_error([&] { t.index({longs({-3})}); }, "index -3 is out of bounds for dimension 0 with size 2",
               ErrorKind::Index);
  // The dimension named counts the index tensors (PyTorch's kernel).
  expect_error([&] { t.index({Slice(), longs({7})}); }, "index 7 is out of bounds for dimension 0 with size 3",
               ErrorKind::Index);
  Tensor t3 = A();
  expect_error([&] { t3.index({longs({0}), Slice(), longs({9})}); },
               "index 9 is out of bounds for dimension 1 with size 4", ErrorKind::Index);
  expect_error([&] { t.index({longs({0}).to(kInt32)}); }, "tensors used as indices must be long, byte or bool tensors",
               ErrorKind::Index);
  expect_error([&] { t.index({doubles({0})}); }, "tensors used as indices must be long, byte or bool tensors",
               ErrorKind::Index);
  expect_error([&] { t.index({scalar_tensor(1.0, kFloat64)}); },
               "tensors used as indices must be long, byte or bool tensors", ErrorKind::Index);
  expect_error([&] { t.index({bools({1, 1, 1})}); },
               "The shape of the mask [3] at index 0 does not match the shape of the indexed tensor [2, 3] at index 0",
               ErrorKind::Index);
  expect_error([&] { t.index({Slice(), bools({1, 1})}); },
               "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [2, 3] at index 1",
               ErrorKind::Index);
  expect_error([&] { t.index({bools({1, 1, 1, 1}, Shape{2, 2})}); },
               "The shape of the mask [2, 2] at index 1 does not match the shape of the indexed tensor [2, 3] at index 1",
               ErrorKind::Index);
  expect_error([&] { t.index({longs({0, 1}), longs({2, 0, 1})}); },
               "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]",
               ErrorKind::Index);
  expect_error([&] { empty({0}, kFloat32).index({longs({0, 1})}); },
               "index is out of bounds for dimension with size 0", ErrorKind::Index);
  // aten::index directly.
  expect_error([&] { index(t, {longs({0}), std::nullopt, longs({0})}); },
               "too many indices for tensor of dimension 2 (got 3)", ErrorKind::Index);
  expect_error([&] { index(t, {std::nullopt, bools({1, 1, 1, 1, 1, 1, 1, 1, 1}, Shape{3, 3})}); },
               "too many indices for tensor of dimension 2 (got 3)", ErrorKind::Index);
  expect_error([&] { index(t, {std::nullopt, std::nullopt}); },
               "index(): expected at least one index tensor, but every index is None");
  expect_error([&] { index(t, {scalar_tensor(true, kBool)}); }, "a 0-dim bool or uint8 index masks no dimension",
               ErrorKind::Index);
  expect_error([&] { t.index({longs({0}).to(kMeta)}); },
               "indices should be either on cpu or on the same device as the indexed tensor (cpu)");
}

TEST(IndexingErrors, IndexPutLeavesSelfUnchanged) {
  Tensor b = iota({3, 4}, kFloat32);
  const std::vector<double> before = values(b);
  const uint32_t v0 = b.version();
  auto unchanged = [&] {
    expect_values(b, {3, 4}, before);
    EXPECT_EQ(b.version(), v0);
  };
  // The bad index comes after good ones: nothing may be written before it is found.
  expect_error([&] { b.index_put_({longs({0, 1, 5})}, 1); }, "index 5 is out of bounds for dimension 0 with size 3",
               ErrorKind::Index);
  unchanged();
  expect_error([&] { index_put_(b, {longs({0, 0, 9}), longs({1, 1, 1})}, ones({3}, kFloat32), true); },
               "index 9 is out of bounds for dimension 0 with size 3", ErrorKind::Index);
  unchanged();
  expect_error([&] { b.index_put_({longs({0, 1})}, ones({3}, kFloat32)); },
               "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 4]");
  unchanged();
  expect_error([&] { b.index_put_({longs({0, 1}), Slice(), None}, ones({2, 4, 1, 1}, kFloat32)); },
               "shape mismatch: value tensor of shape [2, 4, 1, 1] cannot be broadcast to indexing result of shape [2, 4, 1]");
  unchanged();
  expect_error([&] { b.index_put_({Slice(0, 2)}, ones({3}, kFloat32)); },
               "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  "
               "Target sizes: [2, 4].  Tensor sizes: [3]");
  unchanged();
  expect_error([&] { b.index_put_({0}, ones({2, 1}, kFloat32)); },
               "expand(ember.FloatTensor{[2, 1]}, size=[4]): the number of sizes provided (1) must be greater "
               "or equal to the number of dimensions in the tensor (2)");
  unchanged();
  expect_error([&] { b.index_put_({bools({1, 0})}, 1); },
               "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3, 4] at index 0",
               ErrorKind::Index);
  unchanged();
  expect_error([&] { b.index_put_({0, 0, 0}, 1); }, "too many indices for tensor of dimension 2", ErrorKind::Index);
  unchanged();
  expect_error([&] { b.index_put_({9}, 1); }, "index 9 is out of bounds for dimension 0 with size 3", ErrorKind::Index);
  unchanged();
  expect_error([&] { index_put_(b, {longs({0}), longs({0}), longs({0})}, ones({}, kFloat32)); },
               "too many indices for tensor of dimension 2 (got 3)", ErrorKind::Index);
  unchanged();
  expect_error([&] { index_put_(b, {longs({0}).to(kInt32)}, ones({}, kFloat32)); },
               "tensors used as indices must be long, byte or bool tensors", ErrorKind::Index);
  unchanged();
  // Arguments sharing memory with self (PyTorch's assert_no_overlap).
  const char* overlap = "unsupported operation: some elements of the input tensor and the written-to tensor refer "
                        "to a single memory location. Please clone() the tensor before performing the operation.";
  expect_error([&] { index_put_(b, {longs({0})}, b.index({1})); }, overlap);
  expect_error([&] { index_put_(b, {longs({0, 1, 2})}, b); }, overlap);
  unchanged();
  Tensor li = zeros({3}, kInt64);
  expect_error([&] { index_put_(li, {li}, scalar_tensor(1, kInt64)); }, overlap);
  // Meta arguments into a real tensor.
  expect_error([&] { index_put_(b, {longs({0}).to(kMeta)}, ones({}, kFloat32)); },
               "Cannot inplace into non-meta tensor with meta tensor argument", ErrorKind::NotImplemented);
  expect_error([&] { index_put_(b, {longs({0})}, ones({}, kFloat32).to(kMeta)); },
               "Cannot inplace into non-meta tensor with meta tensor argument", ErrorKind::NotImplemented);
  unchanged();
}

TEST(IndexPut, OverlapThatCannotBeProvedIsReadFromACopy) {
  // z[::2][[0, 1]] = z[1::2]: same storage, interleaved, not dense; PyTorch lets it through.
  Tensor z = iota({4});
  Tensor even = z.index({Slice(None, None, 2)});
  index_put_(even, {longs({0, 1})}, z.index({Slice(1, None, 2)}));
  expect_values(z, {4}, {1, 1, 3, 3});
  // Rows of a transposed (not dense) read of self: all values are read before any write.
  Tensor y = iota({3, 3});
  index_put_(y, {longs({0, 1})}, y.t().index({Slice(None, 2)}));
  expect_values(y, {3, 3}, {0, 3, 6, 1, 4, 7, 6, 7, 8});
}

// ---- meta ----

TEST(Indexing, Meta) {
  Tensor m = empty({2, 3, 4}, kMeta);
  EXPECT_EQ(m.index({1, Slice(1, None)}).sizes().vec(), (Shape{2, 4}));
  Tensor r = m.index({longs({1, 0, 1}), Slice(), longs({0})});
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(r.sizes().vec(), (Shape{3, 3}));
  EXPECT_EQ(m.index({longs({0}).to(kMeta)}).sizes().vec(), (Shape{1, 3, 4}));
  EXPECT_EQ(m.index({true}).sizes().vec(), (Shape{1, 2, 3, 4}));
  // A CPU mask has a known count; a meta mask does not (PyTorch 1.13 fails in nonzero too).
  EXPECT_EQ(m.index({m23()}).sizes().vec(), (Shape{4, 4}));
  expect_error([&] { m.index({m23().to(kMeta)}); }, "Could not run 'aten::nonzero' with arguments from the 'Meta' backend",
               ErrorKind::NotImplemented);
  expect_error([&] { nonzero(empty({3}, kMeta)); }, "data-dependent", ErrorKind::NotImplemented);
  expect_error([&] { m.index({scalar_tensor(1, kInt64).to(kMeta)}); }, "cannot be called on meta tensors",
               ErrorKind::NotImplemented);
  expect_error([&] { m.index({longs({0, 1}), longs({0, 1, 2})}); },
               "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]", ErrorKind::Index);
  // index_put_ on meta: shapes and dtypes are checked, nothing is written, the version moves.
  uint32_t v0 = m.version();
  m.index_put_({longs({0, 1}).to(kMeta)}, ones({2, 3, 4}, kMeta));
  m.index_put_({m23().to(kMeta)}, ones({5, 4}, kMeta));  // unknown count: 5 may be right
  expect_error([&] { m.index_put_({m23().to(kMeta)}, ones({5, 3}, kMeta)); },
               "shape mismatch: value tensor of shape [5, 3] cannot be broadcast to indexing result of shape [?, 4] "
               "(? = the number of true elements of a meta mask)");
  m.index_put_({m23()}, 1.5);
  EXPECT_GT(m.version(), v0);
  expect_error([&] { m.index_put_({longs({0, 1})}, ones({3, 3, 4}, kMeta)); },
               "shape mismatch: value tensor of shape [3, 3, 4] cannot be broadcast to indexing result of shape [2, 3, 4]");
  expect_error([&] { index_put_(m, {longs({0, 1})}, ones({2, 3, 4}, TensorOptions(kFloat64).device(kMeta))); },
               "Index put requires the source and destination dtypes match, got Float for the destination and "
               "Double for the source.");
}

// ---- nonzero ----

TEST(Nonzero, Values) {
  Tensor t = doubles({0, 1.5, 0, std::nan(""), 0, -2}, Shape{2, 3});
  Tensor nz = nonzero(t);
  EXPECT_EQ(nz.dtype(), kInt64);
  expect_values(nz, {3, 2}, {0, 1, 1, 0, 1, 2});
  expect_values(nonzero(t.t()), {3, 2}, {0, 1, 1, 0, 2, 1});
  EXPECT_EQ(nonzero(scalar_tensor(3.0, kFloat32)).sizes().vec(), (Shape{1, 0}));
  EXPECT_EQ(nonzero(scalar_tensor(0.0, kFloat32)).sizes().vec(), (Shape{0, 0}));
  EXPECT_EQ(nonzero(zeros({2, 0}, kFloat32)).sizes().vec(), (Shape{0, 2}));
  for (ScalarType dt : {kFloat16, kBFloat16, kInt8, kUInt8, kInt32, kBool}) {
    expect_values(nonzero(longs({0, 1, 0, 1}).to(dt)), {2, 1}, {1, 3});
  }
  const OpHandle& op = find_op("aten::nonzero");
  Stack out = op.call({Value(t)});
  expect_values(out[0].to_tensor(), {3, 2}, {0, 1, 1, 0, 1, 2});
}

// ---- boxed entries ----

TEST(Indexing, BoxedCalls) {
  Tensor a = A();
  const OpHandle& idx = find_op("aten::index", "Tensor");
  Value::OptionalTensorList list{std::nullopt, longs({2, 0})};
  Stack out = idx.call({Value(a), Value(list)});
  expect_values(out[0].to_tensor(), {2, 2, 4}, {8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 12, 13, 14, 15});
  Tensor b = zeros({3}, kFloat64);
  const OpHandle& put = find_op("aten::index_put_");
  put.call({Value(b), Value(Value::OptionalTensorList{longs({1, 1})}), Value(doubles({2, 3}))});
  expect_values(b, {3}, {0, 3, 0});
  put.call({Value(b), Value(Value::OptionalTensorList{longs({1, 1})}), Value(doubles({2, 3})), Value(true)});
  expect_values(b, {3}, {0, 8, 0});
}

// ---- kernels against their scalar references ----

TEST(IndexingKernels, MatchReference) {
  std::mt19937 rng(7);
  auto rand_longs = [&](IntArrayRef shape, int64_t size) {
    Tensor t = empty(shape, kInt64);
    std::uniform_int_distribution<int64_t> d(-size, size - 1);
    for (int64_t i = 0; i < t.numel(); ++i) t.data_ptr<int64_t>()[i] = d(rng);
    return t;
  };
  struct Case {
    Shape src_sizes;
    std::vector<int64_t> perm;  // applied to src: non-contiguous layouts
    int64_t begin, k;
    Shape index_shape;
  };
  const std::vector<Case> cases{
      {{5, 6, 7}, {0, 1, 2}, 0, 1, {4}},
      {{5, 6, 7}, {2, 0, 1}, 1, 2, {3, 2}},
      {{5, 6, 7}, {1, 2, 0}, 2, 1, {2, 1, 3}},
      {{4, 3, 5, 6}, {3, 1, 0, 2}, 1, 2, {7}},
      {{300, 40}, {0, 1}, 0, 1, {500}},       // many rows: the parallel paths
      {{64, 300, 3}, {0, 1, 2}, 1, 1, {200}},
  };
  for (const Case& c : cases) {
    for (ScalarType dt : {kFloat32, kFloat16, kInt8, kInt64, kBool}) {
      Tensor src = mod_iota(c.src_sizes, 100, kFloat64).permute(c.perm).to(dt);
      std::vector<Tensor> idx;
      for (int64_t j = 0; j < c.k; ++j) idx.push_back(rand_longs(c.index_shape, src.size(c.begin + j)));
      Shape result(src.sizes().begin(), src.sizes().begin() + c.begin);
      result.insert(result.end(), c.index_shape.begin(), c.index_shape.end());
      result.insert(result.end(), src.sizes().begin() + c.begin + c.k, src.sizes().end());
      Tensor out = empty(result, dt), ref = empty(result, dt);
      auto offsets = cpu::index_offsets(src, c.begin, idx);
      cpu::index_kernel(out, src, c.begin, c.k, static_cast<int64_t>(c.index_shape.size()), offsets);
      cpu::index_kernel_ref(ref, src, c.begin, idx);
      EXPECT_EQ(values(out), values(ref));
      for (bool acc : {false, true}) {
        Tensor vals = mod_iota(result, 5, dt);
        Tensor self = src.clone(), self_ref = src.clone();
        cpu::index_put_kernel(self, vals, c.begin, c.k, static_cast<int64_t>(c.index_shape.size()), offsets, acc);
        cpu::index_put_kernel_ref(self_ref, vals, c.begin, idx, acc);
        EXPECT_EQ(values(self), values(self_ref)) << "accumulate " << acc;
      }
    }
  }
}

}  // namespace
}  // namespace ember
