// gradcheck's fast mode (PyTorch's _fast_gradcheck, pytorch/pytorch#53876): instead of whole
// Jacobians, the scalar v^T J u for a random unit vector u per input and v per output, computed
// numerically (the central difference of fn along u, dotted with v) and analytically (one
// backward with grad_output v, dotted with u). A complex input gets two vectors, ur for its real
// and ui for its imaginary part (Note [Complex gradcheck] in gradcheck.cpp): the numerical side is
// v·(ds/dx along ur + i ds/dy along ui), the analytical side real(vJ)·ur + i imag(vJ)·ui.
#include <complex>
#include <limits>

#include "ember/autograd/autograd.h"
#include "ember/generator.h"
#include "ember/grad_mode.h"
#include "ember/ops/linalg.h"
#include "ember/ops/complex.h"
#include "ember/ops/factory.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/random.h"
#include "ember/print.h"
#include "gradcheck_impl.h"

namespace ember::autograd::gradcheck_detail {

namespace {

// A random unit vector with x's number of elements (_vec_from_tensor): uniform [0, 1) float32
// draws, cast, normalized.
Tensor vec_from_tensor(const Tensor& x, Generator& gen, bool downcast_complex) {
  const ScalarType dt = downcast_complex ? to_real_value_type(x.dtype()) : x.dtype();
  Tensor vec = rand({x.numel()}, TensorOptions(kFloat32), &gen).to(dt);
  return vec / vec.norm();
}

struct Vectors {
  tensor_list ur, ui;  // per input requiring grad; ui only for complex inputs
  tensor_list v;       // per differentiable output
};

Vectors make_vectors(const tensor_list& diff_in, const tensor_list& outputs) {
  Generator gen;  // its own generator, PyTorch's default seed: the user's stream is untouched
  NoGradGuard no_grad;
  Vectors r;
  for (const auto& inp : diff_in) {
    r.ur.push_back(vec_from_tensor(inp, gen, true));
    r.ui.push_back(inp.is_complex() ? vec_from_tensor(inp, gen, true) : Tensor());
  }
  for (const auto& out : outputs) r.v.push_back(vec_from_tensor(out, gen, false));
  return r;
}

// The numerical J u of every output of fn, for input i (_get_numerical_jvp_wrt_specific_input).
tensor_list numerical_ju(const Fn& fn, const tensor_list& inputs, const Tensor& input,
                         const Tensor& ur, const Tensor& ui, double eps) {
  const Tensor data = input.variable_data();
  Delta re{Scalar(0), {}}, im{Scalar(0), {}};
  {
    NoGradGuard no_grad;
    re.tensor = ur.reshape(data.sizes()) * Scalar(eps);
    if (ui.defined())
      im.tensor = (ui.reshape(data.sizes()) * Scalar(eps)) * Scalar(std::complex<double>(0, 1));
  }
  return numerical_jvps(fn, inputs, data, re, im, data.is_complex(), eps, false);
}

// [input][output] v·Ju (_get_numerical_vJu): the Ju of the float and complex outputs of
// func_out, paired in order with the vectors of the differentiable outputs, as PyTorch pairs them.
std::vector<tensor_list> numerical_vju(const Fn& fn, const tensor_list& inputs,
                                       const tensor_list& func_out, const Vectors& vec, double eps) {
  const tensor_list diff_in = diff_inputs(inputs);
  std::vector<tensor_list> r;
  for (size_t i = 0; i < diff_in.size(); ++i) {
    const tensor_list all_ju = numerical_ju(fn, inputs, diff_in[i], vec.ur[i], vec.ui[i], eps);
    NoGradGuard no_grad;
    tensor_list filtered;
    for (size_t k = 0; k < all_ju.size() && k < func_out.size(); ++k)
      if (float_or_complex(func_out[k])) filtered.push_back(all_ju[k]);
    tensor_list scalars;
    for (size_t j = 0; j < vec.v.size() && j < filtered.size(); ++j)
      scalars.push_back((vec.v[j] * filtered[j]).sum());
    r.push_back(std::move(scalars));
  }
  return r;
}

// [output][input] (v^T J) u (_get_analytical_vJu_backward_mode).
std::vector<tensor_list> analytical_vju(const tensor_list& diff_in, const tensor_list& outputs,
                                        const Vectors& vec, const GradcheckOptions& o) {
  std::vector<tensor_list> r;
  for (size_t j = 0; j < outputs.size(); ++j) {
    const tensor_list all_vj =
        analytical_jacobian(diff_in, outputs[j], o.nondet_tol, o.check_grad_dtypes, vec.v[j]);
    NoGradGuard no_grad;
    tensor_list scalars;
    for (size_t i = 0; i < all_vj.size(); ++i) {
      const Tensor vj = all_vj[i].t().squeeze(0);
      if (vj.is_complex()) {
        const Tensor tv = view_as_real(vj);
        scalars.push_back(matmul(tv.select(-1, 0), vec.ur[i]) +
                          matmul(tv.select(-1, 1), vec.ui[i]) * Scalar(std::complex<double>(0, 1)));
      } else {
        scalars.push_back(matmul(vj, vec.ur[i]));
      }
    }
    r.push_back(std::move(scalars));
  }
  return r;
}

const char* const kFastFailSlowOkMsg =
    "Fast gradcheck failed but element-wise differences are small. This means that the\n"
    "test might've passed in slow_mode!\n\n"
    "If you are adding a new operator, please file an issue and then use one of the\n"
    "workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:\n\n"
    "If the test\n"
    "- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n"
    "  with `fast_mode=False` as a keyword argument.\n"
    "- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n"
    "  to have `gradcheck_fast_mode=False`\n"
    "- is a Module test (e.g., in common_nn.py), then modify the corresponding\n"
    "  module_test entry to have `gradcheck_fast_mode=False`";

// The slow-mode Jacobians of one (input, output) pair for the failure message
// (_run_slow_mode_and_get_error; PyTorch's numerical step there is its default 1e-3).
std::string slow_mode_report(const Fn& fn, const tensor_list& inputs, const tensor_list& outputs,
                             size_t input_idx, size_t output_idx, double rtol, double atol) {
  const Tensor numerical = numerical_jacobian(fn, inputs, outputs, 1e-3).at(input_idx).at(output_idx);
  const Tensor analytical = analytical_jacobian(diff_inputs(inputs), outputs.at(output_idx),
                                                std::numeric_limits<double>::infinity(), false)
                                .at(input_idx);
  NoGradGuard no_grad;
  const double max_diff = (numerical - analytical).abs().max().item<double>();
  const bool slow_ok = allclose(analytical, numerical, rtol, atol);
  std::string msg =
      "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
      "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
      "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
      "Numerical:\n " + to_string(numerical) + "\nAnalytical:\n" + to_string(analytical) +
      "\n\nThe max per-element difference (slow mode) is: " + py_float_repr(max_diff) + ".\n";
  if (slow_ok) msg += kFastFailSlowOkMsg;
  return msg;
}

}  // namespace

void fast_gradcheck(const Fn& fn, const tensor_list& func_out, const tensor_list& inputs,
                    const tensor_list& outputs, const GradcheckOptions& o, const Part& part) {
  const tensor_list diff_in = diff_inputs(inputs);
  const Vectors vec = make_vectors(diff_in, outputs);
  const std::vector<tensor_list> numerical = numerical_vju(fn, inputs, func_out, vec, o.eps);
  if (outputs.empty()) {
    // No differentiable output: the function must not move along any u.
    for (size_t i = 0; i < diff_in.size(); ++i) {
      for (const Tensor& jvp : numerical_ju(fn, inputs, diff_in[i], vec.ur[i], vec.ui[i], o.eps)) {
        NoGradGuard no_grad;
        if (jvp.numel() != 0 && jvp.abs().max().item<double>() > o.nondet_tol)
          fail("Numerical gradient for function expected to be zero");
      }
    }
  }
  const std::vector<tensor_list> analytical = analytical_vju(diff_in, outputs, vec, o);
  for (size_t i = 0; i < numerical.size(); ++i) {
    for (size_t j = 0; j < numerical[i].size(); ++j) {
      const Tensor& a = analytical.at(j).at(i);
      const Tensor& n = numerical[i][j];
      // The tolerance grows with the vectors: |v^T (A - B) u| <= atol * sum(u) * sum(v).
      double atol;
      {
        NoGradGuard no_grad;
        atol = o.atol * vec.ur[i].sum().item<double>() * vec.v[j].sum().item<double>();
      }
      if (!allclose_promoted(a, n, o.rtol, atol)) {
        fail(notallclose_msg(a, n, j, i, part) +
             slow_mode_report(fn, inputs, outputs, i, j, o.rtol, o.atol));
      }
    }
  }
}

}  // namespace ember::autograd::gradcheck_detail
