// mm / bmm / addmm / matmul / linear against float64 references (gemm_ref and a numpy-style
// loop), for every dtype, empty shapes, transposed / sliced / expanded operands, errors, meta.
#include <algorithm>
#include <functional>
#include <random>

#include "backends/cpu/gemm.h"
#include "backends/cpu/matmul_kernels.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::values;

const ScalarType kProductTypes[] = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8,
                                    kUInt8,   kInt16,   kInt32,   kInt64};

// Values every dtype holds exactly (quarters in [-2, 2] for floats, small ints otherwise), so
// products of short sums are exact in float32 and references compare tightly.
Tensor make(IntArrayRef sizes, ScalarType dtype, uint32_t seed) {
  Tensor d = empty(sizes, kFloat64);
  std::mt19937 rng(seed);
  double* p = d.data_ptr<double>();
  for (int64_t i = 0; i < d.numel(); ++i) {
    if (is_floating(dtype)) {
      p[i] = (static_cast<int>(rng() % 17) - 8) * 0.25;
    } else if (dtype == kUInt8) {
      p[i] = rng() % 4;
    } else {
      p[i] = static_cast<int>(rng() % 7) - 3;
    }
  }
  return d.to(dtype);
}

// Uniform doubles in [-scale, scale] (for products that are not exact in float32).
Tensor make_real(IntArrayRef sizes, double scale, uint32_t seed) {
  Tensor d = empty(sizes, kFloat64);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-scale, scale);
  double* p = d.data_ptr<double>();
  for (int64_t i = 0; i < d.numel(); ++i) p[i] = dist(rng);
  return d;
}

// Tolerance of a dtype's single rounding of the result.
double rtol_of(ScalarType t) {
  return t == kFloat16 ? 1e-3 : t == kBFloat16 ? 8e-3 : t == kFloat32 ? 1e-5 : 1e-12;
}

// beta * bias + alpha * a @ b in float64 via gemm_ref (bias: values already m x n, or empty).
std::vector<double> ref_mm(const Tensor& a, const Tensor& b, std::vector<double> bias = {},
                           double beta = 0, double alpha = 1) {
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  std::vector<double> av = values(a), bv = values(b);
  std::vector<double> c = bias.empty() ? std::vector<double>(m * n, 0.0) : bias;
  cpu::gemm_ref<double>(false, false, m, n, k, alpha, av.data(), std::max<int64_t>(k, 1),
                        bv.data(), std::max<int64_t>(n, 1), beta, c.data(),
                        std::max<int64_t>(n, 1));
  return c;
}

// torch.matmul's semantics written out on float64 vectors: 1-D operands gain a dim that is
// dropped afterwards, batch dims broadcast.
std::vector<double> ref_matmul(const Tensor& a, const Tensor& b, DimVector* out_shape) {
  DimVector as = a.sizes().vec(), bs = b.sizes().vec();
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  const int64_t n = as[as.size() - 2], k = as.back(), p = bs.back();
  DimVector ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  const size_t nb = std::max(ab.size(), bb.size());
  ab.insert(ab.begin(), nb - ab.size(), 1);
  bb.insert(bb.begin(), nb - bb.size(), 1);
  DimVector batch(nb);
  for (size_t i = 0; i < nb; ++i) batch[i] = ab[i] == 1 ? bb[i] : ab[i];  // size 0 broadcasts too
  const std::vector<double> av = values(a), bv = values(b);
  int64_t nbatch = 1;
  for (int64_t s : batch) nbatch *= s;
  std::vector<double> out(nbatch * n * p, 0.0);
  for (int64_t bi = 0; bi < nbatch; ++bi) {
    int64_t rem = bi, ao = 0, bo = 0, astr = 1, bstr = 1;
    for (int64_t d = static_cast<int64_t>(nb) - 1; d >= 0; --d) {
      const int64_t idx = rem % batch[d];
      rem /= batch[d];
      ao += (ab[d] == 1 ? 0 : idx) * astr;
      bo += (bb[d] == 1 ? 0 : idx) * bstr;
      astr *= ab[d];
      bstr *= bb[d];
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < p; ++j)
        for (int64_t q = 0; q < k; ++q)
          out[(bi * n + i) * p + j] += av[(ao * n + i) * k + q] * bv[(bo * k + q) * p + j];
  }
  out_shape->assign(batch.begin(), batch.end());
  if (!a_vec) out_shape->push_back(n);
  if (!b_vec) out_shape->push_back(p);
  return out;
}

