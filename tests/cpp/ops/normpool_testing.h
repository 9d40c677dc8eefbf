// Helpers of the normalization / pooling / pad / interpolate tests: the deterministic inputs of
// gen_normpool_expected.py, layouts (channels_last, strided), and a check of forward values and
// gradients against the pasted torch 1.13 numbers.
#pragma once

#include <cmath>
#include <functional>
#include <vector>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/gradcheck.h"
#include "normpool_expected.h"

namespace ember::normpool_testing {

using autograd::tensor_list;

/// a * sin(k * i + b) over `sizes`, row-major (the generator's wave).
inline Tensor wave(IntArrayRef sizes, ScalarType dtype = kFloat64, double k = 0.37, double b = 0.1,
                   double a = 3.0) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(k * static_cast<double>(i) + b) * a;
  return testing::from_values(v, sizes, dtype);
}
inline Tensor gwave(IntArrayRef sizes, ScalarType dtype = kFloat64) {
  return wave(sizes, dtype, 0.23, 0.4, 1.0);
}

/// The same values stored channels_last (a 4-d NCHW tensor with C the fastest dim).
inline Tensor channels_last(const Tensor& t) { return t.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}); }
/// The same values in a non-contiguous layout: every other element of the last dim of a wider buffer.
inline Tensor strided(const Tensor& t) {
  std::vector<int64_t> s = t.sizes().vec();
  s.back() *= 2;
  Tensor wide = full(s, 1e6, TensorOptions(t.dtype()));
  Tensor v = wide.slice(t.dim() - 1, 0, s.back(), 2);
  v.copy_(t);
  return v;
}

/// y = fn(inputs as leaves); checks y, then backward with gwave(y.shape) and each input's grad.
inline void expect_forward_backward(const std::function<Tensor(const tensor_list&)>& fn,
                                    const tensor_list& inputs, const std::vector<double>& out,
                                    const std::vector<std::vector<double>>& grads,
                                    double tol = 1e-9) {
  tensor_list leaves;
  for (const Tensor& t : inputs) leaves.push_back(t.detach().requires_grad_());
  Tensor y = fn(leaves);
  testing::expect_values(y, y.sizes(), out, tol, tol);
  autograd::backward({y}, {gwave(y.sizes(), y.dtype())});
  for (size_t i = 0; i < grads.size(); ++i) {
    SCOPED_TRACE("gradient of input " + std::to_string(i));
    ASSERT_TRUE(leaves[i].grad().defined());
    testing::expect_values(leaves[i].grad(), leaves[i].sizes(), grads[i], tol, tol);
  }
}

/// gradcheck and gradgradcheck (float64 inputs).
inline void expect_gradchecks(const autograd::DifferentiableFn& f, const tensor_list& inputs) {
  tensor_list leaves;
  for (const Tensor& t : inputs) leaves.push_back(t.detach().requires_grad_());
  try {
    EXPECT_TRUE(autograd::gradcheck(f, leaves));
  } catch (const Error& e) {
    ADD_FAILURE() << "gradcheck: " << e.what();
  }
  try {
    EXPECT_TRUE(autograd::gradgradcheck(f, leaves));
  } catch (const Error& e) {
    ADD_FAILURE() << "gradgradcheck: " << e.what();
  }
}

}  // namespace ember::normpool_testing
