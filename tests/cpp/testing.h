// Helpers shared by ember's C++ tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::testing {

/// Every element of `t` (any dtype, any layout) as double, in row-major order.
inline std::vector<double> values(const Tensor& t) {
  Tensor c = t.contiguous().to(kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

/// A contiguous tensor of `dtype` holding `v` in row-major order with `sizes` ({} is 0-d).
inline Tensor from_values(const std::vector<double>& v, IntArrayRef sizes,
                          ScalarType dtype = kFloat32) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, kFloat64);
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  return t.view(sizes).to(dtype);
}

/// start, start + 1, ... with `sizes`.
inline Tensor iota(IntArrayRef sizes, ScalarType dtype = kFloat32, double start = 0) {
  Tensor t = empty(sizes, kFloat64);
  double* p = t.data_ptr<double>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = start + static_cast<double>(i);
  return t.to(dtype);
}

/// Expects `t` to have `sizes` and values close to `expected` (NaNs must match NaNs).
inline void expect_values(const Tensor& t, IntArrayRef sizes, const std::vector<double>& expected,
                          double rtol = 1e-6, double atol = 1e-6) {
  ASSERT_EQ(t.sizes().vec(), sizes.vec());
  auto got = values(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
    } else if (std::isinf(expected[i])) {
      EXPECT_EQ(got[i], expected[i]) << "at " << i;
    } else {
      EXPECT_NEAR(got[i], expected[i], atol + rtol * std::abs(expected[i])) << "at " << i;
    }
  }
}

/// Expects `fn` to throw ember::Error whose message contains `needle`.
template <class F>
void expect_error(F&& fn, const std::string& needle, ErrorKind kind = ErrorKind::Runtime) {
  try {
    fn();
    ADD_FAILURE() << "expected an ember::Error containing \"" << needle << "\"";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message was: " << e.what();
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << "message was: " << e.what();
  }
}

}  // namespace ember::testing
