// Helpers shared by the GradElementwise* tests: float64 leaves laid out in several ways, and
// gradcheck + gradgradcheck with a readable failure.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/gradcheck.h"
#include "ember/ember.h"

namespace ember::grad_testing {

using autograd::tensor_list;

/// A contiguous float64 leaf holding `v` (row-major) with `sizes`, owning its storage (not a
/// view, so that views of it are views of a leaf).
inline Tensor leaf(const std::vector<double>& v, IntArrayRef sizes) {
  return testing::from_values(v, sizes, kFloat64).clone().requires_grad_();
}

/// A {rows, cols} float64 leaf holding `v` row-major but stored column-major (a transposed view,
/// so not contiguous).
inline Tensor transposed_leaf(const std::vector<double>& v, int64_t rows, int64_t cols) {
  Tensor t = testing::from_values(v, {rows, cols}, kFloat64).t().contiguous().t();
  EXPECT_FALSE(t.is_contiguous());
  return t.requires_grad_();
}

/// A 1-d float64 leaf holding `v` every other element of a larger buffer (stride 2).
inline Tensor strided_leaf(const std::vector<double>& v) {
  std::vector<double> padded;
  for (double x : v) {
    padded.push_back(x);
    padded.push_back(1e6);  // never read: a wrong stride would show up in the values
  }
  const auto n = static_cast<int64_t>(padded.size());
  return testing::from_values(padded, {n}, kFloat64).slice(0, 0, n, 2).requires_grad_();
}

/// gradcheck and gradgradcheck of `f` at `inputs`; a mismatch fails the test with both
/// Jacobians and `what`.
inline void expect_gradchecks(const autograd::DifferentiableFn& f, const tensor_list& inputs,
                              const std::string& what) {
  try {
    EXPECT_TRUE(autograd::gradcheck(f, inputs)) << what;
  } catch (const Error& e) {
    ADD_FAILURE() << "gradcheck of " << what << ": " << e.what();
  }
  try {
    EXPECT_TRUE(autograd::gradgradcheck(f, inputs)) << what;
  } catch (const Error& e) {
    ADD_FAILURE() << "gradgradcheck of " << what << ": " << e.what();
  }
}

/// The gradient of `y` w.r.t. `x` for grad_output `go` (with create_graph), and the gradient of
/// its sum w.r.t. `x` again (zeros when the first does not depend on x).
inline std::pair<Tensor, Tensor> first_and_second(const Tensor& y, const Tensor& x,
                                                  const Tensor& go) {
  Tensor g = autograd::grad({y}, {x}, {go}, std::nullopt, /*create_graph=*/true)[0];
  Tensor gg;
  if (g.requires_grad()) {
    gg = autograd::grad({g.sum()}, {x}, {}, std::nullopt, false, /*allow_unused=*/true)[0];
  }
  if (!gg.defined()) gg = zeros_like(x);
  return {g.detach(), gg};
}

}  // namespace ember::grad_testing
