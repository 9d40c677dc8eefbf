// gradcheck: numerical Jacobians by central differences, analytical ones by one vector-Jacobian
// product per output element (PyTorch's slow mode), or both contracted with random vectors
// (fast mode). Messages as torch.autograd.gradcheck's.
#include "ember/autograd/gradcheck.h"

#include <sstream>

#include "ember/autograd/autograd.h"
#include "ember/grad_mode.h"
#include "ember/ops/factory.h"
#include "ember/ops/random.h"
#include "ember/print.h"
#include "ember/warning.h"

namespace ember::autograd {

namespace {

// Element `flat` (row-major) of `t`, as a 0-d view of its data (Tensor.data: no history and
// its own version counter, so perturbing and restoring it leaves t's graph valid).
Tensor element(const Tensor& t, int64_t flat) {
  Tensor e = t.variable_data();
  DimVector idx(static_cast<size_t>(t.dim()));
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    idx[static_cast<size_t>(d)] = flat % t.size(d);
    flat /= t.size(d);
  }
  for (int64_t i : idx) e = e.select(0, i);
  return e;
}

// The differentiable outputs of fn (tensors that require grad), flattened and cast to double.
tensor_list differentiable(const tensor_list& outs) {
  tensor_list r;
  for (const auto& o : outs)
    if (o.defined() && o.requires_grad()) r.push_back(o);
  return r;
}

// fn runs with grad mode as the caller has it (gradgradcheck's fn differentiates inside).
tensor_list run_detached(const DifferentiableFn& fn, const tensor_list& inputs) {
  tensor_list outs = fn(inputs);
  NoGradGuard no_grad;
  for (auto& o : outs)
    if (o.defined()) o = o.to(kFloat64).contiguous().clone();
  return outs;
}

// Which outputs are differentiable (by index into fn's outputs).
std::vector<size_t> differentiable_indices(const tensor_list& outs) {
  std::vector<size_t> r;
  for (size_t i = 0; i < outs.size(); ++i)
    if (outs[i].defined() && outs[i].requires_grad()) r.push_back(i);
  return r;
}

// numerical[i][o]: a (numel(input i), numel(output o)) float64 matrix.
std::vector<tensor_list> numerical_jacobians(const DifferentiableFn& fn, const tensor_list& inputs,
                                             const std::vector<size_t>& diff_inputs,
                                             const std::vector<size_t>& diff_outputs,
                                             double eps) {
  std::vector<tensor_list> jac;
  for (size_t i : diff_inputs) {
    const Tensor& x = inputs[i];
    tensor_list per_output;
    tensor_list base = run_detached(fn, inputs);
    for (size_t o : diff_outputs) per_output.push_back(zeros({x.numel(), base[o].numel()}, kFloat64));
    for (int64_t j = 0; j < x.numel(); ++j) {
      Tensor e = element(x, j);
      Tensor orig;
      {
        NoGradGuard no_grad;
        orig = e.clone();
        e.copy_(orig - eps);
      }
      tensor_list minus = run_detached(fn, inputs);
      {
        NoGradGuard no_grad;
        e.copy_(orig + eps);
      }
      tensor_list plus = run_detached(fn, inputs);
      {
        NoGradGuard no_grad;
        e.copy_(orig);
      }
      NoGradGuard no_grad;
      for (size_t k = 0; k < diff_outputs.size(); ++k) {
        const size_t o = diff_outputs[k];
        per_output[k].select(0, j).copy_(((plus[o] - minus[o]) / (2 * eps)).view({-1}));
      }
    }
    jac.push_back(std::move(per_output));
  }
  return jac;
}

struct Analytical {
  std::vector<tensor_list> jac;  // [input][output]
  bool reentrant = true;
  bool correct_size = true;
  bool correct_dtype = true;
};

Analytical analytical_jacobians(const tensor_list& inputs, const std::vector<size_t>& diff_inputs,
                                const tensor_list& outputs, const std::vector<size_t>& diff_outputs,
                                double nondet_tol, bool check_grad_dtypes) {
  Analytical a;
  tensor_list diff_in;
  for (size_t i : diff_inputs) diff_in.push_back(inputs[i]);
  a.jac.resize(diff_inputs.size());
  for (size_t k = 0; k < diff_outputs.size(); ++k) {
    const Tensor& out = outputs[diff_outputs[k]];
    for (size_t ii = 0; ii < diff_inputs.size(); ++ii) {
      a.jac[ii].push_back(zeros({diff_in[ii].numel(), out.numel()}, kFloat64));
    }
    for (int64_t j = 0; j < out.numel(); ++j) {
      Tensor grad_out = zeros_like(out);
      {
        NoGradGuard no_grad;
        element(grad_out, j).fill_(1);
      }
      tensor_list g1 = grad({out}, diff_in, {grad_out}, true, false, true);
      tensor_list g2 = grad({out}, diff_in, {grad_out}, true, false, true);
      NoGradGuard no_grad;
      for (size_t ii = 0; ii < diff_in.size(); ++ii) {
        if (!g1[ii].defined()) continue;
        if (g1[ii].sizes() != diff_in[ii].sizes()) {
          a.correct_size = false;
          continue;
        }
        if (check_grad_dtypes && g1[ii].dtype() != diff_in[ii].dtype()) a.correct_dtype = false;
        Tensor col = g1[ii].to(kFloat64).contiguous().view({-1});
        if (g2[ii].defined()) {
          Tensor diff = (col - g2[ii].to(kFloat64).contiguous().view({-1})).abs();
          if (diff.numel() > 0 && diff.max().item<double>() > nondet_tol) a.reentrant = false;
        }
        a.jac[ii][k].select(1, j).copy_(col);
      }
    }
  }
  return a;
}

bool allclose(const Tensor& a, const Tensor& n, double rtol, double atol) {
  NoGradGuard no_grad;
  if (a.numel() == 0) return true;
  Tensor bad = (a - n).abs() > (n.abs() * rtol + atol);
  return !bad.any().item<bool>();
}

[[noreturn]] void fail(const std::string& msg) { throw GradcheckError(msg); }

void check_inputs(const tensor_list& inputs, std::vector<size_t>& diff_inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    if (!t.defined() || !t.requires_grad()) continue;
    diff_inputs.push_back(i);
    if (t.dtype() != kFloat64) {
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
  }
  EMBER_CHECK_VALUE(!diff_inputs.empty(),
                    "gradcheck expects at least one input tensor to require gradient, but none of "
                    "the them have requires_grad=True.");
}

std::string jacobian_report(size_t o, size_t i, const Tensor& numerical, const Tensor& analytical) {
  std::ostringstream os;
  os << "Jacobian mismatch for output " << o << " with respect to input " << i << ",\nnumerical:"
     << to_string(numerical) << "\nanalytical:" << to_string(analytical) << "\n";
  return os.str();
}

// Slow mode: whole Jacobians. Returns the failure message, or "" when they match.
std::string slow_check(const DifferentiableFn& fn, const tensor_list& inputs,
                       const std::vector<size_t>& diff_inputs, const GradcheckOptions& opt) {
  tensor_list outputs = fn(inputs);
  const std::vector<size_t> diff_outputs = differentiable_indices(outputs);
  if (diff_outputs.empty()) {
    // No differentiable output: the function must not depend on the inputs at all.
    tensor_list base = run_detached(fn, inputs);
    for (size_t ii = 0; ii < diff_inputs.size(); ++ii) {
      const Tensor& x = inputs[diff_inputs[ii]];
      for (int64_t j = 0; j < x.numel(); ++j) {
        Tensor e = element(x, j), orig;
        {
          NoGradGuard no_grad;
          orig = e.clone();
          e.copy_(orig + opt.eps);
        }
        tensor_list moved = run_detached(fn, inputs);
        NoGradGuard no_grad;
        e.copy_(orig);
        for (size_t o = 0; o < base.size(); ++o) {
          if (base[o].defined() && is_floating(base[o].dtype()) &&
              !allclose(moved[o], base[o], 0, 0)) {
            return "Numerical gradient for function expected to be zero";
          }
        }
      }
    }
    return "";
  }
  auto numerical = numerical_jacobians(fn, inputs, diff_inputs, diff_outputs, opt.eps);
  Analytical a = analytical_jacobians(inputs, diff_inputs, outputs, diff_outputs, opt.nondet_tol,
                                      opt.check_grad_dtypes);
  if (!a.correct_size) return "Analytical gradient has incorrect size";
  if (!a.correct_dtype) return "Gradient has dtype mismatch";
  for (size_t ii = 0; ii < diff_inputs.size(); ++ii) {
    for (size_t k = 0; k < diff_outputs.size(); ++k) {
      if (!allclose(a.jac[ii][k], numerical[ii][k], opt.rtol, opt.atol)) {
        return jacobian_report(diff_outputs[k], diff_inputs[ii], numerical[ii][k], a.jac[ii][k]);
      }
    }
  }
  if (!a.reentrant) {
    std::ostringstream os;
    os << "Backward is not reentrant, i.e., running backward with same input and grad_output "
          "multiple times gives different values, although analytical gradient matches numerical "
          "gradient.The tolerance for nondeterminism was "
       << opt.nondet_tol << ".";
    return os.str();
  }
  return "";
}

// Fast mode: v^T J u against the finite difference of fn along u, dotted with v.
std::string fast_check(const DifferentiableFn& fn, const tensor_list& inputs,
                       const std::vector<size_t>& diff_inputs, const GradcheckOptions& opt) {
  Generator gen;  // private: the user's random stream is untouched
  gen.manual_seed(0);
  tensor_list outputs = fn(inputs);
  const std::vector<size_t> diff_outputs = differentiable_indices(outputs);
  if (diff_outputs.empty()) return "";
  tensor_list us;
  for (size_t i : diff_inputs) {
    Tensor u = empty(inputs[i].sizes(), kFloat64);
    u.uniform_(0, 1, &gen);
    us.push_back(u / u.norm());
  }
  for (size_t k = 0; k < diff_outputs.size(); ++k) {
    const Tensor& out = outputs[diff_outputs[k]];
    Tensor v = empty(out.sizes(), kFloat64);
    v.uniform_(0, 1, &gen);
    v = v / v.norm();
    // Numerical: (f(x + eps u) - f(x - eps u)) / (2 eps), dotted with v.
    auto shifted = [&](double sign) {
      tensor_list shifted_inputs = inputs;
      NoGradGuard no_grad;
      for (size_t ii = 0; ii < diff_inputs.size(); ++ii) {
        const Tensor& x = inputs[diff_inputs[ii]];
        shifted_inputs[diff_inputs[ii]] = (x + us[ii].to(x.dtype()) * (sign * opt.eps)).to(x.dtype());
      }
      return run_detached(fn, shifted_inputs)[diff_outputs[k]];
    };
    double numerical;
    {
      Tensor plus = shifted(1), minus = shifted(-1);
      NoGradGuard no_grad;
      numerical = (((plus - minus) / (2 * opt.eps)) * v).sum().item<double>();
    }
    tensor_list diff_in;
    for (size_t i : diff_inputs) diff_in.push_back(inputs[i]);
    tensor_list g = grad({out}, diff_in, {v.to(out.dtype())}, true, false, true);
    double analytical = 0;
    {
      NoGradGuard no_grad;
      for (size_t ii = 0; ii < g.size(); ++ii) {
        if (g[ii].defined()) analytical += (g[ii].to(kFloat64) * us[ii]).sum().item<double>();
      }
    }
    // As PyTorch: the tolerance grows with the vectors' sums (each element's error adds up).
    double atol = opt.atol;
    {
      NoGradGuard no_grad;
      double u_sum = 0;
      for (const auto& u : us) u_sum += u.sum().item<double>();
      atol *= u_sum * v.sum().item<double>();
    }
    if (std::abs(analytical - numerical) > atol + opt.rtol * std::abs(numerical)) {
      std::ostringstream os;
      os << "Jacobian mismatch for output " << diff_outputs[k] << " with respect to input "
         << diff_inputs[0] << ",\nnumerical:" << numerical << "\nanalytical:" << analytical
         << "\n\nThe above quantities relating the numerical and analytical jacobians are computed "
            "\nin fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more "
            "background \nabout fast mode. Below, we recompute numerical and analytical "
            "jacobians in slow mode:\n\n"
         << slow_check(fn, inputs, diff_inputs, opt);
      return os.str();
    }
  }
  return "";
}

}  // namespace

