// gradcheck / gradgradcheck: compare the gradients autograd computes with finite differences
// (torch.autograd.gradcheck). For users' own Functions and for every built-in rule.
//
//   auto f = [](const ember::autograd::tensor_list& in) { return ember::autograd::tensor_list{
//       MyFn::apply(in[0], in[1])}; };
//   bool ok = ember::autograd::gradcheck(f, {x, w});   // throws GradcheckError with both Jacobians
//
// Complex inputs and outputs are checked as PyTorch does (Note [Complex gradcheck] in
// src/autograd/gradcheck.cpp): a complex output is checked as its imaginary part, then its real
// part; for a complex input the numerical conjugate Wirtinger derivative (perturbing the real and
// the imaginary part) is compared with the gradient autograd gives.
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

/// torch.autograd.gradcheck's keyword arguments.
struct GradcheckOptions {
  double eps = 1e-6;   // finite-difference step
  double atol = 1e-5;  // |analytical - numerical| <= atol + rtol * |numerical|
  double rtol = 1e-3;
  bool raise_exception = true;  // false: return false instead of throwing GradcheckError
  /// ember's tensors are dense: the only effect is that "backward multiplies by grad_output" is
  /// checked with allclose instead of exact zeros, as PyTorch does for dense inputs.
  bool check_sparse_nnz = false;
  double nondet_tol = 0.0;  // allowed difference between two identical backward runs
  /// Zero (undefined) output gradients must give zero or undefined input gradients.
  bool check_undefined_grad = true;
  bool check_grad_dtypes = false;
  /// These need vmap or forward-mode AD, which ember does not have: asking for them raises
  /// NotImplementedError at the point PyTorch would start that check.
  bool check_batched_grad = false;
  bool check_batched_forward_grad = false;
  bool check_forward_ad = false;
  bool check_backward_ad = true;
  /// Compare v^T J u for random unit vectors instead of whole Jacobians (one backward per
  /// output instead of one per output element). On failure the slow-mode Jacobians are reported.
  bool fast_mode = false;
  /// gradgradcheck only: the random grad_outputs it makes are non-contiguous.
  bool gen_non_contig_grad_outputs = false;
};

using DifferentiableFn = std::function<tensor_list(const tensor_list&)>;

/// Checks d(fn(inputs))/d(inputs) for every input that requires grad, against central
/// differences (perturbing each element by ±eps in place). Inputs should be float64 or
/// complex128 (others warn, as in PyTorch).
bool gradcheck(const DifferentiableFn& fn, const tensor_list& inputs,
               const GradcheckOptions& options = {});

/// gradcheck of the backward itself: checks (inputs, grad_outputs) ↦ autograd::grad(fn(inputs),
/// inputs, grad_outputs, create_graph=true). Missing grad_outputs are random in [-1, 1) (both
/// parts for complex outputs). options.check_forward_ad / check_backward_ad are PyTorch's
/// check_fwd_over_rev / check_rev_over_rev.
bool gradgradcheck(const DifferentiableFn& fn, const tensor_list& inputs,
                   const tensor_list& grad_outputs = {}, const GradcheckOptions& options = {});

}  // namespace ember::autograd
