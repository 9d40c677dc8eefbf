// Shared by test_grad_reduce.cpp and test_grad_matmul.cpp: float64 leaves in several layouts,
// gradcheck + gradgradcheck with the failure text in the test log, and a guard for checks that
// need autograd rules of other op families (views, pointwise, index ops) that are written on
// other branches: such a test is skipped, naming the missing rules, until they are merged.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "../testing.h"
#include "dispatch/dispatcher.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/gradcheck.h"
#include "ember/ember.h"

namespace ember::grad_testing {

using autograd::tensor_list;
using dispatch::OpId;

/// Random float64 values of `sizes` (randn, seeded so each test is reproducible).
inline Tensor random64(IntArrayRef sizes, uint64_t seed) {
  Generator gen;
  gen.manual_seed(seed);
  return randn(sizes, kFloat64, &gen);
}

/// A contiguous float64 leaf that requires grad.
inline Tensor leaf(IntArrayRef sizes, uint64_t seed = 1) {
  return random64(sizes, seed).requires_grad_();
}

/// A float64 leaf stored column-major (strides reversed): non-contiguous, like `.t()`.
inline Tensor leaf_transposed(IntArrayRef sizes, uint64_t seed = 2) {
  DimVector strides(sizes.size(), 1);
  for (size_t d = 1; d < sizes.size(); ++d) strides[d] = strides[d - 1] * std::max<int64_t>(sizes[d - 1], 1);
  Tensor t = empty_strided(sizes, strides, kFloat64);
  t.copy_(random64(sizes, seed));
  return t.requires_grad_();
}

/// A float64 leaf holding every other element of its storage along each dim (gaps, like a
/// `slice(..., step=2)` view).
inline Tensor leaf_strided(IntArrayRef sizes, uint64_t seed = 3) {
  DimVector strides(sizes.size(), 2);
  for (size_t d = sizes.size(); d-- > 1;) strides[d - 1] = strides[d] * std::max<int64_t>(sizes[d], 1) * 2;
  Tensor t = empty_strided(sizes, strides, kFloat64);
  t.copy_(random64(sizes, seed));
  return t.requires_grad_();
}

/// A float64 leaf with the given values.
inline Tensor leaf_of(const std::vector<double>& v, IntArrayRef sizes) {
  return testing::from_values(v, sizes, kFloat64).requires_grad_();
}

/// The names of the ops among `ops` that have no autograd rule in this build.
inline std::string missing_rules(std::initializer_list<OpId> ops) {
  std::string missing;
  for (OpId op : ops) {
    if (dispatch::autograd_slot(op).fn) continue;
    if (!missing.empty()) missing += ", ";
    missing += dispatch::op_handle(op).full_name();
  }
  return missing;
}

/// Skips the test (returning from it) unless every op listed has an autograd rule.
#define EMBER_REQUIRE_RULES(...)                                                              \
  do {                                                                                        \
    const std::string ember_missing_ = ::ember::grad_testing::missing_rules({__VA_ARGS__});   \
    if (!ember_missing_.empty()) GTEST_SKIP() << "needs the autograd rules of " << ember_missing_; \
  } while (0)

/// gradcheck, reporting GradcheckError's text (both Jacobians) as the failure.
inline ::testing::AssertionResult grad_ok(const autograd::DifferentiableFn& fn, const tensor_list& inputs,
                                          const autograd::GradcheckOptions& opt = {}) {
  try {
    autograd::gradcheck(fn, inputs, opt);
    return ::testing::AssertionSuccess();
  } catch (const Error& e) {
    return ::testing::AssertionFailure() << e.what();
  }
}

/// gradgradcheck, reporting the failure text.
inline ::testing::AssertionResult gradgrad_ok(const autograd::DifferentiableFn& fn,
                                              const tensor_list& inputs,
                                              const autograd::GradcheckOptions& opt = {}) {
  try {
    autograd::gradgradcheck(fn, inputs, {}, opt);
    return ::testing::AssertionSuccess();
  } catch (const Error& e) {
    return ::testing::AssertionFailure() << e.what();
  }
}

/// d(sum(out * grad_out)) / d(x) by autograd::grad.
inline Tensor grad_of(const Tensor& out, const Tensor& x, const Tensor& grad_out = {},
                      bool create_graph = false) {
  return autograd::grad({out}, {x}, {grad_out.defined() ? grad_out : ones_like(out)}, std::nullopt,
                        create_graph)[0];
}

}  // namespace ember::grad_testing
