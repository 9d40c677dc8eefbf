// Edge cases of the core (dtypes, promotion, storage sizes, views, fill, the elementwise loop),
// with expected values pasted from PyTorch 1.13.
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "backends/cpu/loop.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;

constexpr ScalarType kTypes[] = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8,
                                 kUInt8,   kInt16,   kInt32,   kInt64,    kBool};

Tensor ones_of(ScalarType t, bool zero_dim) { return ones(zero_dim ? IntArrayRef{} : IntArrayRef{2}, t); }

// torch.promote_types(a, b) for a, b over kTypes (indices into kTypes).
constexpr int kPromote[] = {
    0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 2, 0, 2, 2, 2, 2, 2, 2,
    0, 1, 0, 3, 3, 3, 3, 3, 3, 3, 0, 1, 2, 3, 4, 6, 6, 7, 8, 4, 0, 1, 2, 3, 6, 5, 6, 7, 8, 5,
    0, 1, 2, 3, 6, 6, 6, 7, 8, 6, 0, 1, 2, 3, 7, 7, 7, 7, 8, 7, 0, 1, 2, 3, 8, 8, 8, 8, 8, 8,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
// torch.result_type(ones(2, a), ones((), b)).
constexpr int kDimVsZeroDim[] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 1, 2, 3, 4, 4, 4, 4, 4, 4, 0, 1, 2, 3, 5, 5, 5, 5, 5, 5,
    0, 1, 2, 3, 6, 6, 6, 6, 6, 6, 0, 1, 2, 3, 7, 7, 7, 7, 7, 7, 0, 1, 2, 3, 8, 8, 8, 8, 8, 8,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
// torch.result_type(t, s) for t over kTypes (dim 1 or 0-d: the same) and s = 1, 1.5, True.
constexpr int kTensorVsScalar[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 0, 4,
                                   5, 0, 5, 6, 0, 6, 7, 0, 7, 8, 0, 8, 8, 0, 9};

TEST(CoreEdges, PromoteTypesAllPairs) {
  for (int a = 0; a < 10; ++a)
    for (int b = 0; b < 10; ++b)
      EXPECT_EQ(promote_types(kTypes[a], kTypes[b]), kTypes[kPromote[a * 10 + b]])
          << dtype_name(kTypes[a]) << " " << dtype_name(kTypes[b]);
}

TEST(CoreEdges, ResultTypeAllCategories) {
  for (int a = 0; a < 10; ++a) {
    for (int b = 0; b < 10; ++b) {
      const ScalarType ta = kTypes[a], tb = kTypes[b];
      EXPECT_EQ(result_type(ones_of(ta, false), ones_of(tb, true)), kTypes[kDimVsZeroDim[a * 10 + b]])
          << dtype_name(ta) << " " << dtype_name(tb);
      // Two 0-d tensors (or two dimensioned ones) promote as promote_types.
      EXPECT_EQ(result_type(ones_of(ta, true), ones_of(tb, true)), kTypes[kPromote[a * 10 + b]]);
      EXPECT_EQ(result_type(ones_of(ta, false), ones_of(tb, false)), kTypes[kPromote[a * 10 + b]]);
    }
    const Scalar scalars[] = {Scalar(1), Scalar(1.5), Scalar(true)};
    for (int s = 0; s < 3; ++s) {
      const ScalarType want = kTypes[kTensorVsScalar[a * 3 + s]];
      EXPECT_EQ(result_type(ones_of(kTypes[a], false), scalars[s]), want) << a << " " << s;
      EXPECT_EQ(result_type(ones_of(kTypes[a], true), scalars[s]), want) << a << " " << s;
      EXPECT_EQ(result_type(ones_of(kTypes[a], true), wrapped_scalar_tensor(scalars[s])), want);
    }
  }
}

// FNV-1a over the values, as the pasted hashes were computed from torch's conversions.
uint64_t fnv(uint64_t h, uint64_t x) { return (h ^ x) * 1099511628211ull; }

TEST(CoreEdges, HalfAndBFloat16BitsMatchTorch) {
  uint64_t hh = 1469598103934665603ull, hb = hh;
  for (uint32_t b = 0; b < 65536; ++b) {
    hb = fnv(hb, std::bit_cast<uint32_t>(static_cast<float>(BFloat16::from_bits(static_cast<uint16_t>(b)))));
    // Every pattern, signaling NaNs included (quieted, as torch does: 0x7c01 -> 0x7fc02000).
    hh = fnv(hh, std::bit_cast<uint32_t>(static_cast<float>(Half::from_bits(static_cast<uint16_t>(b)))));
  }
  EXPECT_EQ(hh, 5641051521890354051ull);
  EXPECT_EQ(hb, 17109341193764930435ull);
  // float -> 16 bits over a sweep of float32 bit patterns (NaNs checked apart).
  uint64_t fh = 1469598103934665603ull, fb = fh;
  int count = 0;
  for (uint64_t i = 0; i < 65536; ++i) {
    float f = std::bit_cast<float>(static_cast<uint32_t>((i * 65537 + 12345) & 0xffffffffu));
    if (std::isnan(f)) continue;
    ++count;
    fh = fnv(fh, Half(f).bits);
    fb = fnv(fb, BFloat16(f).bits);
  }
  EXPECT_EQ(count, 65280);
  EXPECT_EQ(fh, 12629095454999922459ull);
  EXPECT_EQ(fb, 3449128660265358890ull);
  EXPECT_EQ(Half(std::bit_cast<float>(0xffc00000u)).bits, 0xfe00);
  EXPECT_EQ(Half(std::bit_cast<float>(0x7f800001u)).bits, 0x7e00);
}

TEST(CoreEdges, FillRefusesValuesTheDtypeCannotHold) {
  // torch: "value cannot be converted to type int8_t without overflow", and so on.
  expect_error([] { zeros({2}, kInt8).fill_(300); }, "value cannot be converted to type int8_t without overflow");
  expect_error([] { full({2}, 300, kInt8); }, "value cannot be converted to type int8_t without overflow");
  expect_error([] { zeros({2}, kInt32).fill_(std::nan("")); }, "type int without overflow");
  expect_error([] { zeros({2}, kFloat32).fill_(1e40); }, "type float without overflow");
  expect_error([] { zeros({2}, kFloat16).fill_(70000); }, "type at::Half without overflow");
  expect_error([] { zeros({2}, kBFloat16).fill_(1e39); }, "type at::BFloat16 without overflow");
  expect_error([] { zeros({2}, kUInt8).fill_(-0.5); }, "type uint8_t without overflow");
  expect_error([] { zeros({2}, kUInt8).fill_(-256); }, "type uint8_t without overflow");
  expect_error([] { full({2}, std::numeric_limits<double>::infinity(), kInt64); }, "type int64_t without overflow");
  Tensor t = full({2}, 7, kInt8);
  expect_error([&] { t.fill_(-129); }, "int8_t without overflow");
  expect_values(t, {2}, {7, 7});  // left unchanged
  // What fits (or wraps, for uint8 from negative ints; anything goes into bool) is written.
  expect_values(zeros({2}, kUInt8).fill_(-1), {2}, {255, 255});
  expect_values(zeros({1}, kBool).fill_(1e40), {1}, {1});
  expect_values(zeros({1}, kFloat16).fill_(std::numeric_limits<double>::infinity()), {1},
                {std::numeric_limits<double>::infinity()});
  EXPECT_EQ(zeros({1}, kInt64).fill_(std::numeric_limits<int64_t>::min()).item().to_int(),
            std::numeric_limits<int64_t>::min());
  // Meta tensors hold no values: nothing to refuse.
  EXPECT_EQ(full({2}, 300, TensorOptions(kInt8).device(kMeta)).sizes().vec(), (std::vector<int64_t>{2}));
}

TEST(CoreEdges, StorageSizeOverflowIsRefused) {
  const int64_t big = int64_t{1} << 61;
  expect_error([&] { empty({big}, kFloat64); }, "Storage size calculation overflowed with sizes=[2305843009213693952]");
  expect_error([&] { empty({big}, TensorOptions(kFloat64).device(kMeta)); }, "Storage size calculation overflowed");
  expect_error([&] { empty({int64_t{1} << 62, 2}, TensorOptions(kInt8).device(kMeta)); },
               "Storage size calculation overflowed with sizes=[4611686018427387904, 2]");
  const int64_t t40 = int64_t{1} << 40;
  expect_error([&] { empty({t40, t40, t40, 0}, TensorOptions(kInt8).device(kMeta)); },
               "Storage size calculation overflowed");
  EXPECT_EQ(empty({0, t40, t40, t40}, TensorOptions(kInt8).device(kMeta)).numel(), 0);
  expect_error([&] { empty({t40, -1}); }, "Trying to create tensor with negative dimension -1");
  expect_error([&] { empty_strided({3}, {int64_t{1} << 62}, kInt8); },
               "Storage size calculation overflowed with sizes=[3] and strides=[4611686018427387904]");
  expect_error([&] { empty_strided({big}, {1}, kFloat64); }, "Storage size calculation overflowed");
  EXPECT_EQ(empty({int64_t{1} << 62}, TensorOptions(kInt8).device(kMeta)).numel(), int64_t{1} << 62);
}

TEST(CoreEdges, AsStridedBounds) {
  Tensor t = zeros({2});
  expect_error([&] { t.as_strided({2}, {int64_t{1} << 62}); },
               "Storage size calculation overflowed with sizes=[2] and strides=[4611686018427387904]");
  expect_error([&] { t.as_strided({2}, {1}, 1); },
               "setStorage: sizes [2], strides [1], storage offset 1, and itemsize 4 requiring a "
               "storage size of 12 are out of bounds for storage of size 8");
  expect_error([&] { zeros({2}, TensorOptions().device(kMeta)).as_strided({3}, {1}); },
               "requiring a storage size of 12 are out of bounds for storage of size 8");
  EXPECT_EQ(t.as_strided({0}, {int64_t{1} << 62}, 5).numel(), 0);  // empty: no bound to keep
  expect_values(t.as_strided({2, 2}, {0, 1}), {2, 2}, {0, 0, 0, 0});
}

TEST(CoreEdges, ViewInferMessages) {
  expect_error([] { zeros({6}).view({0, -1}); }, "shape '[0, -1]' is invalid for input of size 6");
  expect_error([] { zeros({6}).view({-1, 0}); }, "shape '[-1, 0]' is invalid for input of size 6");
  expect_error([] { zeros({0}).view({2, -1, 0}); },
               "cannot reshape tensor of 0 elements into shape [2, -1, 0] because the unspecified "
               "dimension size -1 can be any value and is ambiguous");
}

// Strides of view() on permuted tensors, pasted from torch.
TEST(CoreEdges, ViewStridesMatchTorch) {
  struct Case {
    std::vector<int64_t> base, perm, shape, sizes, strides;  // empty sizes: view refused
  };
  const std::vector<Case> cases = {
      {{2, 3, 4}, {1, 0, 2}, {-1}, {}, {}},
      {{2, 3, 4}, {1, 0, 2}, {1, 3, 2, 4, 1}, {1, 3, 2, 4, 1}, {12, 4, 12, 1, 1}},
      {{2, 1, 3}, {2, 1, 0}, {-1, 1}, {}, {}},
      {{2, 1, 3}, {2, 1, 0}, {3, -1, 1}, {3, 2, 1}, {1, 3, 3}},
      {{2, 1, 3}, {2, 1, 0}, {1, 3, 1, 2, 1}, {1, 3, 1, 2, 1}, {3, 1, 6, 3, 3}},
      {{1, 1, 6}, {0, 1, 2}, {-1, 1}, {6, 1}, {1, 1}},
      {{1, 1, 6}, {0, 1, 2}, {1, -1, 1}, {1, 6, 1}, {6, 1, 1}},
      {{1, 1, 6}, {0, 1, 2}, {1, 1, 1, 6, 1}, {1, 1, 1, 6, 1}, {6, 6, 6, 1, 1}},
      {{4, 1, 1, 3}, {3, 1, 0, 2}, {1, -1}, {}, {}},
      {{4, 1, 1, 3}, {3, 1, 0, 2}, {3, -1, 1}, {3, 4, 1}, {1, 3, 3}},
      {{4, 1, 1, 3}, {3, 1, 0, 2}, {1, 3, 1, 4, 1, 1}, {1, 3, 1, 4, 1, 1}, {3, 1, 12, 3, 3, 3}},
  };
  for (const auto& c : cases) {
    Tensor t = ember::empty(c.base).permute(c.perm);
    if (c.sizes.empty()) {
      expect_error([&] { t.view(c.shape); }, "view size is not compatible");
      continue;
    }
    Tensor v = t.view(c.shape);
    EXPECT_EQ(v.sizes().vec(), c.sizes);
    EXPECT_EQ(v.strides().vec(), c.strides);
  }
}

TEST(CoreEdges, ElementwiseManySizeOneDims) {
  // torch.zeros([1] * 30) + 1 works: size-1 dims do not count against a dim limit.
  std::vector<int64_t> shape(30, 1);
  Tensor a = zeros(shape) + 1;
  EXPECT_EQ(a.sizes().vec(), shape);
  EXPECT_EQ(a.item().to_double(), 1.0);
  shape[3] = 2;
  shape[27] = 3;
  Tensor b = testing::iota(shape);
  Tensor c = empty(shape, kFloat64);
  c.copy_(b.transpose(3, 27).contiguous().transpose(3, 27));
  expect_values(c.view({6}), {6}, {0, 1, 2, 3, 4, 5});
  // Empty with many dims: nothing to run.
  std::vector<int64_t> empty_shape(40, 2);
  empty_shape[5] = 0;
  EXPECT_EQ((zeros(empty_shape) + 1).numel(), 0);
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

// Float -> integer copies as torch's .to(): out-of-range values as on x86 (through int32 for the
// narrow types, through int64 for uint8 and int64), NaN/inf to the "indefinite" value.
TEST(CoreEdges, FloatToIntegerConversionMatchesTorch) {
  const std::vector<double> x = {-1.5, -200., 300.7, 200., 70000., 3e9, -3e9, 0, 0, -0.9, 128., 255.9, 256.};
  Tensor src = testing::from_values(x, {13}, kFloat32);
  src[7].fill_(std::nan(""));
  src[8].fill_(std::numeric_limits<double>::infinity());
  const std::vector<std::pair<ScalarType, std::vector<double>>> want = {
      {kUInt8, {255, 56, 44, 200, 112, 0, 0, 0, 0, 0, 128, 255, 0}},
      {kInt8, {-1, 56, 44, -56, 112, 0, 0, 0, 0, 0, -128, -1, 0}},
      {kInt16, {-1, -200, 300, 200, 4464, 0, 0, 0, 0, 0, 128, 255, 256}},
      {kInt32, {-1, -200, 300, 200, 70000, -2147483648., -2147483648., -2147483648., -2147483648., 0, 128, 255, 256}},
      {kInt64, {-1, -200, 300, 200, 70000, 3e9, -3e9, -9223372036854775808., -9223372036854775808., 0, 128, 255, 256}},
      {kBool, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
  };
  // Long contiguous runs (the vectorized loop): 1000 copies of src.
  Tensor big = src.unsqueeze(0).expand({1000, 13}).contiguous().view({13000});
  for (const auto& [dt, v] : want) {
    SCOPED_TRACE(dtype_name(dt));
    expect_values(src.to(dt), {13}, v, 0, 0);
    expect_values(src.to(kFloat64).to(dt), {13}, v, 0, 0);
    expect_values(big.to(dt).slice(0, 0, 13), {13}, v, 0, 0);
    expect_values(big.to(dt).slice(0, 13 * 999, 13 * 1000), {13}, v, 0, 0);
  }
}

TEST(CoreEdges, ParallelForPropagatesAndNests) {
  const int saved = get_num_threads();
  set_num_threads(4);
  EXPECT_EQ(get_num_threads(), 4);
  expect_error([] {
    parallel_for(0, 1000, 1, [](int64_t b, int64_t) {
      if (b > 0) EMBER_FAIL("boom in a worker");
    });
  }, "boom in a worker");
  // Nested parallel_for runs inline: one chunk per outer chunk.
  std::atomic<int> inner_calls{0}, outer_calls{0};
  parallel_for(0, 4, 1, [&](int64_t, int64_t) {
    ++outer_calls;
    EXPECT_TRUE(in_parallel_region());
    parallel_for(0, 1000, 1, [&](int64_t b, int64_t e) {
      EXPECT_EQ(b, 0);
      EXPECT_EQ(e, 1000);
      ++inner_calls;
    });
  });
  EXPECT_EQ(inner_calls.load(), outer_calls.load());
  EXPECT_FALSE(in_parallel_region());
  // One thread: one chunk, inline.
  set_num_threads(1);
  int calls = 0;
  parallel_for(0, 1000, 1, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 1);
  // The pool still works after an exception and a resize.
  set_num_threads(3);
  std::atomic<int64_t> sum{0};
  parallel_for(0, 3000, 1, [&](int64_t b, int64_t e) { sum += e - b; });
  EXPECT_EQ(sum.load(), 3000);
  set_num_threads(saved);
}

TEST(CoreEdges, ItemOnEveryDtype) {
  for (ScalarType t : kTypes) {
    Tensor x = full({}, 1, t);
    Scalar s = x.item();
    EXPECT_EQ(s.to_double(), 1.0) << dtype_name(t);
    EXPECT_EQ(s.is_floating(), is_floating(t)) << dtype_name(t);
    EXPECT_EQ(s.is_bool(), t == kBool) << dtype_name(t);
  }
  EXPECT_EQ(full({1, 1}, std::numeric_limits<int64_t>::max(), kInt64).item().to_int(),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(full({}, 0.1, kFloat16).item().to_double(), 0.0999755859375);
  EXPECT_EQ(full({}, 0.1, kBFloat16).item().to_double(), 0.10009765625);
  expect_error([] { zeros({2}).item(); }, "a Tensor with 2 elements cannot be converted to Scalar");
  expect_error([] { zeros({0}).item(); }, "a Tensor with 0 elements cannot be converted to Scalar");
}

TEST(CoreEdges, ToAndContiguousReturnSelf) {
  Tensor a = zeros({2, 3});
  EXPECT_TRUE(a.to(kFloat32).is_same(a));
  EXPECT_FALSE(a.to(kFloat32, /*copy=*/true).is_same(a));
  EXPECT_TRUE(a.to(kCPU).is_same(a));
  EXPECT_TRUE(a.to(a).is_same(a));
  // Odd strides on size-1 dims do not break contiguity.
  Tensor odd = empty_strided({1, 3, 1}, {100, 1, 7});
  EXPECT_TRUE(odd.is_contiguous());
  EXPECT_TRUE(odd.contiguous().is_same(odd));
  Tensor e = empty_strided({0, 3}, {1, 5});
  EXPECT_TRUE(e.is_contiguous());
  // expand of a 0-d tensor; copy_ broadcasting a 0-d source and converting dtype.
  Tensor s = full({}, 2.5);
  expect_values(s.expand({2, 2}), {2, 2}, {2.5, 2.5, 2.5, 2.5});
  EXPECT_EQ(s.expand({}).dim(), 0);
  Tensor d = zeros({2, 2}, kInt32);
  d.copy_(s);
  expect_values(d, {2, 2}, {2, 2, 2, 2});
  // Overlapping copy: source shifted by one within the same storage.
  Tensor o = testing::iota({5});
  Tensor dst = o.slice(0, 1, 5), from = o.slice(0, 0, 4);
  dst.copy_(from);
  expect_values(o, {5}, {0, 0, 1, 2, 3});
}

TEST(CoreEdges, ZeroDimSizeAndStrideMessages) {
  Tensor s = zeros({});
  expect_error([&] { s.size(0); }, "Dimension specified as 0 but tensor has no dimensions", ErrorKind::Index);
  expect_error([&] { s.size(3); }, "Dimension specified as 3 but tensor has no dimensions", ErrorKind::Index);
  expect_error([&] { s.stride(-1); }, "Dimension specified as -1 but tensor has no dimensions", ErrorKind::Index);
  expect_error([] { zeros({2}).stride(3); }, "Dimension out of range (expected to be in range of [-1, 0], but got 3)",
               ErrorKind::Index);
  EXPECT_EQ(zeros({2, 3}).size(-1), 3);
}

TEST(CoreEdges, DefaultDtypeAcceptsReducedFloats) {
  // torch.set_default_dtype(torch.float16) is allowed in 1.13; integer types are not.
  for (ScalarType t : {kFloat16, kBFloat16}) {
    set_default_dtype(t);
    EXPECT_EQ(default_dtype(), t);
    EXPECT_EQ(full({}, 1.5).dtype(), t);
    EXPECT_EQ((ones({2}, kInt32) + 1.5).dtype(), t);
  }
  set_default_dtype(kFloat32);
  expect_error([] { set_default_dtype(kInt32); }, "only floating-point types are supported as the default type",
               ErrorKind::Type);
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

TEST(CoreEdges, CopyBroadcastErrorsAsTorch) {
  Tensor dst = zeros({2});
  testing::expect_error([&] { dst.copy_(zeros({3, 2})); },
                        "output with shape [2] doesn't match the broadcast shape [3, 2]");
  testing::expect_error([&] { dst.copy_(zeros({3})); },
                        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0");
}

TEST(CoreEdges, SetNumThreadsInsideParallelRegionIsRefused) {
  int prev = get_num_threads();
  set_num_threads(2);
  std::atomic<int> refused{0};
  parallel_for(0, 1 << 20, 1 << 10, [&](int64_t, int64_t) {
    try {
      set_num_threads(1);
    } catch (const Error&) {
      refused.fetch_add(1);
    }
  });
  EXPECT_GE(refused.load(), 1);
  set_num_threads(prev);
}

}  // namespace
}  // namespace ember
