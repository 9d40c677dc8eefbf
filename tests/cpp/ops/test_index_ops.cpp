// index_select, gather, scatter / scatter_add (and in-place forms), embedding: values against
// hand / torch 1.13 outputs, non-contiguous operands, 0-d, empty, every dtype, meta, PyTorch's
// error texts, in-place version bumps and self unchanged on error. Larger random cases compare
// the optimized kernels (threaded) with the scalar *_ref kernels exactly.
#include "backends/cpu/index_kernels.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::from_values;
using testing::iota;
using testing::values;

Tensor ids(const std::vector<double>& vals, IntArrayRef sizes, ScalarType dtype = kInt64) {
  return from_values(vals, sizes, dtype);
}
Tensor ids(const std::vector<double>& vals) {
  return from_values(vals, {static_cast<int64_t>(vals.size())}, kInt64);
}
// Deterministic pseudo-random integers in [lo, hi).
Tensor randint(int64_t lo, int64_t hi, IntArrayRef sizes, ScalarType dtype = kInt64, uint64_t seed = 1) {
  std::vector<double> v(static_cast<size_t>(compute_numel(sizes)));
  for (auto& x : v) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<double>(lo + static_cast<int64_t>((seed >> 33) % static_cast<uint64_t>(hi - lo)));
  }
  return from_values(v, sizes, dtype);
}
Tensor meta(IntArrayRef sizes, ScalarType dtype = kFloat32) {
  return empty(sizes, TensorOptions(dtype).device(kMeta));
}
std::vector<int64_t> shape(const Tensor& t) { return t.sizes().vec(); }

const ScalarType kAllDtypes[] = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8,
                                 kUInt8,   kInt16,   kInt32,   kInt64,    kBool};
std::vector<double> as_dtype(std::vector<double> v, ScalarType dt) {
  if (dt == kBool) {
    for (auto& x : v) x = x != 0;
  }
  return v;
}

// ---- index_select ----

TEST(IndexSelect, Values) {
  Tensor x = iota({3, 4});
  expect_values(x.index_select(1, ids({0, 3, 3})), {3, 3}, {0, 3, 3, 4, 7, 7, 8, 11, 11});
  expect_values(x.index_select(0, ids({2, 0})), {2, 4}, {8, 9, 10, 11, 0, 1, 2, 3});
  expect_values(x.index_select(-1, ids({1}, {1}, kInt32)), {3, 1}, {1, 5, 9});
  expect_values(x.index_select(1, ids({2}, {})), {3, 1}, {2, 6, 10});  // 0-d index keeps the dim
  expect_values(iota({2, 3, 10}).index_select(1, ids({2, 2, 0})), {2, 3, 10}, [] {
    std::vector<double> v;
    for (int o = 0; o < 2; ++o)
      for (int r : {2, 2, 0})
        for (int i = 0; i < 10; ++i) v.push_back(o * 30 + r * 10 + i);
    return v;
  }());
  for (ScalarType dt : kAllDtypes) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor r = iota({3, 4}, dt).index_select(1, ids({3, 1}));
    EXPECT_EQ(r.dtype(), dt);
    expect_values(r, {3, 2}, as_dtype({3, 1, 7, 5, 11, 9}, dt));
  }
}

TEST(IndexSelect, NonContiguousOperands) {
  Tensor x = iota({3, 4});
  expect_values(x.t().index_select(0, ids({3, 1})), {2, 3}, {3, 7, 11, 1, 5, 9});
  expect_values(x.slice(1, 0, std::nullopt, 2).index_select(1, ids({1, 1, 0})), {3, 3},
                {2, 2, 0, 6, 6, 4, 10, 10, 8});
  // torch: x.index_select(1, tensor([3, 0, 2, 1, 0, 3])[::2])
  expect_values(x.index_select(1, ids({3, 0, 2, 1, 0, 3}).slice(0, 0, std::nullopt, 2)), {3, 3},
                {3, 2, 0, 7, 6, 4, 11, 10, 8});
  expect_values(x.index_select(0, ids({1}).expand({3})), {3, 4}, {4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7});
}

TEST(IndexSelect, ZeroDimAndEmpty) {
  Tensor s = from_values({5}, {});
  expect_values(s.index_select(0, ids({0})), {}, {5});
  expect_values(s.index_select(-1, ids({0}, {})), {}, {5});
  expect_values(iota({3, 4}).index_select(0, ids({})), {0, 4}, {});
  expect_values(empty({0, 3}).index_select(0, ids({})), {0, 3}, {});
  expect_values(empty({0, 3}).index_select(1, ids({1})), {0, 1}, {});
  expect_values(empty({0}).index_select(0, ids({})), {0}, {});
}

