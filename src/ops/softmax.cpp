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

}  // namespace

// ---- autograd ----
// Both rules save the output. The gradients are written with Tensor ops (PyTorch calls the
// fused _softmax_backward_data / _log_softmax_backward_data), so double backward comes for free.
namespace {
using autograd::OpNode;
using autograd::tensor_list;

// d softmax: y * (g - sum(g * y)) along dim.
Tensor softmax_autograd(const Tensor& self, const int64_t& dim, const bool& half_to_float) {
  autograd::Recorder r("SoftmaxBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<_softmax_impl>(OpId::_softmax, self, dim, half_to_float); });
  if (!r) return out;
  const int64_t d = wrap_dim(dim, self.dim());
  const size_t result_ = 0;
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor y = n.saved(result_);
    return tensor_list{y * (g[0] - (g[0] * y).sum({d}, true))};
  });
  ops::save_output_at(r, out, result_);
  return out;
}

// d log_softmax: g - exp(y) * sum(g) along dim.
Tensor log_softmax_autograd(const Tensor& self, const int64_t& dim, const bool& half_to_float) {
  autograd::Recorder r("LogSoftmaxBackward0", self);
  Tensor out = r.forward(
      [&] { return dispatch::call<_log_softmax_impl>(OpId::_log_softmax, self, dim, half_to_float); });
  if (!r) return out;
  const int64_t d = wrap_dim(dim, self.dim());
  const size_t result_ = 0;
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{g[0] - n.saved(result_).exp() * g[0].sum({d}, true)};
  });
  ops::save_output_at(r, out, result_);
  return out;
}
}  // namespace

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
