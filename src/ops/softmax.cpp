// softmax / log_softmax (composite: convert to `dtype`, then the primitive) and the primitives
// _softmax / _log_softmax, which run the kernel of src/backends/cpu/softmax_kernels.cpp.
#include "../backends/cpu/softmax_kernels.h"
#include "../dispatch/boxing.h"
#include "ember/ops/reduce.h"
#include "elementwise.h"
#include "reduce_common.h"

namespace ember {

using dispatch::OpId;

namespace {

Tensor softmax_like(const char* name, const Tensor& self, int64_t dim, bool half_to_float, bool log) {
  ops::check_not_quantized(log ? "aten::_log_softmax" : "aten::_softmax", {self});
  const int64_t d = wrap_dim(dim, self.dim());
  const bool lastdim = self.dim() == 0 || d == self.dim() - 1;
  EMBER_CHECK(is_floating(self.dtype()), "\"", name, lastdim ? "_lastdim_kernel_impl" : "_kernel_impl",
              "\" not implemented for '", scalar_type_name(self.dtype()), "'");
  // PyTorch 1.13 refuses half_to_float on CPU; ember computes 16-bit inputs in float anyway and
  // supports it as PyTorch's CUDA backend does.
  EMBER_CHECK(!half_to_float || self.dtype() == kHalf || self.dtype() == kBFloat16, name,
              ": half_to_float=True expects a float16 or bfloat16 input, but got ",
              dtype_name(self.dtype()));
  ScalarType out_dtype = half_to_float ? kFloat32 : self.dtype();
  Tensor out = empty(self.sizes(), TensorOptions(out_dtype).device(self.device()));
  if (!out.is_meta()) cpu::softmax_kernel(out, self.contiguous(), self.dim() == 0 ? 0 : d, log);
  return out;
}

Tensor _softmax_impl(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_like("softmax", self, dim, half_to_float, false);
}
Tensor _log_softmax_impl(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_like("log_softmax", self, dim, half_to_float, true);
}

// As PyTorch's CPU path: `dtype` converts the input first, the primitive never widens.
Tensor softmax_int_impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return _softmax(dtype ? ops::cast(self, *dtype) : self, dim, false);
}
Tensor log_softmax_int_impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return _log_softmax(dtype ? ops::cast(self, *dtype) : self, dim, false);
}

// _softmax_backward_data / _log_softmax_backward_data (PyTorch's ops for the two gradients,
// Note [Backward formulas call ops]): grad and output of one floating dtype and shape; the
// result is contiguous, in grad's dtype, or in input_dtype when a float gradient comes back to
// a 16-bit input (half_to_float). The body is Tensor ops on plain tensors (below every layer).
Tensor softmax_backward_like(const char* name, const Tensor& grad, const Tensor& output,
                             int64_t dim, ScalarType input_dtype, bool log) {
  ops::check_not_quantized(log ? "aten::_log_softmax_backward_data" : "aten::_softmax_backward_data",
                           {grad, output});
  EMBER_CHECK(grad.sizes() == output.sizes(), "Expected tensor for argument #1 'grad' to have same ",
              "size as tensor for argument #2 'output'; but ", grad.sizes(), " does not equal ",
              output.sizes(), " (while checking arguments for ", name, ")");
  const int64_t d = wrap_dim(dim, grad.dim());
  const bool lastdim = grad.dim() == 0 || d == grad.dim() - 1;
  EMBER_CHECK(is_floating(grad.dtype()), "\"", name, lastdim ? "_lastdim_kernel_impl" : "_kernel_impl",
              "\" not implemented for '", scalar_type_name(grad.dtype()), "'");
  EMBER_CHECK(grad.dtype() == output.dtype(), "expected scalar type ", scalar_type_name(grad.dtype()),
              " but found ", scalar_type_name(output.dtype()));
  const bool half_to_float =
      grad.dtype() == kFloat32 && (input_dtype == kHalf || input_dtype == kBFloat16);
  const ScalarType out_dtype = half_to_float ? input_dtype : grad.dtype();
  if (grad.is_meta()) return empty(grad.sizes(), TensorOptions(out_dtype).device(grad.device()));
  const int64_t rd = grad.dim() == 0 ? 0 : d;
  // The common case, one fused pass: the last dim of float or double tensors (attention
  // scores, cross entropy's log-probabilities). The rest in Tensor ops.
  if (lastdim && (grad.dtype() == kFloat32 || grad.dtype() == kFloat64) && out_dtype == grad.dtype() &&
      grad.device() == output.device() && !grad.is_meta() && !output.is_meta()) {
    Tensor gi = empty(grad.sizes(), TensorOptions(out_dtype).device(grad.device()));
    cpu::softmax_backward_lastdim_kernel(gi, grad.contiguous(), output.contiguous(), log);
    return gi;
  }
  Tensor gi = log ? grad - output.exp() * grad.sum({rd}, true)
                  : output * (grad - (grad * output).sum({rd}, true));
  return ops::cast(gi, out_dtype).contiguous();
}