void expect_matmul(const Tensor& a, const Tensor& b, double rtol = 1e-6) {
  SCOPED_TRACE(::testing::Message() << "matmul " << a.sizes() << " @ " << b.sizes());
  DimVector shape;
  std::vector<double> want = ref_matmul(a, b, &shape);
  Tensor got = matmul(a, b);
  EXPECT_EQ(got.dtype(), a.dtype());
  expect_values(got, shape, want, rtol, rtol);
}

TEST(Matmul, MmEveryDtype) {
  for (ScalarType dt : kProductTypes) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor a = make({5, 7}, dt, 1), b = make({7, 3}, dt, 2);
    Tensor c = mm(a, b);
    EXPECT_EQ(c.dtype(), dt);
    EXPECT_TRUE(c.is_contiguous());
    expect_values(c, {5, 3}, ref_mm(a, b), rtol_of(dt), 0);
    expect_values(a.mm(b), {5, 3}, ref_mm(a, b), rtol_of(dt), 0);
  }
}

// Operand layouts: contiguous, transposed, rows of a wider buffer (BLAS leading dimension),
// every other column (no BLAS form: copied), expanded (stride 0), a single row or column.
std::vector<Tensor> layouts(int64_t r, int64_t c, ScalarType dt, uint32_t seed) {
  std::vector<Tensor> out;
  out.push_back(make({r, c}, dt, seed));
  out.push_back(make({c, r}, dt, seed + 1).t());
  out.push_back(make({r, c + 5}, dt, seed + 2).narrow(1, 2, c));
  out.push_back(make({r, 2 * c}, dt, seed + 3).slice(1, 0, std::nullopt, 2));
  out.push_back(make({c, r + 4}, dt, seed + 4).narrow(1, 1, r).t());  // column-major, ld r + 4
  out.push_back(make({c + 3, 2 * r}, dt, seed + 7).t().slice(0, 0, std::nullopt, 2).narrow(1, 1, c));
  out.push_back(make({1, c}, dt, seed + 5).expand({r, c}));
  out.push_back(make({r, 1}, dt, seed + 6).expand({r, c}));
  return out;
}

TEST(Matmul, MmStridedOperands) {
  for (ScalarType dt : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32}) {
    SCOPED_TRACE(dtype_name(dt));
    auto as = layouts(4, 6, dt, 10), bs = layouts(6, 3, dt, 20);
    for (size_t i = 0; i < as.size(); ++i) {
      for (size_t j = 0; j < bs.size(); ++j) {
        SCOPED_TRACE(::testing::Message() << "layout " << i << " x " << j);
        ASSERT_EQ(as[i].sizes().vec(), (DimVector{4, 6}));
        ASSERT_EQ(bs[j].sizes().vec(), (DimVector{6, 3}));
        expect_values(mm(as[i], bs[j]), {4, 3}, ref_mm(as[i], bs[j]), rtol_of(dt), 0);
      }
    }
  }
  // Custom strides through from_blob: a 3 x 2 matrix with rows 5 apart and columns 2 apart.
  std::vector<float> buf(20);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<float>(i);
  Tensor a = from_blob(buf.data(), {3, 2}, {5, 2}, kFloat32);
  Tensor b = make({2, 4}, kFloat32, 3);
  expect_values(mm(a, b), {3, 4}, ref_mm(a, b));
  // Single rows / columns whose size-1 dims carry odd strides.
  Tensor row = make({1, 9}, kFloat32, 4).narrow(1, 1, 6);
  Tensor col = make({6, 5}, kFloat32, 5).narrow(1, 2, 1);
  expect_values(mm(row, col), {1, 1}, ref_mm(row, col));
  expect_values(mm(col, row), {6, 6}, ref_mm(col, row));
}

TEST(Matmul, MmLargeAgainstFloat64) {
  Tensor a = make_real({130, 257}, 0.4, 7), b = make_real({257, 99}, 1.3, 8);
  expect_values(mm(a.to(kFloat32), b.to(kFloat32)), {130, 99}, ref_mm(a, b), 1e-4, 1e-4);
  expect_values(mm(a, b), {130, 99}, ref_mm(a, b), 1e-12, 1e-12);
  expect_values(mm(b.t(), a.t()), {99, 130}, values(mm(a, b).t()), 1e-12, 1e-12);
}

