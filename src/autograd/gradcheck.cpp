// gradcheck: numerical Jacobians by central differences, analytical ones by one vector-Jacobian
// product per output element (PyTorch's slow mode; fast mode is in gradcheck_fast.cpp), then the
// checks torch.autograd.gradcheck makes after them (backward scales with grad_output, undefined
// output gradients are handled). Steps, their order and messages are torch 1.13's.
//
// Note [Complex gradcheck]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Autograd's gradient of a real loss L with respect to a complex z = x + iy is the conjugate
// Wirtinger derivative dL/dx + i dL/dy (docs/complex.md). gradcheck checks exactly that:
//  - a complex output is not checked as such: fn is checked twice, as imag(fn) (first) and as
//    real(fn), each a real-valued function, and a failure says "While considering the imaginary
//    (real) part of complex outputs only, ";
//  - for a complex input, each element is perturbed by ±eps along the real axis and by ±i·eps
//    along the imaginary one; the numerical column is ds/dx + i ds/dy, compared (complex
//    allclose) with the complex gradient autograd returns for a one-hot grad_output.
// So a backward that returns the conjugate of the right gradient, or a wrong imaginary part,
// fails, while ember's earlier check (real part only) let it pass.
#include "gradcheck_impl.h"

#include <complex>
#include <functional>
#include <sstream>

#include "autograd_meta.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/gradcheck_errors.h"
#include "ember/grad_mode.h"
#include "ember/ops/complex.h"
#include "ember/ops/factory.h"
#include "ember/ops/math.h"
#include "ember/ops/pointwise.h"
#include "ember/print.h"
#include "ember/warning.h"