TEST(IndexSelect, Errors) {
  Tensor x = iota({3, 4});
  expect_error([&] { x.index_select(1, ids({4})); }, "index out of range in self", ErrorKind::Index);
  expect_error([&] { x.index_select(0, ids({0, -1}, {2}, kInt32)); }, "index out of range in self",
               ErrorKind::Index);
  expect_error([&] { iota({3}).index_select(0, ids({3}, {})); }, "index out of range in self",
               ErrorKind::Index);
  expect_error([&] { from_values({5}, {}).index_select(0, ids({1})); }, "index out of range in self",
               ErrorKind::Index);
  expect_error([&] { empty({0}).index_select(0, ids({0})); }, "index out of range in self",
               ErrorKind::Index);
  expect_error([&] { x.index_select(1, ids({0, 1}, {1, 2})); },
               "index_select(): Index is supposed to be a vector", ErrorKind::Index);
  expect_error([&] { x.index_select(1, ids({0}, {1}, kInt16)); },
               "index_select(): Expected dtype int32 or int64 for index");
  expect_error([&] { x.index_select(1, from_values({0}, {1})); },
               "index_select(): Expected dtype int32 or int64 for index");
  expect_error([&] { x.index_select(2, ids({0})); },
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)", ErrorKind::Index);
  expect_error([&] { empty({3, 0}).index_select(1, ids({0})); },
               "index_select(): self indexing axis dim should be positive");
  expect_error([&] { from_values({5}, {}).index_select(0, ids({0, 0})); },
               "index_select(): Index to scalar can have only 1 value, got 2 value(s)");
}

TEST(IndexSelect, Meta) {
  Tensor m = meta({3, 4}, kFloat64);
  Tensor r = m.index_select(1, ids({0, 9, 9}));  // values cannot be checked on meta
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(shape(r), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(r.dtype(), kFloat64);
  Tensor r2 = iota({3, 4}).index_select(0, meta({5}, kInt32));
  EXPECT_TRUE(r2.is_meta());
  EXPECT_EQ(shape(r2), (std::vector<int64_t>{5, 4}));
  expect_error([&] { m.index_select(0, meta({2}, kFloat32)); },
               "index_select(): Expected dtype int32 or int64 for index");
}

// The fast (memcpy rows) path and the general path against index_select_kernel_ref.
TEST(IndexSelect, KernelsMatchReference) {
  struct Case {
    Tensor self;
    int64_t dim;
    Tensor index;
  };
  Tensor big = iota({64, 48}, kFloat64);
  std::vector<Case> cases = {
      {big, 0, randint(0, 64, {5000})},                       // rows: memcpy path, threaded
      {big, 1, randint(0, 48, {3000}, kInt32, 7)},            // inner 1: general path
      {iota({4, 30, 9}, kInt16), 1, randint(0, 30, {700})},   // middle dim, inner 9: memcpy path
      {big.t(), 0, randint(0, 48, {900}, kInt64, 3)},         // transposed self: general path
      {iota({70, 40}, kBFloat16).slice(1, 0, std::nullopt, 3), 1,
       randint(0, 14, {2000}).slice(0, 0, std::nullopt, 2)},  // sliced self and index
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    Tensor got = c.self.index_select(c.dim, c.index);
    Tensor want = empty(got.sizes(), c.self.dtype());
    cpu::index_select_kernel_ref(want, c.self, c.dim, c.index);
    EXPECT_EQ(values(got), values(want));
  }
}

// ---- gather ----

TEST(Gather, Values) {
  Tensor x = iota({3, 4});
  Tensor idx = ids({0, 2, 1, 1}, {2, 2});
  expect_values(x.gather(1, idx), {2, 2}, {0, 2, 5, 5});
  expect_values(x.gather(0, ids({2, 0, 1, 0}, {1, 4})), {1, 4}, {8, 1, 6, 3});
  expect_values(x.gather(-1, ids({3}, {1, 1})), {1, 1}, {3});
  // index.size(dim) may exceed self.size(dim).
  expect_values(x.gather(1, zeros({3, 5}, kInt64)), {3, 5}, {0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 8, 8, 8, 8, 8});
  for (ScalarType dt : kAllDtypes) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor r = iota({3, 4}, dt).gather(1, idx);
    EXPECT_EQ(r.dtype(), dt);
    expect_values(r, {2, 2}, as_dtype({0, 2, 5, 5}, dt));
  }
}