bool gradcheck(const DifferentiableFn& fn, const tensor_list& inputs,
               const GradcheckOptions& options) {
  std::vector<size_t> diff_inputs;
  check_inputs(inputs, diff_inputs);  // errors here are raised whatever raise_exception says
  std::string failure = options.fast_mode ? fast_check(fn, inputs, diff_inputs, options)
                                          : slow_check(fn, inputs, diff_inputs, options);
  if (failure.empty()) {
    // Backward must scale by grad_output: zero grad_outputs give zero gradients.
    tensor_list outputs = fn(inputs);
    tensor_list diff_out = differentiable(outputs);
    tensor_list diff_in;
    for (size_t i : diff_inputs) diff_in.push_back(inputs[i]);
    if (!diff_out.empty()) {
      tensor_list zeros_out;
      for (const auto& o : diff_out) zeros_out.push_back(zeros_like(o));
      tensor_list g = grad(diff_out, diff_in, zeros_out, true, false, true);
      for (size_t ii = 0; ii < g.size() && failure.empty(); ++ii) {
        if (!g[ii].defined()) continue;
        if (g[ii].sizes() != diff_in[ii].sizes()) failure = "grad is incorrect size";
        else if (g[ii].device() != diff_in[ii].device()) failure = "grad is incorrect type";
        else if (!allclose(g[ii].to(kFloat64), zeros_like(g[ii], kFloat64), 0, 0))
          failure = "backward not multiplied by grad_output";
      }
    }
  }
  if (failure.empty()) return true;
  if (!options.raise_exception) return false;
  fail(failure);
}