TEST(Matmul, MmEmpty) {
  for (ScalarType dt : kProductTypes) {
    SCOPED_TRACE(dtype_name(dt));
    expect_values(mm(make({0, 3}, dt, 1), make({3, 4}, dt, 2)), {0, 4}, {});
    expect_values(mm(make({2, 3}, dt, 1), make({3, 0}, dt, 2)), {2, 0}, {});
    expect_values(mm(make({2, 0}, dt, 1), make({0, 4}, dt, 2)), {2, 4}, std::vector<double>(8, 0));
  }
  expect_values(addmm(full({2, 2}, 3.0), empty({2, 0}), empty({0, 2}), 2, 5), {2, 2}, {6, 6, 6, 6});
}

TEST(Matmul, IntegerProductsWrapAround) {
  // As PyTorch: 3 * 100 * 100 = 30000 wraps to 48 in int8, 3 * 200 * 100 to 96 in uint8.
  expect_values(mm(full({2, 3}, 100, kInt8), full({3, 2}, 100, kInt8)), {2, 2}, {48, 48, 48, 48});
  expect_values(mm(full({2, 3}, 200, kUInt8), full({3, 2}, 100, kUInt8)), {2, 2}, {96, 96, 96, 96});
  const int64_t big = int64_t{1} << 62;
  Tensor w = mm(full({1, 2}, big, kInt64), full({2, 1}, 2, kInt64));  // 2^64 wraps to 0
  expect_values(w, {1, 1}, {0});
  // The strided reference used by the kernel, directly: a transposed a, column-strided b.
  const int32_t a[] = {1, 2, 3, 4, 5, 6};  // stored 3 x 2, used as its 2 x 3 transpose
  const int32_t b[] = {1, 0, 2, 0, 3, 0};  // a 3 x 1 column with stride 2
  int32_t c[2] = {10, 20};
  cpu::gemm_int<int32_t>(2, 1, 3, 2, a, 1, 2, b, 2, 1, 3, c, 1);
  EXPECT_EQ(c[0], 2 * (1 * 1 + 3 * 2 + 5 * 3) + 30);
  EXPECT_EQ(c[1], 2 * (2 * 1 + 4 * 2 + 6 * 3) + 60);
}

TEST(Matmul, BlasLayout) {
  auto lay = cpu::blas_layout(3, 4, 4, 1);
  ASSERT_TRUE(lay);
  EXPECT_FALSE(lay->trans);
  EXPECT_EQ(lay->ld, 4);
  lay = cpu::blas_layout(3, 4, 1, 7);  // column-major with padding
  ASSERT_TRUE(lay);
  EXPECT_TRUE(lay->trans);
  EXPECT_EQ(lay->ld, 7);
  EXPECT_FALSE(cpu::blas_layout(3, 4, 8, 2));  // every other column
  EXPECT_FALSE(cpu::blas_layout(3, 4, 0, 1));  // expanded rows overlap
  lay = cpu::blas_layout(1, 4, 123, 1);         // a single row: its row stride is irrelevant
  ASSERT_TRUE(lay);
  EXPECT_EQ(lay->ld, 4);
}

TEST(Matmul, BmmEveryDtypeAndLayout) {
  for (ScalarType dt : kProductTypes) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor a = make({3, 4, 5}, dt, 1), b = make({3, 5, 2}, dt, 2);
    Tensor c = bmm(a, b);
    ASSERT_EQ(c.sizes().vec(), (DimVector{3, 4, 2}));
    for (int64_t i = 0; i < 3; ++i) {
      expect_values(c.select(0, i), {4, 2}, ref_mm(a.select(0, i), b.select(0, i)), rtol_of(dt), 0);
    }
  }
  // Transposed matrices, an expanded batch (stride 0) and a sliced batch.
  Tensor a = make({3, 5, 4}, kFloat32, 3).transpose(1, 2);
  Tensor b = make({1, 5, 2}, kFloat32, 4).expand({3, 5, 2});
  Tensor s = make({6, 5, 2}, kFloat32, 5).slice(0, 0, std::nullopt, 2);
  for (const Tensor& rhs : {b, s}) {
    Tensor c = a.bmm(rhs);
    for (int64_t i = 0; i < 3; ++i) {
      expect_values(c.select(0, i), {4, 2}, ref_mm(a.select(0, i), rhs.select(0, i)));
    }
  }
  expect_values(bmm(empty({0, 2, 3}), empty({0, 3, 4})), {0, 2, 4}, {});
  expect_values(bmm(empty({2, 3, 0}), empty({2, 0, 4})), {2, 3, 4}, std::vector<double>(24, 0));
}

