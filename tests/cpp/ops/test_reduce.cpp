// sum, mean, prod, max / min, amax / amin, argmax / argmin, all / any: values against the scalar
// references of src/backends/cpu/reduce_kernels_ref.cpp and against values printed by
// PyTorch 1.13, on every layout and dtype; PyTorch's dtype rules, edge cases and error texts.
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/cpu/reduce_kernels.h"
#include "ember/dispatch.h"
#include "ops/reduce_testing.h"

namespace ember {
namespace {

using cpu::reduce_ref;
using cpu::RefReduction;
using testing::expect_error;
using testing::expect_matches;
using testing::expect_values;
using testing::iota;
using testing::vals;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

struct Case {
  DimVector sizes;
  DimVector dims;  // as passed to the op; empty = all
};
const std::vector<Case>& cases() {
  static const std::vector<Case> c{
      {{}, {}},         {{}, {0}},         {{}, {-1}},        {{5}, {0}},         {{3, 4}, {0}},
      {{3, 4}, {1}},    {{3, 4}, {}},      {{3, 4}, {-1, 0}}, {{2, 3, 4}, {0, 2}}, {{2, 3, 4}, {1}},
      {{2, 3, 4}, {}},  {{4, 1, 3}, {1}},  {{4, 1, 3}, {0, 1}}, {{0, 3}, {0}},    {{0, 3}, {1}},
      {{33, 70}, {0}},  {{33, 70}, {1}},   {{33, 70}, {}},    {{3, 5, 40}, {0, 1}}};
  return c;
}

// Every case, layout, dtype and keepdim of a dims-list reduction against its reference.
template <class Op, class Check>
void sweep(const std::vector<ScalarType>& dtypes, Op op, Check check, bool skip_empty = false) {
  uint32_t seed = 1;
  for (const Case& c : cases()) {
    for (ScalarType dt : dtypes) {
      for (const auto& [name, x] : testing::layouts(c.sizes, dt, seed++)) {
        if (skip_empty && x.numel() == 0) continue;
        for (bool keepdim : {false, true}) {
          Tensor out = op(x, c.dims, keepdim);
          std::string what = testing::describe(name, dt, c.sizes, c.dims, keepdim);
          EXPECT_EQ(out.sizes().vec(), testing::expected_shape(c.sizes, c.dims, keepdim)) << what;
          check(out, x, testing::ref_dims(c.dims, x.dim()), what);
        }
      }
    }
  }
}

// ---- sum / mean / prod ----

TEST(Reduce, SumMatchesReferenceOnEveryLayoutAndDtype) {
  sweep(testing::all_dtypes(), [](const Tensor& x, IntArrayRef dims, bool keepdim) {
    return x.sum(dims, keepdim);
  }, [](const Tensor& out, const Tensor& x, IntArrayRef dims, const std::string& what) {
    ScalarType want = is_floating(x.dtype()) ? x.dtype() : kInt64;
    EXPECT_EQ(out.dtype(), want) << what;
    expect_matches(out, reduce_ref(x, dims, RefReduction::Sum), testing::tolerance(want),
                   x.dtype() == kBFloat16 ? 0.5 : testing::tolerance(want) * 10, what);
  });
}

TEST(Reduce, MeanMatchesReferenceOnFloatDtypes) {
  sweep(testing::float_dtypes(), [](const Tensor& x, IntArrayRef dims, bool keepdim) {
    return x.mean(dims, keepdim);
  }, [](const Tensor& out, const Tensor& x, IntArrayRef dims, const std::string& what) {
    EXPECT_EQ(out.dtype(), x.dtype()) << what;
    Tensor ref = reduce_ref(x, dims, RefReduction::Sum);
    int64_t n = 1;
    for (int64_t d : dims) n *= x.size(d);
    std::vector<double> v = testing::values(ref);
    for (double& e : v) e = n == 0 ? kNaN : e / static_cast<double>(n);
    SCOPED_TRACE(what);
    expect_values(out.reshape(ref.sizes()), ref.sizes(), v, testing::tolerance(x.dtype()) * 2,
                  testing::tolerance(x.dtype()) * 4);
  });
}

TEST(Reduce, ProdMatchesReference) {
  // Small magnitudes keep the products inside every dtype's range.
  for (ScalarType dt : {kFloat32, kFloat64, kInt8, kUInt8, kInt16, kInt32, kInt64, kBool, kFloat16, kBFloat16}) {
    for (const auto& [name, x] : testing::layouts({3, 4}, dt, 7)) {
      const Tensor& y = x;  // |x| <= 4: 12-element products stay in every dtype's range
      for (int64_t dim : {0, 1, -1}) {
        Tensor out = y.prod(dim);
        EXPECT_EQ(out.dtype(), is_floating(dt) ? dt : kInt64);
        int64_t w = dim < 0 ? dim + 2 : dim;
        expect_matches(out, reduce_ref(y, {w}, RefReduction::Prod), testing::tolerance(dt) * 4,
                       1e-6, testing::describe(name, dt, {3, 4}, {dim}, false));
      }
      expect_matches(y.prod(), reduce_ref(y, {0, 1}, RefReduction::Prod), testing::tolerance(dt) * 8,
                     1e-6, name);
    }
  }
}

TEST(Reduce, SumAndProdDtypeRules) {
  Tensor i = iota({2, 3}, kInt32);
  EXPECT_EQ(i.sum().dtype(), kInt64);
  EXPECT_EQ(vals({1, 0, 1}, kBool).sum().item<int64_t>(), 2);
  EXPECT_EQ(vals({1, 2}, kInt8).prod().dtype(), kInt64);
  EXPECT_EQ(vals({1, 0}, kBool).prod().dtype(), kInt64);
  // dtype= converts the input first: [1.5, 1.5] -> [1, 1].
  Tensor f = vals({1.5, 1.5});
  EXPECT_EQ(f.sum(kInt32).dtype(), kInt32);
  EXPECT_EQ(f.sum(kInt32).item<int64_t>(), 2);
  EXPECT_EQ(f.prod(kInt32).item<int64_t>(), 1);
  // Integer sums wrap in the requested dtype: [100, 100] as int8 is -56.
  EXPECT_EQ(vals({100, 100}, kInt8).sum(kInt8).item<int64_t>(), -56);
  EXPECT_EQ(vals({100, 100}, kUInt8).sum().item<int64_t>(), 200);
  Tensor h = i.sum(std::vector<int64_t>{1}, false, kFloat16);
  EXPECT_EQ(h.dtype(), kFloat16);
  expect_values(h, {2}, {3, 12});
  // sum(dtype=bool) of floats is "any non-zero" per output.
  EXPECT_FALSE(zeros({2, 3}).sum(kBool).item<bool>());
  EXPECT_TRUE(vals({0.0, 0.5}).sum(kBool).item<bool>());
  expect_values(i.mean(std::vector<int64_t>{0}, false, kFloat64), {3}, {1.5, 2.5, 3.5});
  EXPECT_EQ(i.mean(kFloat64).dtype(), kFloat64);
}

TEST(Reduce, SumDimListsFollowPyTorch) {
  Tensor x = iota({2, 3});
  // Both dim=None and dim=[] reduce every dim in 1.13.
  expect_values(sum(x, std::optional<std::vector<int64_t>>()), {}, {15});
  expect_values(sum(x, std::vector<int64_t>{}), {}, {15});
  expect_values(sum(x, std::vector<int64_t>{}, true), {1, 1}, {15});
  expect_values(x.mean(IntArrayRef{}), {}, {2.5});
  expect_values(x.sum({-1}), {2}, {3, 12});
  expect_values(x.sum({0}, true), {1, 3}, {3, 5, 7});
  expect_error([&] { x.sum({0, 0}); }, "dim 0 appears multiple times in the list of dims");
  expect_error([&] { x.sum({0, -2}); }, "dim 0 appears multiple times in the list of dims");
  expect_error([&] { x.sum({2}); }, "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
               ErrorKind::Index);
  expect_error([&] { x.prod(3); }, "Dimension out of range (expected to be in range of [-2, 1], but got 3)",
               ErrorKind::Index);
  // 0-d inputs take dim 0 and -1.
  Tensor s = scalar_tensor(5.0);
  expect_values(s.sum({0}), {}, {5});
  expect_values(s.sum({-1}, true), {}, {5});
  expect_values(s.prod(0), {}, {5});
  expect_error([&] { s.sum({0, -1}); }, "dim 0 appears multiple times in the list of dims");
  expect_error([&] { s.sum({1}); }, "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
               ErrorKind::Index);
}

TEST(Reduce, EmptyInputs) {
  expect_values(empty({0}).sum(), {}, {0});
  expect_values(empty({0}).prod(), {}, {1});
  expect_values(empty({0}).mean(), {}, {kNaN});
  expect_values(zeros({3, 0}).sum({1}), {3}, {0, 0, 0});
  expect_values(zeros({3, 0}).prod(1), {3}, {1, 1, 1});
  expect_values(zeros({3, 0}, kInt32).prod(1), {3}, {1, 1, 1});
  expect_values(zeros({3, 0}).mean({1}), {3}, {kNaN, kNaN, kNaN});
  expect_values(zeros({3, 0}).sum({0}), {0}, {});
  expect_values(zeros({3, 0}).all(1), {3}, {1, 1, 1});
  expect_values(zeros({3, 0}).any(1), {3}, {0, 0, 0});
  EXPECT_TRUE(empty({0}).all().item<bool>());
  EXPECT_FALSE(empty({0}).any().item<bool>());
}

TEST(Reduce, MeanRejectsIntegers) {
  expect_error([] { iota({6}, kInt64).mean(); },
               "mean(): could not infer output dtype. Input dtype must be either a floating point or "
               "complex dtype. Got: Long");
  expect_error([] { zeros({2}, kBool).mean(); },
               "mean(): could not infer output dtype. Input dtype must be either a floating point or "
               "complex dtype. Got: Bool");
  expect_error([] { zeros({2, 3}).mean(kInt64); },
               "mean(): could not infer output dtype. Optional dtype must be either a floating point "
               "or complex dtype. Got: Long");
  expect_error([] { zeros({2, 3}).mean({0}, false, kInt64); },
               "mean(): could not infer output dtype. Optional dtype must be either a floating point "
               "or complex dtype. Got: Long");
  // Half: PyTorch rounds the sum to half, then divides.
  Tensor h = vals({1.0, 2.0}, kFloat16);
  EXPECT_EQ(h.mean().dtype(), kFloat16);
  expect_values(h.mean(), {}, {1.5});
  expect_values(vals({1.0, 2.0}, kBFloat16).mean(), {}, {1.5});
}

// ---- max / min / amax / amin / argmax / argmin ----

TEST(Reduce, AmaxAminMatchReference) {
  sweep(testing::all_dtypes(), [](const Tensor& x, IntArrayRef dims, bool keepdim) {
    return x.amax(dims, keepdim);
  }, [](const Tensor& out, const Tensor& x, IntArrayRef dims, const std::string& what) {
    EXPECT_EQ(out.dtype(), x.dtype()) << what;
    expect_matches(out, reduce_ref(x, dims, RefReduction::Max), 0, 0, what);
  }, /*skip_empty=*/true);
  sweep(testing::all_dtypes(), [](const Tensor& x, IntArrayRef dims, bool keepdim) {
    return x.amin(dims, keepdim);
  }, [](const Tensor& out, const Tensor& x, IntArrayRef dims, const std::string& what) {
    expect_matches(out, reduce_ref(x, dims, RefReduction::Min), 0, 0, what);
  }, /*skip_empty=*/true);
}

TEST(Reduce, MaxDimMatchesReferenceWithFirstIndexOnTies) {
  // uint8 and bool inputs are full of ties.
  uint32_t seed = 100;
  for (ScalarType dt : testing::all_dtypes()) {
    for (const DimVector& sizes : {DimVector{5}, DimVector{3, 4}, DimVector{2, 3, 4}, DimVector{33, 70}}) {
      for (const auto& [name, x] : testing::layouts(sizes, dt, seed++)) {
        for (int64_t dim = -1; dim < static_cast<int64_t>(sizes.size()); ++dim) {
          int64_t w = dim < 0 ? dim + x.dim() : dim;
          std::string what = testing::describe(name, dt, sizes, {dim}, false);
          auto [mv, mi] = x.max(dim);
          auto [nv, ni] = x.min(dim, /*keepdim=*/true);
          EXPECT_EQ(mi.dtype(), kInt64);
          EXPECT_EQ(nv.sizes().vec(), testing::expected_shape(sizes, {dim}, true)) << what;
          expect_matches(mv, reduce_ref(x, {w}, RefReduction::Max), 0, 0, what);
          expect_matches(mi, reduce_ref(x, {w}, RefReduction::ArgMax), 0, 0, what);
          expect_matches(nv, reduce_ref(x, {w}, RefReduction::Min), 0, 0, what);
          expect_matches(ni, reduce_ref(x, {w}, RefReduction::ArgMin), 0, 0, what);
          expect_matches(x.argmax(dim), reduce_ref(x, {w}, RefReduction::ArgMax), 0, 0, what);
          expect_matches(x.argmin(dim), reduce_ref(x, {w}, RefReduction::ArgMin), 0, 0, what);
        }
      }
    }
  }
}

TEST(Reduce, MaxMinPropagateNaNWithFirstIndex) {
  Tensor x = vals({1.0, kNaN, 3.0, kNaN});
  expect_values(x.max(), {}, {kNaN});
  expect_values(x.min(), {}, {kNaN});
  expect_values(x.amax(), {}, {kNaN});
  auto [v, i] = x.max(0);
  expect_values(v, {}, {kNaN});
  EXPECT_EQ(i.item<int64_t>(), 1);
  EXPECT_EQ(std::get<1>(x.min(0)).item<int64_t>(), 1);
  EXPECT_EQ(x.argmax().item<int64_t>(), 1);
  EXPECT_EQ(x.argmin().item<int64_t>(), 1);
  EXPECT_EQ(vals({kInf, kNaN, -kInf}).argmax().item<int64_t>(), 1);
  // Ties: the first index (PyTorch 1.13 CPU), in long inputs too (many lanes and chunks).
  EXPECT_EQ(std::get<1>(vals({3.0, 1.0, 3.0, 1.0}).max(0)).item<int64_t>(), 0);
  EXPECT_EQ(std::get<1>(vals({3.0, 1.0, 3.0, 1.0}).min(0)).item<int64_t>(), 1);
  Tensor big = zeros({300001});
  big.slice(0, 70000, 70001).fill_(2.0);
  big.slice(0, 200000, 200001).fill_(2.0);
  big.slice(0, 150000, 150001).fill_(-1.0);
  big.slice(0, 250000, 250001).fill_(-1.0);
  EXPECT_EQ(big.argmax().item<int64_t>(), 70000);
  EXPECT_EQ(big.argmin().item<int64_t>(), 150000);
  EXPECT_EQ(std::get<1>(big.max(0)).item<int64_t>(), 70000);
  big.slice(0, 280000, 280001).fill_(kNaN);
  big.slice(0, 290000, 290001).fill_(kNaN);
  EXPECT_EQ(big.argmin().item<int64_t>(), 280000);
  expect_values(big.amax(), {}, {kNaN});
  // Bools order false < true.
  EXPECT_TRUE(vals({1, 0}, kBool).max().item<bool>());
  EXPECT_EQ(std::get<1>(vals({0, 1, 1}, kBool).max(0)).item<int64_t>(), 1);
}

TEST(Reduce, ArgmaxWithoutDimIndexesTheFlattenedInput) {
  Tensor m = vals({1.0, 5.0, 5.0, 1.0}, kFloat32, {2, 2});
  EXPECT_EQ(m.argmax().item<int64_t>(), 1);
  EXPECT_EQ(m.t().argmax().item<int64_t>(), 1);  // row-major order of the transposed view
  EXPECT_EQ(m.t().argmin().item<int64_t>(), 0);
  Tensor k = m.argmax(std::nullopt, /*keepdim=*/true);
  expect_values(k, {1, 1}, {1});
  auto [v, i] = m.max(1, /*keepdim=*/true);
  expect_values(v, {2, 1}, {5, 5});
  expect_values(i, {2, 1}, {1, 0});
  Tensor s = scalar_tensor(3.0);
  expect_values(s.argmax(std::nullopt, true), {}, {0});
  expect_values(s.argmax(0), {}, {0});
  auto [sv, si] = s.max(0, true);
  expect_values(sv, {}, {3});
  expect_values(si, {}, {0});
  expect_values(s.amax({0}, true), {}, {3});
}

TEST(Reduce, ExtremaOfEmptyInputsFail) {
  const char* full = "(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                     "reduction dim with the 'dim' argument.";
  expect_error([] { empty({0}).max(); }, std::string("max") + full);
  expect_error([] { empty({0}).min(); }, std::string("min") + full);
  expect_error([] { empty({0, 3}).amax(); }, std::string("amax") + full);
  expect_error([] { empty({0, 3}).amax({0}); }, "amax(): Expected reduction dim 0 to have non-zero size.",
               ErrorKind::Index);
  expect_error([] { empty({0, 3}).amin({0, 1}); }, "amin(): Expected reduction dim 0 to have non-zero size.",
               ErrorKind::Index);
  expect_values(empty({0, 3}).amax({1}), {0}, {});
  expect_error([] { empty({0, 3}).max(0); }, "max(): Expected reduction dim 0 to have non-zero size.",
               ErrorKind::Index);
  expect_error([] { zeros({3, 0}).min(1); }, "min(): Expected reduction dim 1 to have non-zero size.",
               ErrorKind::Index);
  auto [v, i] = empty({0, 3}).max(1);
  EXPECT_EQ(v.sizes().vec(), DimVector{0});
  EXPECT_EQ(i.dtype(), kInt64);
  expect_error([] { empty({0, 3}).argmax(); },
               "argmax(): Expected reduction dim to be specified for input.numel() == 0.", ErrorKind::Index);
  expect_error([] { zeros({3, 0}).argmin(); },
               "argmin(): Expected reduction dim to be specified for input.numel() == 0.", ErrorKind::Index);
  expect_error([] { empty({0, 3}).argmax(0); }, "argmax(): Expected reduction dim 0 to have non-zero size.",
               ErrorKind::Index);
  EXPECT_EQ(empty({0, 3}).argmax(1).sizes().vec(), DimVector{0});
}

// ---- all / any ----

TEST(Reduce, AllAnyMatchReference) {
  uint32_t seed = 200;
  for (ScalarType dt : testing::all_dtypes()) {
    for (const DimVector& sizes : {DimVector{}, DimVector{5}, DimVector{3, 4}, DimVector{2, 3, 4}, DimVector{0, 3}}) {
      for (const auto& [name, x] : testing::layouts(sizes, dt, seed++)) {
        const ScalarType want = dt == kUInt8 ? kUInt8 : kBool;
        std::string what = testing::describe(name, dt, sizes, {}, false);
        EXPECT_EQ(x.all().dtype(), want) << what;
        expect_matches(x.all(), reduce_ref(x, testing::ref_dims({}, x.dim()), RefReduction::All), 0, 0, what);
        expect_matches(x.any(), reduce_ref(x, testing::ref_dims({}, x.dim()), RefReduction::Any), 0, 0, what);
        for (int64_t dim = -1; dim < std::max<int64_t>(x.dim(), 1); ++dim) {
          DimVector w = testing::ref_dims({dim}, x.dim());
          Tensor a = x.all(dim, /*keepdim=*/true);
          EXPECT_EQ(a.dtype(), want) << what;
          EXPECT_EQ(a.sizes().vec(), testing::expected_shape(sizes, {dim}, true)) << what;
          expect_matches(a, reduce_ref(x, w, RefReduction::All), 0, 0, what);
          expect_matches(x.any(dim), reduce_ref(x, w, RefReduction::Any), 0, 0, what);
        }
      }
    }
  }
}

TEST(Reduce, AllAnyDtypesAndTruthiness) {
  Tensor u = vals({2, 3}, kUInt8);
  EXPECT_EQ(u.any().dtype(), kUInt8);
  EXPECT_EQ(u.any().item<int64_t>(), 1);  // normalized to 0 / 1
  EXPECT_EQ(vals({2, 0}, kUInt8).all(0).item<int64_t>(), 0);
  EXPECT_EQ(vals({2, 0}, kInt8).any(0, true).dtype(), kBool);
  EXPECT_EQ(vals({2, 0}, kInt8).any(0, true).sizes().vec(), DimVector{1});
  EXPECT_TRUE(vals({kNaN}).all().item<bool>());  // NaN is non-zero
  EXPECT_FALSE(vals({0.5, 0.0}, kFloat32, {1, 2}).all(1).item<bool>());
  EXPECT_FALSE(scalar_tensor(0.0).any(0, true).item<bool>());
}

// ---- accuracy and determinism ----

TEST(Reduce, Float32SumsAreAccurate) {
  // A sequential float sum of 1e6 x 0.1f drifts by ~1%; pairwise summation stays within 1e-6.
  Tensor x = full({1000000}, 0.1, kFloat32);
  const double exact = 1e6 * static_cast<double>(0.1f);
  EXPECT_NEAR(x.sum().item<double>(), exact, exact * 3e-7);
  EXPECT_NEAR(x.mean().item<double>(), static_cast<double>(0.1f), 1e-6);
  // Down the columns (the vertical shape) and along rows, including a strided view.
  Tensor m = full({500000, 2}, 0.1, kFloat32);
  expect_values(m.sum({0}), {2}, {exact / 2, exact / 2}, 3e-7, 0);
  Tensor r = full({4, 250000}, 0.1, kFloat32);
  expect_values(r.sum({1}), {4}, std::vector<double>(4, exact / 4), 3e-7, 0);
  expect_values(r.t().sum({0}), {4}, std::vector<double>(4, exact / 4), 3e-7, 0);
  Tensor rnd = testing::random_tensor({1 << 20}, kFloat32, 3);
  double ref = cpu::reduce_ref(rnd, {0}, RefReduction::Sum).item<double>();
  double scale = 4.0 * 1024;  // ~ sqrt(n) * max|x|: the size of the sum's partial sums
  EXPECT_NEAR(rnd.sum().item<double>(), ref, scale * 1e-6);
}

TEST(Reduce, ResultsDoNotDependOnThreadCount) {
  const int saved = get_num_threads();
  Tensor x = testing::random_tensor({1 << 20}, kFloat32, 11);
  Tensor m = testing::random_tensor({3000, 300}, kFloat32, 12);
  auto run = [&] {
    std::vector<Tensor> r{x.sum(),          m.sum({0}),       m.sum({1}),     m.t().sum({0}),
                          x.mean(),         m.var({{0}}),     x.std(),        x.norm(),
                          m.norm(3, {{1}}), x.view({8, -1}).sum({1}), x.argmax(), x.cumsum(0)};
    return r;
  };
  set_num_threads(1);
  auto one = run();
  set_num_threads(2);
  auto two = run();
  set_num_threads(saved);
  for (size_t i = 0; i < one.size(); ++i) {
    ASSERT_EQ(one[i].nbytes(), two[i].nbytes());
    EXPECT_EQ(std::memcmp(one[i].contiguous().data_ptr(), two[i].contiguous().data_ptr(), one[i].nbytes()), 0)
        << "result " << i;
  }
}

// ---- meta and boxed calls ----

TEST(Reduce, MetaTensorsGetShapesAndDtypes) {
  DeviceGuard g(kMeta);
  Tensor x = empty({2, 3, 4});
  EXPECT_TRUE(x.sum().is_meta());
  EXPECT_EQ(x.sum({0, 2}, true).sizes().vec(), (DimVector{1, 3, 1}));
  EXPECT_EQ(empty({2, 3}, kInt32).sum({1}).dtype(), kInt64);
  EXPECT_EQ(x.mean({-1}).sizes().vec(), (DimVector{2, 3}));
  EXPECT_EQ(x.prod(1, true).sizes().vec(), (DimVector{2, 1, 4}));
  EXPECT_EQ(x.amax({1, 2}).sizes().vec(), DimVector{2});
  auto [v, i] = x.max(1);
  EXPECT_TRUE(v.is_meta());
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(i.sizes().vec(), (DimVector{2, 4}));
  EXPECT_EQ(x.argmax().dim(), 0);
  EXPECT_EQ(x.argmin(std::nullopt, true).sizes().vec(), (DimVector{1, 1, 1}));
  EXPECT_EQ(empty({2}, kUInt8).all().dtype(), kUInt8);
  EXPECT_EQ(x.any(0).sizes().vec(), (DimVector{3, 4}));
  EXPECT_EQ(x.max().dim(), 0);
  expect_error([] { empty({0}).max(); }, "max(): Expected reduction dim to be specified");
  expect_error([&] { x.sum({0, 0}); }, "dim 0 appears multiple times in the list of dims");
}

TEST(Reduce, BoxedCallsFillSchemaDefaults) {
  Tensor x = iota({2, 3});
  Stack out = find_op("aten::sum", "dim_IntList").call({Value(x), Value(std::vector<int64_t>{1})});
  expect_values(out[0].to_tensor(), {2}, {3, 12});
  out = find_op("aten::sum", "dim_IntList").call({Value(x), Value()});
  expect_values(out[0].to_tensor(), {}, {15});
  out = find_op("aten::max", "dim").call({Value(x), Value(int64_t{0})});
  ASSERT_EQ(out.size(), 2u);
  expect_values(out[1].to_tensor(), {3}, {1, 1, 1});
  out = find_op("aten::amax", "default").call({Value(x)});
  expect_values(out[0].to_tensor(), {}, {5});
  out = find_op("aten::argmax", "default").call({Value(x)});
  expect_values(out[0].to_tensor(), {}, {5});
}

}  // namespace
}  // namespace ember