bool gradgradcheck(const DifferentiableFn& fn, const tensor_list& inputs,
                   const tensor_list& grad_outputs, const GradcheckOptions& options) {
  std::vector<size_t> diff_inputs;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && inputs[i].requires_grad()) diff_inputs.push_back(i);
  tensor_list outputs = fn(inputs);
  tensor_list diff_out = differentiable(outputs);
  tensor_list gos = grad_outputs;
  if (gos.empty()) {
    for (const auto& o : diff_out) {
      Tensor g = empty(o.sizes(), o.dtype());
      {
        NoGradGuard no_grad;
        g.uniform_(-1, 1);
      }
      gos.push_back(g.requires_grad_());
    }
  }
  const size_t n_in = inputs.size();
  DifferentiableFn backward_fn = [fn, n_in, diff_inputs](const tensor_list& all) {
    tensor_list in(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n_in));
    tensor_list go(all.begin() + static_cast<std::ptrdiff_t>(n_in), all.end());
    tensor_list outs = differentiable(fn(in));
    tensor_list diff_in;
    for (size_t i : diff_inputs) diff_in.push_back(in[i]);
    tensor_list g = grad(outs, diff_in, go, true, true, true);
    tensor_list r;
    for (auto& t : g)
      if (t.defined()) r.push_back(t);
    return r;
  };
  tensor_list all = inputs;
  all.insert(all.end(), gos.begin(), gos.end());
  return gradcheck(backward_fn, all, options);
}

}  // namespace ember::autograd