TEST(Gather, NonContiguousOperands) {
  Tensor xt = iota({3, 4}).t();  // [4, 3]
  Tensor idx = ids({2, 0, 1, 1, 0, 0}, {3, 2});
  expect_values(xt.gather(1, idx), {3, 2}, {8, 0, 5, 5, 2, 2});
  Tensor idx_t = ids({2, 1, 0, 0, 1, 0}, {2, 3}).t();  // same values as idx, transposed layout
  expect_values(xt.gather(1, idx_t), {3, 2}, {8, 0, 5, 5, 2, 2});
  expect_values(iota({3, 8}).slice(1, 1, std::nullopt, 2).gather(1, ids({3, 0}, {1, 2})), {1, 2}, {7, 1});
  expect_values(iota({3, 4}).gather(0, ids({2, 1}, {1, 2}).expand({3, 2})), {3, 2}, {8, 5, 8, 5, 8, 5});
}

TEST(Gather, ZeroDimAndEmpty) {
  Tensor s = from_values({5}, {});
  expect_values(s.gather(0, ids({0}, {})), {}, {5});
  expect_values(s.gather(0, ids({0, 0})), {2}, {5, 5});
  expect_values(from_values({5}, {1}).gather(0, ids({0}, {})), {}, {5});
  // An empty index skips every check (dtype and shape), as in PyTorch.
  expect_values(iota({3, 4}).gather(1, zeros({0, 7}, kInt64)), {0, 7}, {});
  Tensor e = iota({3, 4}).gather(1, zeros({0, 2, 5}, kInt32));
  EXPECT_EQ(shape(e), (std::vector<int64_t>{0, 2, 5}));
  EXPECT_EQ(e.dtype(), kFloat32);
}

TEST(Gather, Errors) {
  Tensor x = iota({3, 4});
  expect_error([&] { x.gather(1, ids({0, 5}, {1, 2})); }, "index 5 is out of bounds for dimension 1 with size 4");
  expect_error([&] { x.gather(1, ids({0, -1}, {1, 2})); }, "index -1 is out of bounds for dimension 1 with size 4");
  expect_error([&] { x.gather(0, ids({0, 3}, {1, 2})); }, "index 3 is out of bounds for dimension 0 with size 3");
  expect_error([&] { empty({3, 0}).gather(1, zeros({3, 2}, kInt64)); },
               "index 0 is out of bounds for dimension 1 with size 0");
  expect_error([&] { from_values({5}, {}).gather(0, ids({1})); }, "index 1 is out of bounds for dimension 0 with size 1");
  expect_error([&] { x.gather(1, ids({0, 1}, {1, 2}, kInt32)); }, "gather(): Expected dtype int64 for index");
  expect_error([&] { x.gather(1, ids({0, 1})); },
               "Index tensor must have the same number of dimensions as input tensor");
  expect_error([&] { from_values({5}, {}).gather(0, ids({0}, {1, 1})); },
               "Index tensor must have the same number of dimensions as input tensor");
  expect_error([&] { x.gather(1, zeros({4, 1}, kInt64)); },
               "Size does not match at dimension 0 expected index [4, 1] to be smaller than self [3, 4] "
               "apart from dimension 1");
  expect_error([&] { x.gather(2, ids({0}, {1, 1})); },
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)", ErrorKind::Index);
}

TEST(Gather, Meta) {
  Tensor r = meta({3, 4}).gather(1, ids({0, 7}, {1, 2}));
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(shape(r), (std::vector<int64_t>{1, 2}));
  Tensor r2 = iota({3, 4}, kInt8).gather(0, meta({2, 4}, kInt64));
  EXPECT_TRUE(r2.is_meta());
  EXPECT_EQ(r2.dtype(), kInt8);
  expect_error([&] { meta({3, 4}).gather(1, meta({2, 2}, kInt32)); }, "gather(): Expected dtype int64 for index");
  expect_error([&] { meta({3, 4}).gather(1, meta({4, 2}, kInt64)); }, "Size does not match at dimension 0");
}

TEST(Gather, KernelMatchesReference) {
  Tensor self = iota({300, 40, 3}, kFloat64);
  Tensor index = randint(0, 40, {300, 50, 3});  // 900 lines; index.size(1) > self.size(1)
  for (const Tensor& s : {self, self.permute({1, 0, 2}).contiguous().permute({1, 0, 2})}) {
    Tensor got = s.gather(1, index);
    Tensor want = empty(got.sizes(), kFloat64);
    cpu::gather_kernel_ref(want, s, 1, index);
    EXPECT_EQ(values(got), values(want));
  }
  Tensor wide = iota({50000, 4}, kInt32);  // more lines than one parallel chunk
  Tensor widx = randint(0, 4, {50000, 2});
  Tensor want = empty({50000, 2}, kInt32);
  cpu::gather_kernel_ref(want, wide, 1, widx);
  EXPECT_EQ(values(wide.gather(1, widx)), values(want));
}