// Many small products run one per thread, large ones one after another with a threaded GEMM:
// both must agree with the reference at every thread count.
TEST(Matmul, BmmSmallAndLargeBatchesAcrossThreadCounts) {
  const int saved = get_num_threads();
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    EXPECT_EQ(cpu::get_gemm_num_threads(), threads);
    for (ScalarType dt : {kFloat32, kFloat64, kInt64}) {
      SCOPED_TRACE(::testing::Message() << threads << " threads, " << dtype_name(dt));
      for (auto [batch, m] : std::initializer_list<std::pair<int64_t, int64_t>>{{17, 8}, {2, 90}}) {
        Tensor a = make({batch, m, m}, dt, 11), b = make({batch, m, m}, dt, 12);
        Tensor c = bmm(a, b);
        for (int64_t i = 0; i < batch; i += 5) {
          expect_values(c.select(0, i), {m, m}, ref_mm(a.select(0, i), b.select(0, i)), 1e-5, 0);
        }
      }
    }
  }
  set_num_threads(saved);
}

TEST(Matmul, AddmmBiasBetaAlpha) {
  Tensor m1 = make({3, 4}, kFloat64, 1), m2 = make({4, 2}, kFloat64, 2);
  const std::vector<Tensor> biases = {make({3, 2}, kFloat64, 3), make({2}, kFloat64, 4),
                                      make({1, 2}, kFloat64, 5), make({3, 1}, kFloat64, 6),
                                      scalar_tensor(1.5, kFloat64), make({2, 3}, kFloat64, 7).t()};
  for (const Tensor& bias : biases) {
    SCOPED_TRACE(::testing::Message() << "bias " << bias.sizes());
    std::vector<double> bv = values(bias.expand({3, 2}));
    expect_values(addmm(bias, m1, m2), {3, 2}, ref_mm(m1, m2, bv, 1, 1));
    expect_values(bias.addmm(m1, m2, 0.5, -2), {3, 2}, ref_mm(m1, m2, bv, 0.5, -2));
  }
  // beta = 0 ignores the bias entirely, NaNs included (BLAS semantics, as PyTorch).
  Tensor nan_bias = full({3, 2}, std::nan(""), kFloat64);
  expect_values(addmm(nan_bias, m1, m2, 0, 1), {3, 2}, ref_mm(m1, m2));
  // Every dtype, with alpha and beta.
  for (ScalarType dt : kProductTypes) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor a = make({3, 4}, dt, 8), b = make({4, 2}, dt, 9), c = make({2}, dt, 10);
    expect_values(addmm(c, a, b, 2, 3), {3, 2}, ref_mm(a, b, values(c.expand({3, 2})), 2, 3),
                  rtol_of(dt), 0);
  }
  // Integer products convert beta and alpha to the integer type first: 0.5 -> 0, 2.7 -> 2.
  Tensor i1 = ones({2, 3}, kInt64), i2 = ones({3, 4}, kInt64), ib = ones({2, 4}, kInt64);
  expect_values(addmm(ib, i1, i2, 0.5), {2, 4}, std::vector<double>(8, 3));
  expect_values(addmm(ib, i1, i2, 2.7, 1.5), {2, 4}, std::vector<double>(8, 5));
}