namespace ember::autograd {

namespace gradcheck_detail {

tensor_list differentiable_outputs(const tensor_list& outs) {
  tensor_list r;
  for (const auto& o : outs)
    if (o.defined() && o.requires_grad()) r.push_back(o);
  return r;
}

tensor_list diff_inputs(const tensor_list& inputs) {
  tensor_list r;
  for (const auto& t : inputs)
    if (t.defined() && t.requires_grad()) r.push_back(t);
  return r;
}

void fail(const std::string& msg) { throw GradcheckError(msg); }

namespace {

// Element `flat` (row-major) of `data` as a 0-d view.
Tensor element(const Tensor& data, int64_t flat) {
  DimVector idx(static_cast<size_t>(data.dim()));
  for (int64_t d = data.dim() - 1; d >= 0; --d) {
    idx[static_cast<size_t>(d)] = flat % data.size(d);
    flat /= data.size(d);
  }
  Tensor e = data;
  for (int64_t i : idx) e = e.select(0, i);
  return e;
}

Tensor shifted(const Tensor& orig, const Delta& d, bool plus) {
  if (d.tensor.defined()) return plus ? orig + d.tensor : orig - d.tensor;
  return plus ? orig + d.scalar : orig - d.scalar;
}

tensor_list cloned(const tensor_list& outs) {
  tensor_list r;
  for (const auto& o : outs) r.push_back(o.defined() ? o.clone() : o);
  return r;
}

// PyTorch's _check_outputs_same_dtype_and_shape (its "on index {idx} " is printed literally: the
// string is not an f-string there).
void check_same_dtype_and_shape(const Tensor& a, const Tensor& b, double eps, bool on_index) {
  const std::string where = on_index ? "on index {idx} " : "";
  if (a.sizes() != b.sizes()) {
    throw AssertionError("Expected `func` to return outputs with the same shape when inputs are "
                         "perturbed " + where + "by " + py_float_repr(eps) + ", but got: shapes " +
                         size_str(a.sizes()) + " and " + size_str(b.sizes()) + ".");
  }
  if (a.dtype() != b.dtype()) {
    throw AssertionError("Expected `func` to return outputs with the same dtype when inputs are "
                         "perturbed " + where + "by " + py_float_repr(eps) + ", but got: dtypes " +
                         dtype_repr(a.dtype()) + " and " + dtype_repr(b.dtype()) + ".");
  }
}

// (f(entry + d) - f(entry - d)) / (2 eps), flattened, for each output (_compute_numerical_gradient).
tensor_list central_difference(const Fn& fn, const tensor_list& inputs, const Tensor& entry,
                               const Delta& d, double eps, bool on_index) {
  Tensor target = entry;
  Tensor orig = entry.clone();
  target.copy_(shifted(orig, d, false));
  tensor_list a = cloned(fn(inputs));
  target.copy_(shifted(orig, d, true));
  tensor_list b = cloned(fn(inputs));
  target.copy_(orig);
  tensor_list r;
  for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
    if (!a[k].defined() || !b[k].defined()) continue;  // (C++ functions may return undefined)
    check_same_dtype_and_shape(a[k], b[k], eps, on_index);
    r.push_back(((b[k] - a[k]) / Scalar(2 * eps)).detach().reshape({-1}));
  }
  return r;
}

}  // namespace

tensor_list numerical_jvps(const Fn& fn, const tensor_list& inputs, const Tensor& entry,
                           const Delta& re, const Delta& im, bool complex_input, double eps,
                           bool on_index) {
  tensor_list ds_dx = central_difference(fn, inputs, entry, re, eps, on_index);
  if (!complex_input) return ds_dx;
  tensor_list ds_dy = central_difference(fn, inputs, entry, im, eps, on_index);
  tensor_list r;
  for (size_t k = 0; k < ds_dx.size() && k < ds_dy.size(); ++k) {
    EMBER_CHECK(!ds_dx[k].is_complex(), "gradcheck: a complex output reached the numerical "
                "derivative of a complex input");
    r.push_back(ds_dx[k] + ds_dy[k] * Scalar(std::complex<double>(0, 1)));  // conjugate Wirtinger
  }
  return r;
}

std::vector<tensor_list> numerical_jacobian(const Fn& fn, const tensor_list& inputs,
                                            const tensor_list& outputs, double eps) {
  for (const auto& o : outputs) {
    if (o.defined() && o.is_complex()) {
      throw ValueError("Expected output to be non-complex. get_numerical_jacobian no longer "
                       "supports functions that return complex outputs.");
    }
  }
  std::vector<tensor_list> jacobians;
  for (const Tensor& input : diff_inputs(inputs)) {
    const Tensor data = input.variable_data();
    const bool cplx = data.is_complex();
    tensor_list jac;  // one per float or complex output, as _allocate_jacobians_with_outputs
    for (const auto& o : outputs) {
      if (float_or_complex(o)) {
        jac.push_back(zeros({input.numel(), o.numel()}, cplx ? input.dtype() : o.dtype()));
      }
    }
    const Delta re{Scalar(eps), {}}, im{Scalar(std::complex<double>(0, eps)), {}};
    for (int64_t j = 0; j < data.numel(); ++j) {
      tensor_list cols = numerical_jvps(fn, inputs, element(data, j), re, im, cplx, eps, true);
      NoGradGuard no_grad;
      // Column k of the outputs' differences goes to the k-th Jacobian (PyTorch pairs them by
      // position, whatever the outputs' dtypes).
      for (size_t k = 0; k < jac.size() && k < cols.size(); ++k) jac[k].select(0, j).copy_(cols[k]);
    }
    jacobians.push_back(std::move(jac));
  }
  return jacobians;
}

namespace {

// rows[i][j]: the gradient of input i for the j-th grad_output (undefined when unused).
std::vector<tensor_list> vjp_rows(const tensor_list& diff_in, const Tensor& output, const Tensor& v) {
  std::vector<tensor_list> rows(diff_in.size());
  auto vjp = [&](const Tensor& grad_output) {
    tensor_list g = grad({output}, diff_in, {grad_output}, true, false, true);
    for (size_t i = 0; i < g.size() && i < rows.size(); ++i)
      rows[i].push_back(g[i].defined() ? g[i].clone() : Tensor());
  };
  if (v.defined()) {
    vjp(v.reshape(output.sizes()));
    return rows;
  }
  Tensor base = zeros_like(output).contiguous();
  Tensor flat = base.view({-1});
  for (int64_t j = 0; j < flat.numel(); ++j) {
    {
      NoGradGuard no_grad;
      flat.zero_();
      flat.select(0, j).fill_(1);
    }
    vjp(base);
  }
  return rows;
}

// _stack_and_check_tensors: the rows as (numel(input), numel_outputs) matrices of the input's dtype.
tensor_list stack_rows(const std::vector<tensor_list>& rows, const tensor_list& diff_in,
                       int64_t numel_outputs, bool& sizes_ok, bool& types_ok) {
  NoGradGuard no_grad;
  tensor_list out;
  for (size_t i = 0; i < diff_in.size(); ++i) {
    const Tensor& inp = diff_in[i];
    Tensor jac = zeros({inp.numel(), numel_outputs}, inp.dtype());
    for (size_t j = 0; j < rows[i].size(); ++j) {
      const Tensor& g = rows[i][j];
      if (!g.defined()) continue;
      if (g.sizes() != inp.sizes()) sizes_ok = false;
      else if (g.dtype() != inp.dtype()) types_ok = false;
      if (g.numel() != inp.numel()) throw AssertionError("");
      jac.select(1, static_cast<int64_t>(j)).copy_(g.reshape({-1}));
    }
    out.push_back(std::move(jac));
  }
  return out;
}

const char* const kFailedNondetMsg =
    "\n\nNOTE: If your op relies on non-deterministic operations i.e., it is listed here:\n"
    "https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html\n"
    "this failure might be expected.\n\n"
    "If you are adding a new operator, please file an issue and then use one of the\n"
    "workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.\n"
    "If the test\n"
    "- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n"
    "  with `nondet_tol=<tol>` as a keyword argument.\n"
    "- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n"
    "  to have `gradcheck_nondet_tol=<tol>`.\n"
    "- is a Module test (e.g., in common_nn.py), then modify the corresponding\n"
    "  module_test entry to have `gradcheck_nondet_tol=<tol>`\n";

}  // namespace

tensor_list analytical_jacobian(const tensor_list& diff_in, const Tensor& output,
                                double nondet_tol, bool check_grad_dtypes, const Tensor& v) {
  // Everything twice, to check for nondeterminism ("reentrancy").
  const std::vector<tensor_list> rows1 = vjp_rows(diff_in, output, v);
  const std::vector<tensor_list> rows2 = vjp_rows(diff_in, output, v);
  const int64_t numel = v.defined() ? 1 : output.numel();
  bool sizes_ok = true, types_ok = true, unused1 = true, unused2 = true;
  tensor_list jac1 = stack_rows(rows1, diff_in, numel, sizes_ok, types_ok);
  tensor_list jac2 = stack_rows(rows2, diff_in, numel, unused1, unused2);
  bool reentrant = true;
  {
    NoGradGuard no_grad;
    for (size_t i = 0; i < jac1.size(); ++i) {
      if (jac1[i].numel() != 0 && (jac1[i] - jac2[i]).abs().max().item<double>() > nondet_tol)
        reentrant = false;
    }
  }
  // PyTorch unpacks _stack_and_check_tensors' (sizes, types) flags in the other order, so a
  // size problem is reported as a dtype mismatch (when asked) and a dtype one as a size problem.
  if (!sizes_ok && check_grad_dtypes) fail("Gradient has dtype mismatch");
  if (!types_ok) fail("Analytical gradient has incorrect size");
  if (!reentrant) {
    fail("Backward is not reentrant, i.e., running backward with same input and grad_output "
         "multiple times gives different values, although analytical gradient matches numerical "
         "gradient.The tolerance for nondeterminism was " + py_float_repr(nondet_tol) + "." +
         kFailedNondetMsg);
  }
  return jac1;
}

bool allclose_promoted(const Tensor& a, const Tensor& b, double rtol, double atol) {
  NoGradGuard no_grad;
  const ScalarType t = promote_types(a.dtype(), b.dtype());
  return allclose(a.to(t), b.to(t), rtol, atol);
}

std::string notallclose_msg(const Tensor& analytical, const Tensor& numerical, size_t output_idx,
                            size_t input_idx, const Part& part) {
  std::ostringstream os;
  for (size_t c : part.complex_indices) {
    if (c == output_idx) {
      os << "While considering the " << (part.test_imag ? "imaginary" : "real")
         << " part of complex outputs only, ";
      break;
    }
  }
  os << "Jacobian mismatch for output " << output_idx << " with respect to input " << input_idx
     << ",\nnumerical:" << to_string(numerical) << "\nanalytical:" << to_string(analytical) << "\n";
  return os.str();
}

namespace {

void check_no_differentiable_outputs(const Fn& fn, const tensor_list& inputs,
                                     const tensor_list& func_out, double eps) {
  for (const auto& per_input : numerical_jacobian(fn, inputs, func_out, eps)) {
    for (const auto& jac : per_input) {
      NoGradGuard no_grad;
      if (ne(jac, Scalar(0)).sum().item<int64_t>() > 0)
        fail("Numerical gradient for function expected to be zero");
    }
  }
}

void slow_gradcheck(const Fn& fn, const tensor_list& func_out, const tensor_list& inputs,
                    const tensor_list& outputs, const GradcheckOptions& o, const Part& part) {
  if (outputs.empty()) return check_no_differentiable_outputs(fn, inputs, func_out, o.eps);
  const std::vector<tensor_list> by_input = numerical_jacobian(fn, inputs, func_out, o.eps);
  // Transposed to [output][input], keeping the outputs that require grad (PyTorch zips the
  // outputs with the Jacobians of the float ones).
  std::vector<tensor_list> numerical;
  const size_t n_float = by_input.empty() ? 0 : by_input[0].size();
  for (size_t k = 0; k < func_out.size() && k < n_float; ++k) {
    if (!func_out[k].requires_grad()) continue;
    tensor_list per_input;
    for (const auto& in : by_input) per_input.push_back(in[k]);
    numerical.push_back(std::move(per_input));
  }
  const tensor_list diff_in = diff_inputs(inputs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    tensor_list analytical = analytical_jacobian(diff_in, outputs[i], o.nondet_tol,
                                                 o.check_grad_dtypes);
    for (size_t j = 0; j < analytical.size() && i < numerical.size(); ++j) {
      if (!allclose_promoted(analytical[j], numerical[i][j], o.rtol, o.atol))
        fail(notallclose_msg(analytical[j], numerical[i][j], i, j, part));
    }
  }
}

// fn with real() or imag() applied to its complex outputs (_real_and_imag_output).
Fn complex_outputs_part(const Fn& fn, bool imag_part) {
  return [fn, imag_part](const tensor_list& in) {
    tensor_list outs = fn(in);
    for (auto& t : outs)
      if (t.defined() && t.is_complex()) t = imag_part ? imag(t) : real(t);
    return outs;
  };
}

[[noreturn]] void refuse(const char* option, const char* needs) {
  throw NotImplementedError(std::string("gradcheck: ") + option + "=True needs " + needs +
                            ", which ember does not have");
}

void gradcheck_real_imag(const Fn& fn, const tensor_list& func_out, const tensor_list& inputs,
                         const tensor_list& outputs, const GradcheckOptions& o) {
  auto check = o.fast_mode ? fast_gradcheck : slow_gradcheck;
  if (o.check_backward_ad) {
    Part part;
    bool any_complex = false;
    for (size_t i = 0; i < outputs.size(); ++i)
      if (outputs[i].is_complex()) part.complex_indices.push_back(i);
    for (const auto& t : func_out) any_complex |= t.defined() && t.is_complex();
    if (any_complex) {
      for (bool imag_part : {true, false}) {
        const Fn part_fn = complex_outputs_part(fn, imag_part);
        const tensor_list part_out = part_fn(inputs);
        part.test_imag = imag_part;
        check(part_fn, part_out, inputs, differentiable_outputs(part_out), o, part);
      }
    } else {
      check(fn, func_out, inputs, outputs, o, part);
    }
  }
  if (o.check_forward_ad) refuse("check_forward_ad", "forward-mode AD");
}

void test_backward_mul_by_grad_output(const tensor_list& outputs, const tensor_list& inputs,
                                      bool check_sparse_nnz) {
  const tensor_list diff_in = diff_inputs(inputs);
  if (diff_in.empty()) fail("no Tensors requiring grad found in input");
  tensor_list zeros_out;
  for (const auto& o : outputs) zeros_out.push_back(zeros_like(o));
  const tensor_list g = grad(outputs, diff_in, zeros_out, std::nullopt, false, true);
  NoGradGuard no_grad;
  for (size_t i = 0; i < g.size(); ++i) {
    const Tensor& gi = g[i];
    const Tensor& di = diff_in[i];
    if (!gi.defined()) continue;
    const bool zero = check_sparse_nnz ? allclose(gi, zeros_like(gi)) : eq(gi, Scalar(0)).all().item<bool>();
    if (!zero) fail("backward not multiplied by grad_output");
    if (gi.dtype() != di.dtype() || gi.device() != di.device()) fail("grad is incorrect type");
    if (gi.sizes() != di.sizes()) fail("grad is incorrect size");
  }
}

// PyTorch's torch._C._functions.UndefinedGrad: the output is its input's data with a history
// whose backward passes on an undefined gradient, whatever it gets.
class UndefinedGradBackward final : public Node {
 public:
  std::string name() const override { return "UndefinedGradBackward"; }
  tensor_list apply(tensor_list&&) override { return tensor_list(num_outputs()); }
};

Tensor undefined_grad(const Tensor& t) {
  auto node = std::make_shared<UndefinedGradBackward>();
  node->set_next_edges(collect_next_edges({t}));
  Tensor out = t.variable_data();
  set_history(out, node, node->add_input_metadata(out));
  return out;
}

std::function<bool(const std::exception&)>& foreign_runtime_error() {
  static std::function<bool(const std::exception&)> pred;
  return pred;
}

bool is_runtime_error(const std::exception& e) {
  if (const auto* err = dynamic_cast<const Error*>(&e)) {
    // Python's RuntimeError and its subclasses (NotImplementedError, LinAlgError).
    return err->kind() == ErrorKind::Runtime || err->kind() == ErrorKind::NotImplemented ||
           err->kind() == ErrorKind::LinAlg;
  }
  return foreign_runtime_error() && foreign_runtime_error()(e);
}

void test_undefined_backward_mode(const Fn& fn, const tensor_list& outputs,
                                  const tensor_list& inputs) {
  const tensor_list diff_in = diff_inputs(inputs);
  if (diff_in.empty()) fail("no Tensors requiring grad found in input");
  auto warn_bc_breaking = [] {
    EMBER_WARN("Backwards compatibility: New undefined gradient support checking feature is "
               "enabled by default, but it may break existing callers of this function. If this "
               "is true for you, you can call this function with \"check_undefined_grad=False\" "
               "to disable the feature");
  };
  // All output gradients undefined; then, with several outputs, one at a time.
  std::vector<tensor_list> to_check;
  tensor_list all;
  for (const auto& o : differentiable_outputs(fn(inputs))) all.push_back(undefined_grad(o));
  to_check.push_back(all);
  if (all.size() > 1) {
    for (size_t undef = 0; undef < outputs.size(); ++undef) {
      tensor_list outs = differentiable_outputs(fn(inputs));
      if (undef < outs.size()) outs[undef] = undefined_grad(outs[undef]);
      to_check.push_back(outs);
    }
  }
  for (const auto& outs : to_check) {
    tensor_list zeros_out;
    for (const auto& o : outs) zeros_out.push_back(zeros_like(o));
    tensor_list g;
    try {
      g = grad(outs, diff_in, zeros_out, std::nullopt, false, true);
    } catch (const std::exception& e) {
      if (!is_runtime_error(e)) throw;
      warn_bc_breaking();
      fail("Expected backward function to handle undefined output grads. Please look at \"Notes "
           "about undefined output gradients\" in \"tools/autograd/derivatives.yaml\"");
    }
    NoGradGuard no_grad;
    for (const auto& gi : g) {
      if (gi.defined() && !eq(gi, Scalar(0)).all().item<bool>()) {
        warn_bc_breaking();
        fail("Expected all input grads to be undefined or zero when all output grads are "
             "undefined or zero. Please look at \"Notes about undefined output gradients\" in "
             "\"tools/autograd/derivatives.yaml\"");
      }
    }
  }
}

void check_inputs(const tensor_list& inputs) {
  bool any = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    if (!t.defined() || !t.requires_grad()) continue;
    if (t.dtype() != kFloat64 && t.dtype() != kComplexDouble) {
      EMBER_WARN("Input #", i,
                 " requires gradient and is not a double precision floating point or complex. This "
                 "check will likely fail if all the inputs are not of double precision floating "
                 "point or complex. ");
    }
    for (int64_t d = 0; d < t.dim(); ++d) {
      EMBER_CHECK(!(t.stride(d) == 0 && t.size(d) > 1), "The ", i,
                  "th input has a dimension with stride 0. gradcheck only supports inputs that are "
                  "non-overlapping to be able to compute the numerical gradients correctly. You "
                  "should call .contiguous on the input before passing it to gradcheck.");
    }
    any = true;
  }
  EMBER_CHECK_VALUE(any,
                    "gradcheck expects at least one input tensor to require gradient, but none of "
                    "the them have requires_grad=True.");
}

void check_assertions(const GradcheckOptions& o) {
  if (!(o.check_forward_ad || o.check_backward_ad))
    throw AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True");
  if (o.check_batched_grad && !o.check_backward_ad)
    throw AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True");
  if (o.check_batched_forward_grad && !o.check_forward_ad)
    throw AssertionError(
        "Setting check_batched_forward_grad=True requires check_forward_ad to be True");
}

void gradcheck_helper(const Fn& fn, const tensor_list& inputs, const GradcheckOptions& o) {
  check_inputs(inputs);
  const tensor_list func_out = fn(inputs);
  const tensor_list outputs = differentiable_outputs(func_out);
  gradcheck_real_imag(fn, func_out, inputs, outputs, o);
  if (o.check_batched_forward_grad) refuse("check_batched_forward_grad", "vmap");
  if (!o.check_backward_ad) return;
  if (o.check_batched_grad && !outputs.empty()) refuse("check_batched_grad", "vmap");
  test_backward_mul_by_grad_output(outputs, inputs, o.check_sparse_nnz);
  if (o.check_undefined_grad) test_undefined_backward_mode(fn, outputs, inputs);
}

}  // namespace
}  // namespace gradcheck_detail