// ---- scatter / scatter_add ----

TEST(Scatter, SrcAndValue) {
  Tensor s = zeros({3, 4});
  Tensor idx = ids({0, 2, 1, 1}, {2, 2});
  Tensor src = iota({2, 3}, kFloat32, 1);
  Tensor r = s.scatter(1, idx, src);
  expect_values(r, {3, 4}, {1, 0, 2, 0, 0, 5, 0, 0, 0, 0, 0, 0});  // duplicates: the last write wins
  expect_values(s, {3, 4}, std::vector<double>(12, 0));           // out-of-place leaves self alone
  expect_values(s.scatter(0, idx, src), {3, 4}, {1, 0, 0, 0, 4, 5, 0, 0, 0, 2, 0, 0});
  expect_values(s.scatter(1, idx, 7.5), {3, 4}, {7.5, 0, 7.5, 0, 0, 7.5, 0, 0, 0, 0, 0, 0});
  Tensor l = zeros({3, 4}, kInt64).scatter(1, idx, 7.5);  // the value converts to self's dtype
  EXPECT_EQ(l.dtype(), kInt64);
  expect_values(l, {3, 4}, {7, 0, 7, 0, 0, 7, 0, 0, 0, 0, 0, 0});
  expect_values(ones({3}).scatter(0, ids({2, 2, 2}), from_values({1, 2, 3}, {3})), {3}, {1, 1, 3});
  for (ScalarType dt : kAllDtypes) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor out = zeros({3, 4}, dt).scatter(1, idx, iota({2, 3}, dt, 1));
    EXPECT_EQ(out.dtype(), dt);
    expect_values(out, {3, 4}, as_dtype({1, 0, 2, 0, 0, 5, 0, 0, 0, 0, 0, 0}, dt));
    expect_values(zeros({2}, dt).scatter(0, ids({1}), true), {2}, {0, 1});
  }
}

TEST(Scatter, NonContiguousOperands) {
  // torch: zeros(3, 4).t().scatter(0, [[3, 0, 1], [2, 2, 0]], arange(1., 7.).view(3, 2).t())
  Tensor self = zeros({3, 4}).t();
  Tensor src = iota({3, 2}, kFloat32, 1).t();  // [[1, 3, 5], [2, 4, 6]]
  Tensor idx = ids({3, 0, 1, 2, 2, 0}, {2, 3});
  expect_values(self.scatter(0, idx, src), {4, 3}, {0, 3, 6, 0, 0, 5, 2, 4, 0, 1, 0, 0});
  // A strided self (every other column of base).
  Tensor base = zeros({3, 8});
  base.slice(1, 0, std::nullopt, 2).scatter_(1, idx, src);
  expect_values(base, {3, 8}, {3, 0, 5, 0, 0, 0, 1, 0,   // row 0 of self: [3, 5, 0, 1]
                               6, 0, 0, 0, 4, 0, 0, 0,   // row 1: [6, 0, 4, 0] (4 wins over 2)
                               0, 0, 0, 0, 0, 0, 0, 0});
  // Expanded src (stride 0) and expanded index are fine: only self must not self-overlap.
  expect_values(zeros({2, 3}).scatter(1, ids({2}, {1, 1}).expand({2, 1}), from_values({9}, {1, 1}).expand({2, 3})),
                {2, 3}, {0, 0, 9, 0, 0, 9});
}

TEST(Scatter, ZeroDimAndEmpty) {
  Tensor s = from_values({1}, {});
  expect_values(s.scatter(0, ids({0}, {}), from_values({5}, {})), {}, {5});
  expect_values(s.scatter(0, ids({0}), from_values({5}, {1})), {}, {5});
  expect_values(from_values({1}, {1}).scatter(0, ids({0}, {}), from_values({5}, {})), {1}, {5});
  expect_values(s.scatter(0, ids({0, 0}), ones({2})), {}, {1});
  expect_values(s.scatter(0, ids({0, 0}), 3.0), {}, {3});
  // An empty index changes nothing and skips the shape checks.
  Tensor x = iota({3, 4});
  expect_values(x.scatter(1, zeros({0, 7}, kInt64), iota({2, 3})), {3, 4}, values(x));
  expect_values(x.scatter(1, zeros({0}, kInt32), x), {3, 4}, values(x));
  expect_values(x.scatter_add(1, zeros({0, 2, 5}, kInt64), x), {3, 4}, values(x));
  expect_values(empty({0, 4}).scatter(1, zeros({0, 1}, kInt64), 2.0), {0, 4}, {});
}

