// Shared by the optimizer tests: the parameters and gradients that
// tests/python/optim/make_cpp_references.py gives torch, and a checker for a multi-step run.
#pragma once

#include <ember/optim.h>

#include <utility>
#include <vector>

#include "testing.h"

namespace ember::optim {

/// w = [0.5, -1.25, 2.0], b = [[0.1, -0.2, 0.3], [1.5, -0.75, 0.05]], leaves requiring grad.
inline std::pair<Tensor, Tensor> ref_params(ScalarType dtype = kFloat32) {
  Tensor w = testing::from_values({0.5, -1.25, 2.0}, {3}, dtype).requires_grad_();
  Tensor b =
      testing::from_values({0.1, -0.2, 0.3, 1.5, -0.75, 0.05}, {2, 3}, dtype).requires_grad_();
  return {w, b};
}

/// The gradients of step s (from 0), computed with the same float ops as torch's
/// w * 0.7 + (-0.05) * (s + 1) and b * -0.4 + 0.02 * (s + 1).
inline void set_ref_grads(const Tensor& w, const Tensor& b, int s) {
  NoGradGuard g;
  w.set_grad(w.detach() * 0.7 + (-0.05) * (s + 1));
  b.set_grad(b.detach() * -0.4 + 0.02 * (s + 1));
}

/// Float rounding: torch's addcmul (Adam's second moment) is a fused multiply-add in its AVX2
/// build, which ember composes from a multiply and an add; Adam's float32 results may then differ
/// in the last bit or two (SGD's agree bit for bit; measured over tests/python/optim: 97.6% of
/// float32 elements bit-equal, the rest within a few ulps).
inline double run_rtol(ScalarType dtype) { return dtype == kFloat64 ? 1e-13 : 2e-6; }

/// Steps `opt` once per row of `expected` (w's values then b's, after that step).
inline void expect_run(Optimizer& opt, const Tensor& w, const Tensor& b,
                       const std::vector<std::vector<double>>& expected) {
  const double rtol = run_rtol(w.dtype());
  for (size_t s = 0; s < expected.size(); ++s) {
    SCOPED_TRACE("step " + std::to_string(s));
    set_ref_grads(w, b, static_cast<int>(s));
    opt.step();
    std::vector<double> got = testing::values(w.detach());
    std::vector<double> bv = testing::values(b.detach());
    got.insert(got.end(), bv.begin(), bv.end());
    ASSERT_EQ(got.size(), expected[s].size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], expected[s][i], rtol * std::abs(expected[s][i]) + rtol * 1e-2)
          << "at " << i;
    }
  }
}

}  // namespace ember::optim