TEST(Matmul, MatmulEveryRankCombination) {
  expect_matmul(make({4}, kFloat32, 1), make({4}, kFloat32, 2));               // dot -> 0-d
  expect_matmul(make({3, 4}, kFloat32, 1), make({4}, kFloat32, 2));            // mv
  expect_matmul(make({4}, kFloat32, 1), make({4, 3}, kFloat32, 2));            // vec @ mat
  expect_matmul(make({3, 4}, kFloat32, 1), make({4, 5}, kFloat32, 2));         // mm
  expect_matmul(make({2, 3, 4}, kFloat32, 1), make({4, 5}, kFloat32, 2));      // folded mm
  expect_matmul(make({2, 3, 4}, kFloat32, 1), make({4}, kFloat32, 2));         // folded mv
  expect_matmul(make({4}, kFloat32, 1), make({2, 4, 3}, kFloat32, 2));         // transposed fold
  expect_matmul(make({5, 4}, kFloat32, 1), make({2, 4, 3}, kFloat32, 2));      // transposed fold
  expect_matmul(make({2, 5, 4}, kFloat32, 1), make({2, 4, 3}, kFloat32, 2));   // bmm
  expect_matmul(make({2, 1, 5, 4}, kFloat32, 1), make({3, 4, 2}, kFloat32, 2));  // broadcast
  expect_matmul(make({3, 1, 4}, kFloat32, 1), make({2, 1, 4, 2}, kFloat32, 2));
  expect_matmul(make({2, 3, 2, 4}, kFloat32, 1), make({4}, kFloat32, 2));
  expect_matmul(make({4}, kFloat32, 1), make({2, 3, 4, 2}, kFloat32, 2));
  expect_matmul(make({2, 4, 5}, kFloat32, 1).transpose(1, 2), make({4, 3}, kFloat32, 2));  // no fold
  expect_matmul(make({2, 5, 4}, kFloat32, 1), make({4, 3, 2}, kFloat32, 2).permute({2, 0, 1}));
  expect_matmul(make({1, 4}, kFloat32, 1).expand({3, 4}), make({2, 4, 3}, kFloat32, 2));
  // Empty batches, rows and contractions ([3, 5, 0] @ [0, 0] is why folding avoids view(-1, k)).
  expect_matmul(make({3, 5, 0}, kFloat32, 1), make({0, 0}, kFloat32, 2));
  expect_matmul(make({0, 2, 3}, kFloat32, 1), make({3, 4}, kFloat32, 2));
  expect_matmul(make({2, 0, 3}, kFloat32, 1), make({2, 3, 4}, kFloat32, 2));
  expect_matmul(make({0}, kFloat32, 1), make({0}, kFloat32, 2));
  expect_matmul(make({2, 3, 0}, kFloat32, 1), make({1, 0, 4}, kFloat32, 2));
  for (ScalarType dt : kProductTypes) {
    SCOPED_TRACE(dtype_name(dt));
    expect_matmul(make({5}, dt, 3), make({5}, dt, 4), rtol_of(dt));
    expect_matmul(make({2, 1, 3, 5}, dt, 3), make({2, 5, 2}, dt, 4), rtol_of(dt));
  }
}

TEST(Matmul, MatmulResultLayoutsAsPyTorch) {
  Tensor dot = matmul(make({3}, kFloat32, 1), make({3}, kFloat32, 2));
  EXPECT_EQ(dot.dim(), 0);
  Tensor r = matmul(make({5, 3}, kFloat32, 1), make({2, 3, 4}, kFloat32, 2));
  EXPECT_EQ(r.sizes().vec(), (DimVector{2, 5, 4}));
  EXPECT_TRUE(r.is_contiguous());  // the transposed fold is made contiguous, as in PyTorch
}

TEST(Matmul, Linear) {
  Tensor w = make({4, 3}, kFloat32, 1), b = make({4}, kFloat32, 2);
  std::vector<double> bias4 = values(b);
  auto ref_linear = [&](const Tensor& x, bool with_bias) {
    DimVector shape;
    std::vector<double> out = ref_matmul(x, w.t(), &shape);
    if (with_bias)
      for (size_t i = 0; i < out.size(); ++i) out[i] += bias4[i % 4];
    return std::make_pair(shape, out);
  };
  const std::vector<Tensor> inputs = {make({3}, kFloat32, 3), make({5, 3}, kFloat32, 4),
                                      make({2, 5, 3}, kFloat32, 5),
                                      make({2, 3, 5}, kFloat32, 6).transpose(1, 2),
                                      make({2, 2, 5, 3}, kFloat32, 7)};
  for (const Tensor& x : inputs) {
    SCOPED_TRACE(::testing::Message() << "input " << x.sizes());
    for (bool with_bias : {false, true}) {
      auto [shape, want] = ref_linear(x, with_bias);
      Tensor y = with_bias ? linear(x, w, b) : linear(x, w);
      expect_values(y, shape, want);
    }
  }
  // A bias broadcast over the rows of a 2-D input, and a 0-d one.
  expect_values(linear(ones({2, 3}), ones({4, 3}), scalar_tensor(1.0)), {2, 4},
                std::vector<double>(8, 4));
}

