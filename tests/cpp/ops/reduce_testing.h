// Inputs shared by the reduction, softmax and sort tests: seeded random values in every dtype and
// the same shape in several memory layouts.
#pragma once

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "testing.h"

namespace ember::testing {

/// A tensor of `dtype` holding `v` (shape `sizes`, default 1-d).
inline Tensor vals(const std::vector<double>& v, ScalarType dtype = kFloat32, DimVector sizes = {}) {
  if (sizes.empty()) sizes.push_back(static_cast<int64_t>(v.size()));
  return from_values(v, sizes, dtype);
}

/// Random values of `dtype`: uniform in [-4, 4) for floats, integers in [-4, 4] ([0, 8] for
/// uint8, with many ties), bools half true.
inline Tensor random_tensor(IntArrayRef sizes, ScalarType dtype, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uni(-4.0, 4.0);
  Tensor t = empty(sizes, kFloat64);
  double* p = t.data_ptr<double>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = uni(rng);
    if (dtype == kBool) v = v > 0;
    else if (dtype == kUInt8) v = std::floor(v + 4.5);
    else if (is_integral(dtype, false)) v = std::round(v);
    p[i] = v;
  }
  return t.to(dtype);
}

/// The shape `sizes` in four layouts, each with its own values: contiguous, every stride
/// reversed (a permuted buffer), the last dim sliced with step 2, and dim 0 expanded (stride 0).
inline std::vector<std::pair<std::string, Tensor>> layouts(IntArrayRef sizes, ScalarType dtype,
                                                          uint32_t seed) {
  std::vector<std::pair<std::string, Tensor>> out;
  out.emplace_back("contiguous", random_tensor(sizes, dtype, seed));
  const int64_t nd = static_cast<int64_t>(sizes.size());
  if (nd >= 2) {
    DimVector rev(sizes.begin(), sizes.end()), perm;
    std::reverse(rev.begin(), rev.end());
    for (int64_t d = nd - 1; d >= 0; --d) perm.push_back(d);
    out.emplace_back("reversed", random_tensor(rev, dtype, seed + 1).permute(perm));
  }
  if (nd >= 1) {
    DimVector wide = sizes.vec();
    wide.back() *= 2;
    out.emplace_back("step2", random_tensor(wide, dtype, seed + 2).slice(nd - 1, 0, std::nullopt, 2));
    DimVector one = sizes.vec();
    one[0] = 1;
    out.emplace_back("expanded", random_tensor(one, dtype, seed + 3).expand(sizes));
  }
  return out;
}

inline const std::vector<ScalarType>& all_dtypes() {
  static const std::vector<ScalarType> d{kFloat32, kFloat64, kFloat16, kBFloat16, kInt8,
                                         kUInt8,   kInt16,   kInt32,   kInt64,    kBool};
  return d;
}
inline const std::vector<ScalarType>& float_dtypes() {
  static const std::vector<ScalarType> d{kFloat32, kFloat64, kFloat16, kBFloat16};
  return d;
}

/// Relative tolerance for results rounded to `dtype`.
inline double tolerance(ScalarType dtype) {
  switch (dtype) {
    case kFloat32: return 1e-5;
    case kFloat64: return 1e-12;
    case kFloat16: return 2e-3;
    case kBFloat16: return 1e-2;
    default: return 0;
  }
}

/// Expects `out` (possibly with keepdim's 1s) to hold `ref`'s values.
inline void expect_matches(const Tensor& out, const Tensor& ref, double rtol, double atol,
                           const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(out.numel(), ref.numel());
  expect_values(out.reshape(ref.sizes()), ref.sizes(), values(ref), rtol, atol);
}

inline std::string describe(const std::string& layout, ScalarType dtype, IntArrayRef sizes,
                            IntArrayRef dims, bool keepdim) {
  std::ostringstream os;
  os << layout << " " << dtype_name(dtype) << " sizes " << sizes << " dims " << dims
     << (keepdim ? " keepdim" : "");
  return os.str();
}

/// `sizes` reduced over wrapped `dims` (empty: all).
inline DimVector expected_shape(IntArrayRef sizes, IntArrayRef dims, bool keepdim) {
  DimVector out;
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    bool reduced = dims.empty();
    for (int64_t r : dims) reduced = reduced || (r < 0 ? r + static_cast<int64_t>(sizes.size()) : r) == d;
    if (!reduced) out.push_back(sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

/// Wrapped dims for the references (empty list: every dim; a 0-d tensor: none).
inline DimVector ref_dims(IntArrayRef dims, int64_t ndim) {
  DimVector out;
  if (ndim == 0) return out;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : dims) out.push_back(d < 0 ? d + ndim : d);
  return out;
}

}  // namespace ember::testing
