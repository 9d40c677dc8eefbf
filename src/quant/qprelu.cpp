// quantized::prelu: PyTorch 1.13's qprelu_out_kernel (QuantizedOpKernels.cpp), whose vector and
// scalar paths compute the same integers and the same float requantization, so one scalar loop
// is both the kernel and its reference.
#include "ember/quantized/prelu.h"

#include <algorithm>
#include <cmath>

#include "../dispatch/boxing.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"
#include "qop_utils.h"
#include "quantizer.h"

namespace ember {

using dispatch::OpId;
using quant_ops::codes;
using quant_ops::empty_q;
using quant_ops::mutable_codes;

namespace {

Tensor prelu_q(const Tensor& qx, const Tensor& qw, const double& output_scale,
               const int64_t& output_zero_point) {
  const char* op = "quantized::prelu";
  EMBER_CHECK(qx.is_quantized(), op, ": expected a quantized input, got ",
              scalar_type_name(qx.dtype()));
  EMBER_CHECK(qx.dim() > 0, "qprelu: zero-dim input tensor is not allowed.");
  EMBER_CHECK(qw.is_quantized(), op, ": expected a quantized weight, got ",
              scalar_type_name(qw.dtype()));
  EMBER_CHECK(qscheme(qx) == QScheme::PerTensorAffine && qscheme(qw) == QScheme::PerTensorAffine,
              op, ": expected per-tensor affine input and weight");
  EMBER_CHECK(qw.dtype() == qx.dtype(), op, ": the weight's dtype (", scalar_type_name(qw.dtype()),
              ") must be the input's (", scalar_type_name(qx.dtype()), ")");
  // at::prelu's reshape of the weight: [1, C, 1, ...] against an n-d input.
  const int64_t nd = qx.dim();
  std::vector<int64_t> wshape(static_cast<size_t>(nd), 1);
  if (nd > 1) wshape[1] = qw.numel();
  const int64_t C = nd > 1 ? qx.size(1) : 1;
  EMBER_CHECK(qw.numel() == 1 || (nd > 1 && qw.numel() == C),
              "The size of tensor a (", qx.size(nd > 1 ? 1 : 0),
              ") must match the size of tensor b (", qw.numel(), ") at non-singleton dimension ",
              nd > 1 ? 1 : 0);
  const MemoryFormat fmt = qx.suggest_memory_format();
  const Tensor x = qx.contiguous();
  const Tensor w = qw.contiguous();
  Tensor out = empty_q(qx, qx.sizes(), qx.dtype(), {output_scale, output_zero_point},
                       MemoryFormat::Contiguous);
  const int32_t zx = static_cast<int32_t>(q_zero_point(qx));
  const int32_t zw = static_cast<int32_t>(q_zero_point(qw));
  const float multiplier = static_cast<float>(q_scale(qx)) * static_cast<float>(q_scale(qw)) *
                           (1.0f / static_cast<float>(output_scale));
  const int64_t lo = qmin_of(qx.dtype()), hi = qmax_of(qx.dtype());
  const int32_t one = static_cast<int32_t>(
      quantize_val(inv_scale_of(q_scale(qw)), zw, 1.0f, lo, hi) - zw);
  int64_t inner = 1;
  for (int64_t d = 2; d < nd; ++d) inner *= qx.size(d);
  const int64_t per_channel = qw.numel() == 1 ? 0 : 1;
  // (qualified: quantizer.h's visit_codes would be found by ADL too)
  if (out.numel() > 0) quant_ops::visit_codes(qx.dtype(), [&]<class T>() {
    const T* px = codes<T>(x);
    const T* pw = codes<T>(w);
    T* py = mutable_codes<T>(out);
    const int64_t n = x.numel();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = per_channel ? (i / inner) % C : 0;
      const int32_t v = px[i];
      const int32_t acc = (std::max(v, zx) - zx) * one + (std::min(v, zx) - zx) * (pw[c] - zw);
      const int64_t q = output_zero_point +
                        static_cast<int64_t>(std::nearbyint(static_cast<float>(acc) * multiplier));
      py[i] = static_cast<T>(std::clamp<int64_t>(q, lo, hi));
    }
  });
  return fmt == MemoryFormat::Contiguous ? out : out.contiguous(fmt);
}

template <class... Args>
Tensor needs_quantized(const Args&...) {
  dispatch::no_kernel_error(OpId::quantized_prelu, "CPU");
}

[[maybe_unused]] const bool registered = [] {
  dispatch::register_quantized(OpId::quantized_prelu, &prelu_q);
  return true;
}();

}  // namespace

namespace quantized {
Tensor prelu(const Tensor& qx, const Tensor& weight, double output_scale,
             int64_t output_zero_point) {
  return dispatch::call<&needs_quantized<Tensor, Tensor, double, int64_t>>(
      OpId::quantized_prelu, qx, weight, output_scale, output_zero_point);
}
}  // namespace quantized

EMBER_REGISTER_OP(quantized_prelu, &quantized::prelu);

}  // namespace ember
