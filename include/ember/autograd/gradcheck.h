// gradcheck / gradgradcheck: compare the gradients autograd computes with finite differences
// (torch.autograd.gradcheck). For users' own Functions and for every built-in rule.
//
//   auto f = [](const ember::autograd::tensor_list& in) { return ember::autograd::tensor_list{
//       MyFn::apply(in[0], in[1])}; };
//   bool ok = ember::autograd::gradcheck(f, {x, w});   // throws GradcheckError with both Jacobians
#pragma once

#include <functional>

#include "ember/autograd/node.h"
#include "ember/error.h"

namespace ember::autograd {

/// A failed check (PyTorch's GradcheckError, a RuntimeError).
class GradcheckError : public Error {
 public:
  explicit GradcheckError(std::string msg) : Error(std::move(msg), ErrorKind::Runtime) {}
};

struct GradcheckOptions {
  double eps = 1e-6;   // finite-difference step
  double atol = 1e-5;  // |analytical - numerical| <= atol + rtol * |numerical|
  double rtol = 1e-3;
  bool raise_exception = true;  // false: return false instead of throwing GradcheckError
  double nondet_tol = 0.0;      // allowed difference between two identical backward runs
  bool check_grad_dtypes = false;
  /// Compare v^T J u for random unit vectors instead of whole Jacobians (one backward per
  /// output instead of one per output element). On failure the slow-mode Jacobians are reported.
  bool fast_mode = false;
};

using DifferentiableFn = std::function<tensor_list(const tensor_list&)>;

/// Checks d(fn(inputs))/d(inputs) for every input that requires grad, against central
/// differences (perturbing each element by ±eps in place). Inputs should be float64.
bool gradcheck(const DifferentiableFn& fn, const tensor_list& inputs,
               const GradcheckOptions& options = {});

/// gradcheck of the backward itself: checks (inputs, grad_outputs) ↦ autograd::grad(fn(inputs),
/// inputs, grad_outputs, create_graph=true). Missing grad_outputs are random in [-1, 1).
bool gradgradcheck(const DifferentiableFn& fn, const tensor_list& inputs,
                   const tensor_list& grad_outputs = {}, const GradcheckOptions& options = {});

}  // namespace ember::autograd