// Records the primitive ops a dispatch-level override sees, running each for real.
struct OpLog : DispatchMode {
  std::vector<std::string> ops;
  std::optional<Stack> torch_dispatch(const OpHandle& op, const Stack& args) override {
    ops.push_back(op.full_name());
    return op.redispatch(args);
  }
};

std::vector<std::string> dispatched_ops(const std::function<void()>& fn) {
  auto log = make_intrusive<OpLog>();
  {
    DispatchModeGuard guard(log);
    fn();
  }
  return log->ops;
}

TEST(Matmul, LinearDecomposesIntoDispatchedPrimitives) {
  Tensor x1 = ones({3}), x2 = ones({2, 3}), x3 = ones({2, 5, 3}), w = ones({4, 3}), b = ones({4});
  EXPECT_EQ(dispatched_ops([&] { linear(x2, w, b); }),
            (std::vector<std::string>{"aten::t", "aten::addmm"}));
  EXPECT_EQ(dispatched_ops([&] { linear(x2, w); }),
            (std::vector<std::string>{"aten::t", "aten::mm"}));
  EXPECT_EQ(dispatched_ops([&] { linear(x3, w, b); }),
            (std::vector<std::string>{"aten::t", "aten::view", "aten::addmm", "aten::view"}));
  auto ops = dispatched_ops([&] { linear(x1, w, b); });
  ASSERT_FALSE(ops.empty());
  EXPECT_EQ(ops.front(), "aten::t");
  EXPECT_EQ(ops.back(), "aten::add.Tensor");
  EXPECT_NE(std::find(ops.begin(), ops.end(), "aten::mm"), ops.end());
  Tensor y3 = ones({2, 3, 4});
  ops = dispatched_ops([&] { matmul(x3, y3); });
  EXPECT_NE(std::find(ops.begin(), ops.end(), "aten::bmm"), ops.end());
}