TEST(ScatterAdd, AccumulatesInOrder) {
  Tensor s = zeros({3, 4});
  Tensor src = iota({2, 3}, kFloat32, 1);
  expect_values(s.scatter_add(1, ids({0, 2, 1, 1}, {2, 2}), src), {3, 4}, {1, 0, 2, 0, 0, 9, 0, 0, 0, 0, 0, 0});
  expect_values(s.scatter_add(1, ids({0, 0, 0}, {1, 3}), src), {3, 4}, {6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  // torch: zeros(3, 4).scatter_add(0, [[0,1,2,0],[0,1,2,0],[2,2,2,2]], ones(3, 4))
  expect_values(s.scatter_add(0, ids({0, 1, 2, 0, 0, 1, 2, 0, 2, 2, 2, 2}, {3, 4}), ones({3, 4})), {3, 4},
                {2, 0, 0, 2, 0, 2, 0, 0, 1, 1, 3, 1});
  // int8 wraps around (100 + 100 = -56), bool adds as "or", 16-bit floats round per addition.
  expect_values(zeros({2, 3}, kInt8).scatter_add(1, ids({0, 0}, {1, 2}), full({1, 2}, 100, kInt8)), {2, 3},
                {-56, 0, 0, 0, 0, 0});
  expect_values(zeros({3, 4}, kBool).scatter_add(1, ids({0, 2, 1, 1}, {2, 2}), ones({2, 3}, kBool)), {3, 4},
                {1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0});
  Tensor h = full({1}, 2048, kFloat16).scatter_add(0, ids({0, 0}), ones({2}, kFloat16));
  expect_values(h, {1}, {2048});  // 2048 + 1 rounds back to 2048 in float16, twice
  expect_values(zeros({1}, kBFloat16).scatter_add(0, ids({0, 0, 0}), iota({3}, kBFloat16, 1)), {1}, {6});
  for (ScalarType dt : kAllDtypes) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor out = ones({2, 2}, dt).scatter_add(0, ids({1, 1, 1, 0}, {2, 2}), ones({2, 2}, dt));
    expect_values(out, {2, 2}, as_dtype({1, 2, 3, 2}, dt));
  }
}

TEST(Scatter, InPlaceBumpsVersionAndReturnsSelf) {
  Tensor s = zeros({3, 4});
  Tensor view = s.slice(0, 1);  // shares the version counter
  uint32_t v = s.version();
  Tensor& r = s.scatter_(1, ids({0, 2, 1, 1}, {2, 2}), iota({2, 3}, kFloat32, 1));
  EXPECT_EQ(&r, &s);
  EXPECT_EQ(s.version(), v + 1);
  EXPECT_EQ(view.version(), v + 1);
  expect_values(s, {3, 4}, {1, 0, 2, 0, 0, 5, 0, 0, 0, 0, 0, 0});
  s.scatter_(0, ids({2}, {1, 1}), -1.0);
  EXPECT_EQ(s.version(), v + 2);
  s.scatter_add_(1, ids({3, 3}, {1, 2}), from_values({10, 20}, {1, 2}));
  EXPECT_EQ(s.version(), v + 3);
  expect_values(s, {3, 4}, {1, 0, 2, 30, 0, 5, 0, 0, -1, 0, 0, 0});
  // Meta self: shapes only, but the write is still recorded.
  Tensor m = meta({3, 4});
  uint32_t mv = m.version();
  m.scatter_(1, ids({0, 9}, {1, 2}), meta({1, 2}));
  EXPECT_EQ(m.version(), mv + 1);
}

TEST(Scatter, FailingInPlaceLeavesSelfUnchanged) {
  Tensor s = iota({3, 4});
  const std::vector<double> before = values(s);
  const uint32_t v = s.version();
  // The bad index comes last in row-major order: nothing may be written before the check.
  expect_error([&] { s.scatter_(1, ids({0, 1, 2, 9}, {2, 2}), zeros({2, 2})); },
               "index 9 is out of bounds for dimension 1 with size 4");
  expect_error([&] { s.scatter_(1, ids({0, 1, 2, -2}, {2, 2}), 5.0); },
               "index -2 is out of bounds for dimension 1 with size 4");
  expect_error([&] { s.scatter_add_(0, ids({0, 1, 2, 3}, {1, 4}), ones({1, 4})); },
               "index 3 is out of bounds for dimension 0 with size 3");
  expect_error([&] { s.scatter_(1, ids({0}, {1, 1}), zeros({1, 1}, kFloat64)); },
               "scatter(): Expected self.dtype to be equal to src.dtype");
  EXPECT_EQ(values(s), before);
  EXPECT_EQ(s.version(), v);
}

TEST(Scatter, Errors) {
  Tensor s = zeros({3, 4});
  Tensor idx = ids({0, 2, 1, 1}, {2, 2});
  Tensor src = iota({2, 3});
  expect_error([&] { s.scatter(1, idx, src.to(kFloat64)); }, "scatter(): Expected self.dtype to be equal to src.dtype");
  expect_error([&] { s.scatter_add(1, idx, src.to(kFloat64)); },
               "scatter(): Expected self.dtype to be equal to src.dtype");
  expect_error([&] { s.scatter(1, zeros({0}, kInt64), src.to(kFloat64)); },
               "scatter(): Expected self.dtype to be equal to src.dtype");  // even for an empty index
  expect_error([&] { s.scatter(1, idx.to(kInt32), src); }, "scatter(): Expected dtype int64 for index");
  expect_error([&] { s.scatter(1, idx.to(kInt32), 1.0); }, "scatter(): Expected dtype int64 for index");
  expect_error([&] { s.scatter(1, idx, ones({1, 1})); },
               "Expected index [2, 2] to be smaller than self [3, 4] apart from dimension 1 and to be "
               "smaller size than src [1, 1]");
  expect_error([&] { s.scatter(1, zeros({4, 1}, kInt64), ones({4, 1})); },
               "Expected index [4, 1] to be smaller than self [3, 4] apart from dimension 1 and to be "
               "smaller size than src [4, 1]");
  expect_error([&] { s.scatter(1, zeros({4, 1}, kInt64), 1.0); },
               "Expected index [4, 1] to be smaller than self [3, 4] apart from dimension 1");
  expect_error([&] { from_values({1}, {}).scatter(0, ids({0, 0}), from_values({3}, {})); },
               "Expected index [2] to be smaller than self [] apart from dimension 0 and to be smaller "
               "size than src []");
  expect_error([&] { s.scatter(1, zeros({2, 2}, kInt64), ones({1, 1, 1})); },
               "Index tensor must have the same number of dimensions as src tensor");
  expect_error([&] { s.scatter(1, zeros({2, 2, 2}, kInt64), ones({2, 2, 2})); },
               "Index tensor must have the same number of dimensions as self tensor");
  expect_error([&] { s.scatter(1, idx, ones({2})); },
               "Dimension out of range (expected to be in range of [-1, 0], but got 1)", ErrorKind::Index);
  expect_error([&] { s.scatter(1, ids({0, 7}, {1, 2}), src); }, "index 7 is out of bounds for dimension 1 with size 4");
  expect_error([&] { s.scatter(1, ids({0, 7}, {1, 2}), 1.0); }, "index 7 is out of bounds for dimension 1 with size 4");
  expect_error([&] { s.scatter_add(1, ids({0, 9}, {1, 2}), src); },
               "index 9 is out of bounds for dimension 1 with size 4");
  expect_error([&] { from_values({1}, {}).scatter(0, ids({1}, {}), from_values({5}, {})); },
               "index 1 is out of bounds for dimension 0 with size 1");
  expect_error([&] { s.scatter(2, idx, 1.0); },
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)", ErrorKind::Index);
}

TEST(Scatter, InPlaceOverlapAndDevices) {
  // Writing into an expanded tensor is refused.
  Tensor e = zeros({1, 4}).expand({3, 4});
  expect_error([&] { e.scatter_(1, ids({0, 2, 1, 1}, {2, 2}), iota({2, 3})); },
               "unsupported operation: more than one element of the written-to tensor refers to a single memory location");
  expect_error([&] { e.scatter_add_(1, ids({0}, {1, 1}), iota({1, 1})); },
               "unsupported operation: more than one element of the written-to tensor refers to a single memory location");
  // A dense src sharing memory with a dense self: refused as in PyTorch.
  Tensor x = zeros({3, 4});
  Tensor row_idx = ids({0, 1, 2, 3}, {1, 4});
  expect_error([&] { x.scatter_(1, row_idx, x.slice(0, 1)); },
               "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
               "single memory location. Please clone() the tensor before performing the operation.");
  expect_error([&] { x.scatter_add_(0, zeros({3, 4}, kInt64), x); }, "some elements of the input tensor");
  Tensor l = zeros({2, 2}, kInt64);
  expect_error([&] { l.scatter_(0, l, ones({2, 2}, kInt64)); }, "some elements of the input tensor");
  // Where PyTorch cannot tell (a non-dense self), ember reads src from a copy: the sequential result.
  Tensor base = iota({8});
  Tensor evens = base.slice(0, 0, std::nullopt, 2);  // elements 0, 2, 4, 6
  evens.scatter_(0, ids({1, 0, 3, 2}), base.slice(0, 0, 4));
  expect_values(base, {8}, {1, 1, 0, 3, 3, 5, 2, 7});
  // Devices: a CPU self cannot take a meta operand; meta operands make out-of-place results meta.
  expect_error([&] { x.scatter_(1, meta({1, 4}, kInt64), ones({1, 4})); },
               "Expected all tensors to be on the same device, but found at least two devices, cpu and meta! "
               "(when checking arguments for scatter_)");
  expect_error([&] { x.scatter_add_(1, row_idx, meta({1, 4})); },
               "Expected all tensors to be on the same device, but found at least two devices, cpu and meta!");
  Tensor r = x.scatter(1, row_idx, meta({1, 4}));
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(shape(r), (std::vector<int64_t>{3, 4}));
  Tensor ra = meta({3, 4}, kInt16).scatter_add(1, row_idx, meta({2, 4}, kInt16));
  EXPECT_TRUE(ra.is_meta());
  EXPECT_EQ(ra.dtype(), kInt16);
  expect_error([&] { meta({3, 4}).scatter(1, meta({2, 2}, kInt64), meta({2, 2}, kFloat64)); },
               "scatter(): Expected self.dtype to be equal to src.dtype");
}

// Many duplicate targets, enough lines for several threads: the kernels must equal the
// sequential reference exactly (same winner for scatter, same summation order for scatter_add).
TEST(ScatterAdd, KernelsAreDeterministicAndMatchReference) {
  const int saved = get_num_threads();
  set_num_threads(4);
  Tensor self = iota({40000, 3}, kFloat32, 0.25);
  Tensor index = randint(0, 3, {40000, 7});
  Tensor src = from_values([] {
    std::vector<double> v(280000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = 1.0 / static_cast<double>(i % 97 + 1) * 1e3;
    return v;
  }(), {40000, 7});
  for (auto mode : {cpu::ScatterMode::Assign, cpu::ScatterMode::Add}) {
    Tensor got = mode == cpu::ScatterMode::Add ? self.scatter_add(1, index, src) : self.scatter(1, index, src);
    Tensor want = self.clone();
    cpu::scatter_kernel_ref(want, 1, index, src, mode);
    EXPECT_EQ(values(got), values(want));
  }
  // Along dim 0 with transposed operands.
  Tensor t_self = zeros({5, 40000}, kFloat64);
  Tensor t_index = randint(0, 5, {40000, 9}, kInt64, 11).t();
  Tensor t_src = iota({40000, 9}, kFloat64, 0.5).t();
  Tensor got = t_self.scatter_add(0, t_index, t_src);
  Tensor want = t_self.clone();
  cpu::scatter_kernel_ref(want, 0, t_index, t_src, cpu::ScatterMode::Add);
  EXPECT_EQ(values(got), values(want));
  set_num_threads(saved);
}

// ---- embedding ----

TEST(Embedding, Values) {
  Tensor w = iota({4, 3});
  expect_values(embedding(w, ids({0, 3, 1, 1}, {2, 2})), {2, 2, 3}, {0, 1, 2, 9, 10, 11, 3, 4, 5, 3, 4, 5});
  expect_values(embedding(w, ids({0, 3, 1, 1}, {2, 2}, kInt32)), {2, 2, 3}, {0, 1, 2, 9, 10, 11, 3, 4, 5, 3, 4, 5});
  expect_values(embedding(w, ids({2}, {})), {3}, {6, 7, 8});
  expect_values(embedding(w, ids({2, 0})), {2, 3}, {6, 7, 8, 0, 1, 2});
  // Non-contiguous ids and weight; torch: embedding(w, tensor([[0, 1], [3, 1]]).t())
  expect_values(embedding(w, ids({0, 1, 3, 1}, {2, 2}).t()), {2, 2, 3}, {0, 1, 2, 9, 10, 11, 3, 4, 5, 3, 4, 5});
  expect_values(embedding(w.t(), ids({2, 0})), {2, 4}, {2, 5, 8, 11, 0, 3, 6, 9});
  expect_values(embedding(w, ids({}, {0})), {0, 3}, {});
  expect_values(embedding(w, zeros({2, 0}, kInt64)), {2, 0, 3}, {});
  expect_values(embedding(empty({0, 3}), zeros({2, 0}, kInt64)), {2, 0, 3}, {});
  // padding_idx only matters for the gradient.
  for (int64_t p : {3, 0, -1, -4}) expect_values(embedding(w, ids({0}), p), {1, 3}, {0, 1, 2});
  for (ScalarType dt : kAllDtypes) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor r = embedding(iota({4, 3}, dt), ids({2, 0}));
    EXPECT_EQ(r.dtype(), dt);
    expect_values(r, {2, 3}, as_dtype({6, 7, 8, 0, 1, 2}, dt));
  }
}

TEST(Embedding, LargeTableMatchesReference) {
  Tensor w = iota({1000, 64}, kFloat32);
  Tensor tokens = randint(0, 1000, {32, 200});
  Tensor got = embedding(w, tokens);
  ASSERT_EQ(shape(got), (std::vector<int64_t>{32, 200, 64}));
  Tensor want = empty({6400, 64});
  cpu::index_select_kernel_ref(want, w, 0, tokens.reshape({-1}));
  EXPECT_EQ(values(got), values(want));
}

TEST(Embedding, ErrorsAndMeta) {
  Tensor w = iota({4, 3});
  expect_error([&] { embedding(w, ids({4})); }, "index out of range in self", ErrorKind::Index);
  expect_error([&] { embedding(w, ids({-1}, {1, 1})); }, "index out of range in self", ErrorKind::Index);
  expect_error([&] { embedding(w, ids({0}), 4); }, "Padding_idx must be within num_embeddings");
  expect_error([&] { embedding(w, ids({0}), -5); }, "Padding_idx must be within num_embeddings");
  expect_error([&] { embedding(iota({4}), ids({0})); }, "'weight' must be 2-D");
  expect_error([&] { embedding(ones({2, 2, 2}), ids({0})); }, "'weight' must be 2-D");
  expect_error([&] { embedding(w, ids({0}, {1}, kInt16)); },
               "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
               "Int; but got ember.ShortTensor instead (while checking arguments for embedding)");
  expect_error([&] { embedding(w, from_values({0}, {1})); }, "but got ember.FloatTensor instead");
  expect_error([&] { embedding(empty({0, 3}), ids({0, 0})); },
               "index_select(): self indexing axis dim should be positive");
  // A meta table with real ids (a model skeleton): a meta result of the right shape.
  Tensor r = embedding(meta({50000, 16}, kFloat16), ids({1, 2, 3, 4, 5, 6}, {2, 3}));
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(shape(r), (std::vector<int64_t>{2, 3, 16}));
  EXPECT_EQ(r.dtype(), kFloat16);
  Tensor r2 = embedding(w, meta({5, 2}, kInt32));
  EXPECT_TRUE(r2.is_meta());
  EXPECT_EQ(shape(r2), (std::vector<int64_t>{5, 2, 3}));
}

TEST(IndexOps, BoxedEntries) {
  Tensor x = iota({2, 3});
  Stack out = find_op("aten::scatter", "value").call({Value(x), Value(1), Value(ids({2}, {1, 1})), Value(Scalar(9.0))});
  expect_values(out.at(0).to_tensor(), {2, 3}, {0, 1, 9, 3, 4, 5});
  out = find_op("aten::gather").call({Value(x), Value(1), Value(ids({2, 0}, {1, 2}))});  // sparse_grad defaults
  expect_values(out.at(0).to_tensor(), {1, 2}, {2, 0});
  out = find_op("aten::embedding").call({Value(x), Value(ids({1}))});
  expect_values(out.at(0).to_tensor(), {1, 3}, {3, 4, 5});
  Tensor y = zeros({2, 3});
  find_op("aten::scatter_add_").call({Value(y), Value(0), Value(ids({1, 1, 1}, {1, 3})), Value(x)});
  expect_values(y, {2, 3}, {0, 0, 0, 0, 1, 2});
  out = find_op("aten::index_select").call({Value(x), Value(0), Value(ids({1, 0}))});
  expect_values(out.at(0).to_tensor(), {2, 3}, {3, 4, 5, 0, 1, 2});
}

}  // namespace
}  // namespace ember
