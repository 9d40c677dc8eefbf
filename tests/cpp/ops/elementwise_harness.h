// A table-driven harness for elementwise ops: each op row gives the op, a float64 reference and
// the dtypes it supports; the harness runs it on 0-d, empty, broadcast and non-contiguous
// (transposed, step-sliced, expanded, permuted) operands of every dtype, plus a tensor large
// enough to be split across threads, and compares with the reference evaluated on the same
// (dtype-converted) inputs. It also checks result dtypes, the "not implemented" error of
// unsupported dtypes, in-place forms (same values, version bump, refusal of a result dtype self
// cannot hold, self unchanged after an error) and meta inputs.
//
//   UnaryRow row{"exp", [](const Tensor& t) { return t.exp(); }, ...};
//   run_unary_row(row);
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "testing.h"

namespace ember::testing {

inline const std::vector<ScalarType> kAllDtypes = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8,
                                                   kUInt8,   kInt16,   kInt32,   kInt64,    kBool};
inline const std::vector<ScalarType> kFloatDtypes = {kFloat32, kFloat64, kFloat16, kBFloat16};
inline const std::vector<ScalarType> kIntDtypes = {kInt8, kUInt8, kInt16, kInt32, kInt64};

inline std::vector<ScalarType> concat(std::vector<ScalarType> a, const std::vector<ScalarType>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
inline bool contains(const std::vector<ScalarType>& v, ScalarType t) {
  for (auto x : v)
    if (x == t) return true;
  return false;
}

/// A tensor of `dtype` holding `v` (converted from double as .to(dtype) converts), shaped
/// `shape` (default: 1-d).
inline Tensor tensor_of(const std::vector<double>& v, ScalarType dtype,
                        std::vector<int64_t> shape = {-1}) {
  if (shape.size() == 1 && shape[0] == -1) shape[0] = static_cast<int64_t>(v.size());
  Tensor t = empty(shape, TensorOptions(kFloat64).device(kCPU));
  EMBER_ASSERT(t.numel() == static_cast<int64_t>(v.size()), "tensor_of: shape does not match");
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  return t.to(dtype);
}

/// The values an operand takes: uniform in [lo, hi]; integers for integral dtypes (never
/// negative for uint8), 0/1 for bool; `nonzero` skips 0 (divisors).
struct Domain {
  double lo = -5, hi = 5;
  bool nonzero = false;
};

enum class Layout { Contiguous, Transposed, Sliced, Expanded, Permuted };

struct Operand {
  std::vector<int64_t> shape;
  Layout layout = Layout::Contiguous;
};

/// A deterministic tensor of `sizes` and `dtype` with values from `domain`.
inline Tensor make_values(IntArrayRef sizes, ScalarType dtype, const Domain& domain, uint64_t seed) {
  Tensor t = empty(sizes, TensorOptions(kFloat64).device(kCPU));
  double* p = t.data_ptr<double>();
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 12345;
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v;
    do {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      double u = static_cast<double>(s >> 11) / 9007199254740992.0;  // [0, 1)
      double lo = domain.lo, hi = domain.hi;
      if (dtype == kBool) {
        v = u < 0.5 ? 0 : 1;
      } else if (is_integral(dtype, false)) {
        if (dtype == kUInt8) lo = std::max(lo, 0.0);
        v = std::floor(lo + u * (hi - lo + 1));
        v = std::min(v, std::floor(hi));
      } else {
        v = lo + u * (hi - lo);
      }
    } while (domain.nonzero && v == 0);
    p[i] = v;
  }
  return t.to(dtype);
}

/// An operand of logical shape `op.shape` built with the requested layout.
inline Tensor make_operand(const Operand& op, ScalarType dtype, const Domain& domain, uint64_t seed) {
  std::vector<int64_t> s = op.shape;
  const int64_t n = static_cast<int64_t>(s.size());
  switch (n == 0 ? Layout::Contiguous : op.layout) {
    case Layout::Contiguous: return make_values(s, dtype, domain, seed);
    case Layout::Transposed: {
      if (n < 2) return make_values(s, dtype, domain, seed);
      std::swap(s[n - 2], s[n - 1]);
      return make_values(s, dtype, domain, seed).transpose(n - 2, n - 1);
    }
    case Layout::Sliced: {
      s[n - 1] *= 2;
      return make_values(s, dtype, domain, seed).slice(n - 1, 0, std::nullopt, 2);
    }
    case Layout::Expanded: {
      s[0] = 1;
      return make_values(s, dtype, domain, seed).expand(op.shape);
    }
    case Layout::Permuted: {
      EMBER_ASSERT(n == 3, "permuted operands are 3-d");
      return make_values({s[1], s[2], s[0]}, dtype, domain, seed).permute({2, 0, 1});
    }
  }
  return {};
}