void set_gradcheck_runtime_error_predicate(
    std::function<bool(const std::exception&)> is_runtime_error) {
  gradcheck_detail::foreign_runtime_error() = std::move(is_runtime_error);
}

bool gradcheck(const DifferentiableFn& fn, const tensor_list& inputs,
               const GradcheckOptions& options) {
  gradcheck_detail::check_assertions(options);
  if (options.raise_exception) {
    gradcheck_detail::gradcheck_helper(fn, inputs, options);
    return true;
  }
  try {
    gradcheck_detail::gradcheck_helper(fn, inputs, options);
  } catch (const GradcheckError&) {
    return false;  // only failed checks; other errors (bad arguments) still raise
  }
  return true;
}

bool gradgradcheck(const DifferentiableFn& fn, const tensor_list& inputs,
                   const tensor_list& grad_outputs, const GradcheckOptions& options) {
  using gradcheck_detail::differentiable_outputs;
  if (!(options.check_forward_ad || options.check_backward_ad))
    throw AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True");
  if (options.check_undefined_grad && !options.check_backward_ad)
    throw AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True");
  if (options.check_batched_grad && !options.check_backward_ad)
    throw AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True");
  tensor_list gos = grad_outputs;
  if (gos.empty()) {
    // torch.testing.make_tensor(shape, low=-1, high=1, requires_grad=True, noncontiguous=...).
    for (const auto& o : differentiable_outputs(fn(inputs))) {
      const ScalarType dt = gradcheck_detail::float_or_complex(o) ? o.dtype() : kFloat64;
      Tensor g;
      {
        NoGradGuard no_grad;
        DimVector sizes(o.sizes().begin(), o.sizes().end());
        if (options.gen_non_contig_grad_outputs && o.numel() > 1) {
          sizes.back() *= 2;
          g = empty(sizes, dt).slice(-1, 0, std::nullopt, 2);
        } else {
          g = empty(sizes, dt);
        }
        (g.is_complex() ? view_as_real(g) : g).uniform_(-1, 1);
      }
      gos.push_back(g.requires_grad_());
    }
  }
  std::vector<size_t> diff_idx;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && inputs[i].requires_grad()) diff_idx.push_back(i);
  const size_t n_in = inputs.size();
  DifferentiableFn new_fn = [fn, n_in, diff_idx](const tensor_list& all) {
    const tensor_list in(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n_in));
    const tensor_list go(all.begin() + static_cast<std::ptrdiff_t>(n_in), all.end());
    const tensor_list outs = differentiable_outputs(fn(in));
    tensor_list diff_in;
    for (size_t i : diff_idx) diff_in.push_back(in[i]);
    tensor_list r;
    for (auto& t : grad(outs, diff_in, go, std::nullopt, true, true))
      if (t.defined()) r.push_back(t);
    return r;
  };
  tensor_list all = inputs;
  all.insert(all.end(), gos.begin(), gos.end());
  return gradcheck(new_fn, all, options);
}

}  // namespace ember::autograd