Tensor softmax_backward_data_impl(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype) {
  return softmax_backward_like("softmax_backward", grad_output, output, dim, input_dtype, false);
}
Tensor log_softmax_backward_data_impl(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                      ScalarType input_dtype) {
  return softmax_backward_like("log_softmax_backward", grad_output, output, dim, input_dtype, true);
}

}  // namespace

// ---- autograd ----
// Both rules save the output and call PyTorch's backward ops, whose own rules (below) give
// double backward.
namespace {
using autograd::OpNode;
using autograd::tensor_list;

// d softmax: y * (g - sum(g * y)) along dim.
Tensor softmax_autograd(const Tensor& self, const int64_t& dim, const bool& half_to_float) {
  autograd::Recorder r("SoftmaxBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<_softmax_impl>(OpId::_softmax, self, dim, half_to_float); });
  if (!r) return out;
  r.values("dim", dim);
  r.finish(out, [dtype = self.dtype()](OpNode& n, const tensor_list& g) {
    const Tensor result = n.saved(0);
    return tensor_list{_softmax_backward_data(g[0], result, wrap_dim(n.value(0).to_int(), result.dim()), dtype)};
  });
  ops::save_output_at(r, out, 0, "result");
  return out;
}

// d log_softmax: g - exp(y) * sum(g) along dim.
Tensor log_softmax_autograd(const Tensor& self, const int64_t& dim, const bool& half_to_float) {
  autograd::Recorder r("LogSoftmaxBackward0", self);
  Tensor out = r.forward(
      [&] { return dispatch::call<_log_softmax_impl>(OpId::_log_softmax, self, dim, half_to_float); });
  if (!r) return out;
  r.values("dim", dim);
  r.finish(out, [dtype = self.dtype()](OpNode& n, const tensor_list& g) {
    const Tensor result = n.saved(0);
    return tensor_list{_log_softmax_backward_data(g[0], result, wrap_dim(n.value(0).to_int(), result.dim()), dtype)};
  });
  ops::save_output_at(r, out, 0, "result");
  return out;
}
// d _softmax_backward_data(go, y) = y (go - sum(go y)): for go, the same op of the incoming
// grad; for y, grad (go - sum(go y)) - go sum(grad y) (PyTorch's softmax_double_backward).
Tensor softmax_backward_data_autograd(const Tensor& grad_output, const Tensor& output,
                                      const int64_t& dim, const ScalarType& input_dtype) {
  autograd::Recorder r("SoftmaxBackwardDataBackward0", grad_output, output);
  Tensor out = r.forward([&] {
    return dispatch::call<softmax_backward_data_impl>(OpId::_softmax_backward_data, grad_output,
                                                      output, dim, input_dtype);
  });
  if (!r) return out;
  const int64_t d = grad_output.dim() == 0 ? 0 : wrap_dim(dim, grad_output.dim());
  const size_t go_ = r.save_if(r.needs(1), grad_output, "grad_output"), y_ = r.save(output, "output");
  r.values("dim", dim);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor y = n.saved(y_);
    if (!n.needs(1)) return tensor_list{_softmax_backward_data(g[0], y, d, input_dtype), Tensor()};
    const Tensor go = n.saved(go_);
    return tensor_list{
        n.needs(0) ? _softmax_backward_data(g[0], y, d, input_dtype) : Tensor(),
        go * g[0] - (y * go).sum({d}, true) * g[0] - go * (y * g[0]).sum({d}, true)};
  });
}

