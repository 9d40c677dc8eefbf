// Internal pieces of gradcheck shared by its slow mode (gradcheck.cpp) and its fast mode
// (gradcheck_fast.cpp). Names follow torch/autograd/gradcheck.py, whose behaviour and messages
// these reproduce.
#pragma once

#include <string>
#include <vector>

#include "ember/autograd/gradcheck.h"
#include "ember/scalar.h"

namespace ember::autograd::gradcheck_detail {

using Fn = DifferentiableFn;

inline bool float_or_complex(const Tensor& t) {
  return t.defined() && (is_floating(t.dtype()) || t.is_complex());
}

/// The outputs that require grad (PyTorch's _differentiable_outputs).
tensor_list differentiable_outputs(const tensor_list& outs);
/// The inputs that require grad, in order (PyTorch's _iter_tensors(inputs, True)).
tensor_list diff_inputs(const tensor_list& inputs);

[[noreturn]] void fail(const std::string& msg);

/// A perturbation: a number added to one element (slow mode) or a tensor added to the whole
/// input (fast mode).
struct Delta {
  Scalar scalar;
  Tensor tensor;  // when defined, used instead of `scalar`
};

/// What the numerical derivative along a direction is (PyTorch's
/// _compute_numerical_jvps_wrt_specific_input): for a real input (f(x + d) - f(x - d)) / 2eps
/// for every output of fn (flattened); for a complex input the conjugate Wirtinger derivative
/// ds/dx + i ds/dy, with `re` perturbing the real part and `im` (an imaginary delta) the
/// imaginary part. `entry` is (a view of) the input's data, perturbed in place and restored.
/// `on_index`: slow mode's wording of the same-shape assertion.
tensor_list numerical_jvps(const Fn& fn, const tensor_list& inputs, const Tensor& entry,
                           const Delta& re, const Delta& im, bool complex_input, double eps,
                           bool on_index);

/// Slow mode's numerical Jacobians: [input requiring grad][float or complex output of
/// `outputs`], each (numel(input), numel(output)), complex for a complex input.
std::vector<tensor_list> numerical_jacobian(const Fn& fn, const tensor_list& inputs,
                                            const tensor_list& outputs, double eps);

/// The analytical Jacobians of `output` with respect to each of `diff_in` (input's dtype,
/// (numel(input), numel(output))) by one backward per output element, or, when `v` is defined
/// (fast mode), the single row v^T J as a (numel(input), 1) matrix. Computed twice: dtype, size
/// and reentrancy are checked as PyTorch's _check_analytical_jacobian_attributes does.
tensor_list analytical_jacobian(const tensor_list& diff_in, const Tensor& output,
                                double nondet_tol, bool check_grad_dtypes, const Tensor& v = {});

/// allclose after promoting both to a common dtype (_allclose_with_type_promotion).
bool allclose_promoted(const Tensor& a, const Tensor& b, double rtol, double atol);

/// Which part of complex outputs a check looks at (Note [Complex gradcheck]).
struct Part {
  std::vector<size_t> complex_indices;  // indices (among differentiable outputs) of complex ones
  bool test_imag = false;
};
std::string notallclose_msg(const Tensor& analytical, const Tensor& numerical, size_t output_idx,
                            size_t input_idx, const Part& part);

/// Fast mode (gradcheck_fast.cpp): v^T J u against the finite difference along u, dotted with v.
void fast_gradcheck(const Fn& fn, const tensor_list& func_out, const tensor_list& inputs,
                    const tensor_list& outputs, const GradcheckOptions& o, const Part& part);

}  // namespace ember::autograd::gradcheck_detail