// 16-bit floats compute in float and round once: half a unit in the last place, 2^-11 relative
// for float16 (11-bit significand), 2^-8 for bfloat16, with room for the float arithmetic.
inline double rel_tolerance(ScalarType t) {
  switch (t) {
    case kFloat32: return 2e-6;
    case kFloat64: return 1e-12;
    case kFloat16: return 1e-3;
    case kBFloat16: return 1e-2;
    default: return 0;  // integers and bool: exact
  }
}

/// An exact integer result as `dtype` holds it: integers wrap around (two's complement), as
/// PyTorch's integer arithmetic does; bool is "nonzero".
inline double as_dtype(double v, ScalarType dtype) {
  if (dtype == kBool) return v != 0;
  if (!is_integral(dtype, false) || !std::isfinite(v)) return v;
  int64_t i = static_cast<int64_t>(v);
  switch (dtype) {
    case kInt8: return static_cast<int8_t>(i);
    case kUInt8: return static_cast<uint8_t>(i);
    case kInt16: return static_cast<int16_t>(i);
    case kInt32: return static_cast<int32_t>(i);
    default: return static_cast<double>(i);
  }
}

/// Expects `got` (any dtype) to match `expected` elementwise within the tolerance of `dtype`
/// (exactly, after wrapping into the dtype's range, for integer and bool results).
inline void expect_close(const Tensor& got, const std::vector<double>& expected, ScalarType dtype,
                         const std::string& what) {
  std::vector<double> v = values(got);
  ASSERT_EQ(v.size(), expected.size()) << what;
  const double tol = rel_tolerance(dtype);
  int failures = 0;
  for (size_t i = 0; i < v.size() && failures < 5; ++i) {
    const double e = as_dtype(expected[i], dtype), g = v[i];
    bool ok = std::isnan(e) ? std::isnan(g)
              : std::isinf(e) ? g == e
                              : std::abs(g - e) <= tol + tol * std::abs(e);
    if (!ok) {
      ++failures;
      ADD_FAILURE() << what << ": element " << i << " is " << g << ", expected " << e;
    }
  }
}

/// The row's error for a dtype it does not support: by default PyTorch's
/// "<kernel>" not implemented for '<Type>' (only the tail is matched).
inline std::string not_implemented_for(ScalarType t) {
  return std::string("not implemented for '") + scalar_type_name(t) + "'";
}

/// "result type Float can't be cast to the desired output type Long"
inline std::string cast_error(ScalarType result, ScalarType self) {
  return std::string("result type ") + scalar_type_name(result) +
         " can't be cast to the desired output type " + scalar_type_name(self);
}

// ---------------------------------------------------------------------------------------------
// Unary rows

struct UnaryRow {
  std::string name;
  std::function<Tensor(const Tensor&)> fn;
  std::function<Tensor&(Tensor&)> inplace;  // empty when the op has no in-place form
  std::function<double(double)> ref;
  std::vector<ScalarType> dtypes;  // compute dtypes the CPU kernel supports
  Domain domain;
  /// A reference that needs the compute dtype (replaces `ref` when set), e.g. ~x on bool.
  std::function<double(double, ScalarType)> typed_ref;
  /// Compute dtype for an input dtype (default: the same); e.g. exp computes ints in float.
  std::function<ScalarType(ScalarType)> compute_dtype = [](ScalarType t) { return t; };
  /// Result dtype for a compute dtype (default: the same); e.g. logical_not gives bool.
  std::function<ScalarType(ScalarType)> result_dtype = [](ScalarType t) { return t; };
  std::function<std::string(ScalarType)> unsupported_error = not_implemented_for;
  /// In place, a result of any dtype is written into self (logical_not).
  bool inplace_any_dtype = false;
  /// The error of the in-place form when self cannot hold the result dtype.
  std::function<std::string(ScalarType result, ScalarType self)> inplace_error = cast_error;
};

inline const std::vector<std::pair<std::string, Operand>>& unary_cases() {
  static const std::vector<std::pair<std::string, Operand>> cases = {
      {"0-d", {{}}},
      {"empty", {{0, 3}}},
      {"contiguous", {{3, 5}}},
      {"transposed", {{3, 5}, Layout::Transposed}},
      {"sliced", {{3, 5}, Layout::Sliced}},
      {"expanded", {{3, 5}, Layout::Expanded}},
      {"permuted", {{2, 3, 4}, Layout::Permuted}},
      {"large", {{300, 257}, Layout::Transposed}},  // several parallel_for chunks
  };
  return cases;
}