// d _log_softmax_backward_data(go, y) = go - exp(y) sum(go): for go, grad - sum(grad exp(y));
// for y, -sum(go) exp(y) grad.
Tensor log_softmax_backward_data_autograd(const Tensor& grad_output, const Tensor& output,
                                          const int64_t& dim, const ScalarType& input_dtype) {
  autograd::Recorder r("LogSoftmaxBackwardDataBackward0", grad_output, output);
  Tensor out = r.forward([&] {
    return dispatch::call<log_softmax_backward_data_impl>(OpId::_log_softmax_backward_data,
                                                          grad_output, output, dim, input_dtype);
  });
  if (!r) return out;
  const int64_t d = grad_output.dim() == 0 ? 0 : wrap_dim(dim, grad_output.dim());
  const size_t go_ = r.save_if(r.needs(1), grad_output, "grad_output"), y_ = r.save(output, "output");
  r.values("dim", dim);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor y = n.saved(y_);
    const Tensor gg = ops::cast(g[0], y.dtype());
    return tensor_list{n.needs(0) ? gg - (gg * y.exp()).sum({d}, true) : Tensor(),
                       n.needs(1) ? -n.saved(go_).sum({d}, true) * y.exp() * gg : Tensor()};
  });
}
}  // namespace

EMBER_REGISTER_AUTOGRAD(_softmax_backward_data, &softmax_backward_data_autograd);
EMBER_REGISTER_AUTOGRAD(_log_softmax_backward_data, &log_softmax_backward_data_autograd);
EMBER_REGISTER_AUTOGRAD(_softmax, &softmax_autograd);
EMBER_REGISTER_AUTOGRAD(_log_softmax, &log_softmax_autograd);

Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return dispatch::call<softmax_int_impl>(OpId::softmax_int, self, dim, dtype);
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return dispatch::call<log_softmax_int_impl>(OpId::log_softmax_int, self, dim, dtype);
}
Tensor _softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  return dispatch::call<_softmax_impl>(OpId::_softmax, self, dim, half_to_float);
}
Tensor _log_softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  return dispatch::call<_log_softmax_impl>(OpId::_log_softmax, self, dim, half_to_float);
}

Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                              ScalarType input_dtype) {
  return dispatch::call<softmax_backward_data_impl>(OpId::_softmax_backward_data, grad_output,
                                                    output, dim, input_dtype);
}
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype) {
  return dispatch::call<log_softmax_backward_data_impl>(OpId::_log_softmax_backward_data,
                                                        grad_output, output, dim, input_dtype);
}

EMBER_REGISTER_OP(_softmax_backward_data, &_softmax_backward_data);
EMBER_REGISTER_OP(_log_softmax_backward_data, &_log_softmax_backward_data);
EMBER_REGISTER_OP(softmax_int, &softmax);
EMBER_REGISTER_OP(log_softmax_int, &log_softmax);
EMBER_REGISTER_OP(_softmax, &_softmax);
EMBER_REGISTER_OP(_log_softmax, &_log_softmax);

Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::softmax(*this, dim, dtype);
}
Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::log_softmax(*this, dim, dtype);
}

}  // namespace ember