TEST(Matmul, ErrorsAsPyTorch) {
  Tensor f23 = ones({2, 3}), f45 = ones({4, 5}), d34 = ones({3, 4}, kFloat64);
  expect_error([&] { mm(f23, f45); }, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  expect_error([&] { mm(ones({3}), f45); }, "self must be a matrix");
  expect_error([&] { mm(f23, ones({3})); }, "mat2 must be a matrix");
  expect_error([&] { mm(f23, d34); }, "expected scalar type Float but found Double");
  expect_error([&] { mm(ones({2, 3}, kInt64), ones({3, 4}, kInt32)); },
               "expected scalar type Long but found Int");
  expect_error([&] { mm(ones({2, 3}, kBool), ones({3, 4}, kBool)); },
               "\"addmm_impl_cpu_\" not implemented for 'Bool'");

  expect_error([&] { bmm(f23, ones({3, 4})); }, "batch1 must be a 3D tensor");
  expect_error([&] { bmm(ones({2, 2, 3}), ones({3, 4})); }, "batch2 must be a 3D tensor");
  expect_error([&] { bmm(ones({2, 2, 3}), ones({2, 4, 4})); },
               "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].");
  expect_error([&] { bmm(ones({2, 2, 3}), ones({3, 3, 4})); },
               "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3].");
  expect_error([&] { bmm(ones({2, 2, 3}), ones({2, 3, 4}, kFloat64)); },
               "expected scalar type Float but found Double");
  expect_error([&] { bmm(ones({2, 2, 3}, kBool), ones({2, 3, 4}, kBool)); },
               "\"bmm\" not implemented for 'Bool'");

  expect_error([&] { addmm(ones({5}), f23, ones({3, 4})); },
               "The expanded size of the tensor (4) must match the existing size (5) at "
               "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [5]");
  expect_error([&] { addmm(ones({2, 4}), ones({3}), ones({3, 4})); },
               "mat1 must be a matrix, got 1-D tensor");
  expect_error([&] { addmm(ones({2, 4}), f23, ones({3})); }, "mat2 must be a matrix, got 1-D tensor");
  expect_error([&] { addmm(ones({2, 4}), f23, ones({4, 4})); },
               "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x4)");
  expect_error([&] { addmm(ones({2, 4}, kFloat64), f23, ones({3, 4})); },
               "self and mat2 must have the same dtype");
  expect_error([&] { addmm(ones({2, 4}), ones({2, 3}, kFloat64), ones({3, 4})); },
               "mat1 and mat2 must have the same dtype");
  expect_error([&] { addmm(ones({2, 4}), f23, ones({3, 4}, kFloat64)); },
               "self and mat2 must have the same dtype");
  expect_error([&] { addmm(ones({2, 4}, kBool), ones({2, 3}, kBool), ones({3, 4}, kBool)); },
               "\"addmm_impl_cpu_\" not implemented for 'Bool'");

  expect_error([&] { matmul(scalar_tensor(1.0), ones({3})); },
               "both arguments to matmul need to be at least 1D, but they are 0D and 1D");
  expect_error([&] { matmul(ones({3}), ones({4})); },
               "inconsistent tensor size, expected tensor [3] and src [4] to have the same number "
               "of elements, but got 3 and 4 elements respectively");
  expect_error([&] { matmul(ones({3}), ones({3}, kFloat64)); },
               "dot : expected both vectors to have same dtype, but found Float and Double");
  expect_error([&] { matmul(ones({3}, kBool), ones({3}, kBool)); }, "\"dot\" not implemented for 'Bool'");
  expect_error([&] { matmul(f23, ones({4})); }, "size mismatch, got 2, 2x3,4");
  expect_error([&] { matmul(ones({2, 2, 3}), ones({4})); }, "size mismatch, got 4, 4x3,4");
  expect_error([&] { matmul(ones({4}), ones({2, 3, 5})); }, "size mismatch, got 10, 10x3,4");
  expect_error([&] { matmul(ones({3}), f45); },
               "mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)");
  expect_error([&] { matmul(ones({2, 2, 3}), f45); },
               "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x5)");
  expect_error([&] { matmul(ones({2, 2, 3}), ones({3, 3, 4})); },
               "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0");
  expect_error([&] { matmul(f23, ones({3}, kFloat64)); }, "expected scalar type Float but found Double");
  expect_error([&] { matmul(ones({2, 3}, kBool), ones({3}, kBool)); },
               "\"addmv_impl_cpu\" not implemented for 'Bool'");

  expect_error([&] { linear(f23, f45); }, "mat1 and mat2 shapes cannot be multiplied (2x3 and 5x4)");
  expect_error([&] { linear(f23, ones({4, 3}), ones({5})); },
               "The expanded size of the tensor (4) must match the existing size (5)");
  expect_error([&] { linear(f23, ones({4, 3}), ones({4}, kFloat64)); },
               "self and mat2 must have the same dtype");

  // Failed products leave their inputs untouched.
  Tensor bias = full({2, 4}, 7.0);
  expect_error([&] { addmm(bias, f23, ones({4, 4})); }, "cannot be multiplied");
  expect_values(bias, {2, 4}, std::vector<double>(8, 7));
}

TEST(Matmul, MetaShapesOnly) {
  DeviceGuard g(kMeta);
  Tensor a = empty({2, 5, 3}), w = empty({4, 3}), b = empty({4});
  Tensor y = linear(a, w, b);
  EXPECT_TRUE(y.is_meta());
  EXPECT_EQ(y.sizes().vec(), (DimVector{2, 5, 4}));
  EXPECT_EQ(mm(empty({2, 3}), empty({3, 7})).sizes().vec(), (DimVector{2, 7}));
  EXPECT_EQ(bmm(empty({6, 2, 3}), empty({6, 3, 7})).sizes().vec(), (DimVector{6, 2, 7}));
  EXPECT_EQ(addmm(empty({7}), empty({2, 3}), empty({3, 7})).sizes().vec(), (DimVector{2, 7}));
  EXPECT_EQ(matmul(empty({2, 1, 5, 3}), empty({4, 3, 6})).sizes().vec(), (DimVector{2, 4, 5, 6}));
  EXPECT_EQ(matmul(empty({3}), empty({3})).dim(), 0);
  EXPECT_EQ(matmul(empty({3}), empty({2, 3, 4})).sizes().vec(), (DimVector{2, 4}));
  Tensor h = mm(empty({2, 3}, kFloat16), empty({3, 7}, kFloat16));
  EXPECT_EQ(h.dtype(), kFloat16);
  EXPECT_EQ(h.data_ptr(), nullptr);
  expect_error([] { mm(empty({2, 3}), empty({4, 7})); }, "mat1 and mat2 shapes cannot be multiplied");
}

}  // namespace
}  // namespace ember