inline std::vector<double> unary_reference(const UnaryRow& row, const Tensor& x, ScalarType compute) {
  std::vector<double> in = values(x.to(compute));
  for (double& v : in) v = row.typed_ref ? row.typed_ref(v, compute) : row.ref(v);
  return in;
}

inline void run_unary_row(const UnaryRow& row) {
  for (ScalarType dt : kAllDtypes) {
    const ScalarType compute = row.compute_dtype(dt);
    const std::string tag = row.name + " " + dtype_name(dt);
    if (!contains(row.dtypes, compute)) {
      Tensor x = make_values({3}, dt, row.domain, 1);
      expect_error([&] { row.fn(x); }, row.unsupported_error(compute));
      continue;
    }
    const ScalarType result = row.result_dtype(compute);
    uint64_t seed = 1;
    for (const auto& [case_name, operand] : unary_cases()) {
      const std::string what = tag + " " + case_name;
      Tensor x = make_operand(operand, dt, row.domain, seed++);
      Tensor before = x.clone();
      Tensor y = row.fn(x);
      ASSERT_EQ(y.dtype(), result) << what;
      ASSERT_EQ(y.sizes().vec(), operand.shape) << what;
      expect_close(y, unary_reference(row, x, compute), result, what);
      expect_close(x, values(before), dt, what + " (input unchanged)");

      if (!row.inplace || operand.layout == Layout::Expanded) continue;
      Tensor self = make_operand(operand, dt, row.domain, seed - 1);
      Tensor self_before = self.clone();
      const uint32_t version = self.version();
      if (result == dt || row.inplace_any_dtype) {
        Tensor& r = row.inplace(self);
        EXPECT_TRUE(r.is_same(self)) << what;
        EXPECT_EQ(self.version(), version + 1) << what;
        EXPECT_EQ(self.dtype(), dt) << what;
        expect_close(self, values(y.to(dt)), dt, what + " (in place)");
      } else {
        expect_error([&] { row.inplace(self); }, row.inplace_error(result, dt));
        EXPECT_EQ(self.version(), version) << what;
        expect_close(self, values(self_before), dt, what + " (unchanged after error)");
      }
    }
    // Meta: shapes and dtypes only.
    for (const auto& [case_name, operand] : unary_cases()) {
      Tensor m = empty(operand.shape, TensorOptions(dt).device(kMeta));
      Tensor y = row.fn(m);
      EXPECT_TRUE(y.is_meta()) << tag << " meta " << case_name;
      EXPECT_EQ(y.dtype(), result) << tag << " meta " << case_name;
      EXPECT_EQ(y.sizes().vec(), operand.shape) << tag << " meta " << case_name;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Binary rows

struct BinaryRow {
  std::string name;
  std::function<Tensor(const Tensor&, const Tensor&)> fn;
  std::function<Tensor&(Tensor&, const Tensor&)> inplace;  // may be empty
  std::function<double(double, double)> ref;
  std::vector<ScalarType> dtypes;  // compute dtypes the CPU kernel supports
  Domain a_domain, b_domain;
  /// Compute dtype for the promoted dtype (default: the same; true division: ints → float).
  std::function<ScalarType(ScalarType)> compute_dtype = [](ScalarType t) { return t; };
  /// Result dtype for the compute dtype (default: the same; comparisons: bool).
  std::function<ScalarType(ScalarType)> result_dtype = [](ScalarType t) { return t; };
  /// In place, a result of any dtype is written into self (comparisons and logical ops).
  bool inplace_any_dtype = false;
  /// The Tensor-Scalar form (e.g. t.mul(s)), tested with `scalars` as the second operand.
  std::function<Tensor(const Tensor&, const Scalar&)> scalar_fn;
  std::vector<Scalar> scalars = {Scalar(3), Scalar(-2.5)};
  std::function<std::string(ScalarType)> unsupported_error = not_implemented_for;
};

struct BinaryCase {
  std::string name;
  Operand a, b;
};

inline const std::vector<BinaryCase>& binary_cases() {
  static const std::vector<BinaryCase> cases = {
      {"0-d", {{}}, {{}}},
      {"broadcast", {{2, 1, 3}}, {{4, 3}}},
      {"empty", {{0, 3}}, {{3}}},
      {"transposed", {{3, 5}}, {{3, 5}, Layout::Transposed}},
      {"sliced-expanded", {{3, 5}, Layout::Sliced}, {{3, 5}, Layout::Expanded}},
      {"permuted", {{2, 3, 4}, Layout::Permuted}, {{3, 4}, Layout::Transposed}},
      {"tensor-0d", {{3, 5}, Layout::Transposed}, {{}}},
      {"0d-tensor", {{}}, {{3, 5}}},
      {"large", {{300, 257}}, {{257}}},
  };
  return cases;
}

inline std::vector<double> binary_reference(const BinaryRow& row, const Tensor& a, const Tensor& b,
                                            ScalarType compute, IntArrayRef shape) {
  std::vector<double> x = values(a.to(compute).expand(shape));
  std::vector<double> y = values(b.to(compute).expand(shape));
  for (size_t i = 0; i < x.size(); ++i) x[i] = row.ref(x[i], y[i]);
  return x;
}

inline void run_binary_row(const BinaryRow& row) {
  for (ScalarType dt : kAllDtypes) {
    const ScalarType compute = row.compute_dtype(dt);
    const std::string tag = row.name + " " + dtype_name(dt);
    if (!contains(row.dtypes, compute)) {
      Tensor a = make_values({3}, dt, row.a_domain, 1), b = make_values({3}, dt, row.b_domain, 2);
      expect_error([&] { row.fn(a, b); }, row.unsupported_error(compute));
      continue;
    }
    const ScalarType result = row.result_dtype(compute);
    uint64_t seed = 100;
    for (const BinaryCase& c : binary_cases()) {
      const std::string what = tag + " " + c.name;
      Tensor a = make_operand(c.a, dt, row.a_domain, seed++);
      Tensor b = make_operand(c.b, dt, row.b_domain, seed++);
      DimVector shape = broadcast_shapes(a.sizes(), b.sizes());
      Tensor y = row.fn(a, b);
      ASSERT_EQ(y.dtype(), result) << what;
      ASSERT_EQ(y.sizes().vec(), shape) << what;
      expect_close(y, binary_reference(row, a, b, compute, shape), result, what);

      // In place where self holds the broadcast shape (and is not an expanded view).
      if (!row.inplace || c.a.layout == Layout::Expanded || !a.sizes().equals(shape)) continue;
      Tensor self = make_operand(c.a, dt, row.a_domain, seed - 2);
      Tensor self_before = self.clone();
      const uint32_t version = self.version();
      if (row.inplace_any_dtype || result == dt) {
        Tensor& r = row.inplace(self, b);
        EXPECT_TRUE(r.is_same(self)) << what;
        EXPECT_EQ(self.version(), version + 1) << what;
        expect_close(self, values(y.to(dt)), dt, what + " (in place)");
      } else {
        expect_error([&] { row.inplace(self, b); }, cast_error(result, dt));
        EXPECT_EQ(self.version(), version) << what;
        expect_close(self, values(self_before), dt, what + " (unchanged after error)");
      }
    }
    // Scalar second operand: promotes weakly.
    if (row.scalar_fn) {
      Tensor a = make_operand({{3, 4}, Layout::Transposed}, dt, row.a_domain, 7);
      for (const Scalar& s : row.scalars) {
        const std::string what = tag + " with scalar " + s.str();
        const ScalarType sc = row.compute_dtype(result_type(a, s));
        if (!contains(row.dtypes, sc)) {
          expect_error([&] { row.scalar_fn(a, s); }, row.unsupported_error(sc));
          continue;
        }
        Tensor y = row.scalar_fn(a, s);
        ASSERT_EQ(y.dtype(), row.result_dtype(sc)) << what;
        expect_close(y, binary_reference(row, a, wrapped_scalar_tensor(s), sc, a.sizes()),
                     row.result_dtype(sc), what);
      }
    }
    // Meta: shapes and dtypes only (and a 0-d CPU operand goes with a meta one).
    for (const BinaryCase& c : binary_cases()) {
      Tensor ma = empty(c.a.shape, TensorOptions(dt).device(kMeta));
      Tensor mb = c.b.shape.empty() ? make_values({}, dt, row.b_domain, 3)
                                    : empty(c.b.shape, TensorOptions(dt).device(kMeta));
      Tensor y = row.fn(ma, mb);
      EXPECT_TRUE(y.is_meta()) << tag << " meta " << c.name;
      EXPECT_EQ(y.dtype(), result) << tag << " meta " << c.name;
      EXPECT_EQ(y.sizes().vec(), broadcast_shapes(ma.sizes(), mb.sizes()))
          << tag << " meta " << c.name;
    }
  }
}

}  // namespace ember::testing
