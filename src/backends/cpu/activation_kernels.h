// CPU kernels of the parameter-free activations (hardtanh runs clamp_kernel). Floating dtypes;
// others fail with their kernel's name, e.g. "hardswish_cpu" not implemented for 'Long'.
// float16 and bfloat16 compute in float (PyTorch 1.13's CPU kernels refuse float16, later
// versions accept it).
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

enum class ActivationOp {
  Hardswish,    // x * min(max(x + 3, 0), 6) / 6
  Hardsigmoid,  // min(max(x + 3, 0), 6) / 6
  Silu,         // x / (1 + exp(-x))
  GeluErf,      // x / 2 * (1 + erf(x / sqrt(2)))
  GeluTanh,     // x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)))
};

void activation_kernel(ActivationOp op, const Tensor& out, const Tensor& in);

/// out = grad * gelu'(self), PyTorch's gelu_backward (`tanh`: the tanh approximation's
/// derivative). All three of one floating dtype; grad and self broadcast to out.
void gelu_backward_kernel(const Tensor& out, const Tensor& grad, const Tensor& self, bool tanh);

/// out = self <= threshold ? 0 : grad, PyTorch's threshold_backward (relu's backward with
/// threshold 0, self its result). All three of one real dtype; grad and self broadcast to out.
void threshold_backward_kernel(const Tensor& out, const Tensor& grad, const Tensor& self,
                               const Scalar& threshold);
/// out = grad * (1 - output^2) (tanh_backward) and grad * (1 - output) * output
/// (sigmoid_backward). Floating dtypes, all three of one dtype.
void tanh_backward_kernel(const Tensor& out, const Tensor& grad, const Tensor& output);
void sigmoid_backward_kernel(const Tensor& out, const Tensor& grad, const Tensor& output);
/// out = min_val < self < max_val ? grad : 0 (hardtanh_backward). float and double, as
/// PyTorch 1.13's kernel.
void hardtanh_backward_kernel(const Tensor& out, const Tensor& grad, const Tensor& self,
                              double min_val, double max_val);

}  // namespace ember::cpu
