// quantized::leaky_relu / elu / celu / threshold / softmax / clamp, aten::tanh on quantized
// tensors and aten::quantize_per_tensor_dynamic. Kernels:
// src/backends/cpu/quantized/qactivation_more_kernels.cpp. Layouts follow PyTorch 1.13's:
// leaky_relu, tanh and threshold keep a channels_last input's layout; elu / celu and the generic
// softmax give contiguous results; QNNPACK's softmax runs along a dense inner dimension and
// otherwise transposes the dimension inwards and back (its result is that transposed view).
#include <cmath>

#include "../backends/cpu/quantized/qactivation_more_kernels.h"
#include "../dispatch/boxing.h"
#include "ember/ops/copy.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"
#include "ember/quantized/activation.h"
#include "ember/quantized/elementwise.h"
#include "ember/warning.h"
#include "qop_utils.h"

namespace ember {

using dispatch::OpId;
namespace qk = cpu::quantized;
using quant_ops::codes;
using quant_ops::compute_codes_for;
using quant_ops::dense;
using quant_ops::empty_q;
using quant_ops::mutable_codes;
using quant_ops::qparams_of;

namespace {

void check_per_tensor(const Tensor& qx, const char* op) {
  EMBER_CHECK(qscheme(qx) == QScheme::PerTensorAffine, op,
              ": expected a per-tensor affine quantized input, got another qscheme");
}

// Applies spec to qx into a new tensor of qparams `out`, laid out in `fmt`.
Tensor act(const Tensor& qx, qk::QActSpec spec, MemoryFormat fmt) {
  const Tensor x = dense(qx, fmt);
  Tensor out = empty_q(qx, qx.sizes(), qx.dtype(), spec.out, fmt);
  compute_codes_for(out, qx.dtype(), [&]<class T>() {
    qk::qact<T>(codes<T>(x), mutable_codes<T>(out), out.numel(), spec);
  });
  return out;
}

// ---- QuantizedCPU kernels ----
Tensor leaky_relu_q(const Tensor& qx, const Scalar& slope, const bool& inplace, const double& s,
                    const int64_t& z) {
  check_per_tensor(qx, "quantized::leaky_relu");
  if (inplace) EMBER_WARN("inplace=True is not supported for quantized::leaky_relu yet");
  qk::QActSpec spec{qk::QActFn::LeakyRelu, qparams_of(qx), {s, z}};
  spec.a = static_cast<float>(slope.to_double());
  return act(qx, spec, qx.suggest_memory_format());
}

Tensor elu_with(const Tensor& qx, double s, int64_t z, float alpha, float scale, float in_scale) {
  check_per_tensor(qx, "quantized::elu");
  qk::QActSpec spec{qk::QActFn::Elu, qparams_of(qx), {s, z}};
  spec.a = alpha;
  spec.b = scale;
  spec.c = in_scale;
  return act(qx, spec, MemoryFormat::Contiguous);
}
Tensor elu_q(const Tensor& qx, const double& s, const int64_t& z, const Scalar& alpha,
             const Scalar& scale, const Scalar& input_scale) {
  return elu_with(qx, s, z, static_cast<float>(alpha.to_double()),
                  static_cast<float>(scale.to_double()),
                  static_cast<float>(input_scale.to_double()));
}
Tensor celu_q(const Tensor& qx, const double& s, const int64_t& z, const Scalar& alpha) {
  const float a = static_cast<float>(alpha.to_double());
  return elu_with(qx, s, z, a, 1.0f, 1.0f / a);
}

Tensor threshold_q(const Tensor& qx, const Scalar& threshold, const Scalar& value) {
  check_per_tensor(qx, "quantized::threshold");
  qk::QActSpec spec{qk::QActFn::Threshold, qparams_of(qx), qparams_of(qx)};
  spec.a = static_cast<float>(threshold.to_double());
  spec.b = static_cast<float>(value.to_double());
  return act(qx, spec, qx.suggest_memory_format());
}

// aten::tanh: fixed output qparams 2/256 with zero point 128 (quint8) or 0 (qint8); qint32 gets
// 2/2^32 and 0.
Tensor tanh_q(const Tensor& qx) {
  check_per_tensor(qx, "tanh");
  qk::QParams out{2.0 / 256.0, qx.dtype() == kQUInt8 ? 128 : 0};
  if (qx.dtype() == kQInt32) out.scale = 2.0 / 4294967296.0;
  return act(qx, {qk::QActFn::Tanh, qparams_of(qx), out}, qx.suggest_memory_format());
}

Tensor softmax_q(const Tensor& qx, const int64_t& dim_, const double& s, const int64_t& z) {
  check_per_tensor(qx, "quantized::softmax");
  const int64_t dim = qx.dim() == 0 ? 0 : wrap_dim(dim_, qx.dim());
  const bool qnnpack = quantized_engine() == QEngine::QNNPACK && qx.dtype() == kQUInt8 &&
                       s == 1.0 / 256.0 && z == 0 && qx.dim() > 0;
  if (!qnnpack) {
    Tensor y = ember::softmax(dequantize(qx), dim);
    return quantize_per_tensor(y.contiguous(), s, z, qx.dtype());
  }
  // QNNPACK's kernel runs along an inner dimension of stride 1 of a dense tensor; otherwise
  // PyTorch moves `dim` last, makes that contiguous, and gives back the transposed result.
  const MemoryFormat fmt = qx.suggest_memory_format();
  const bool inner = qx.stride(dim) == 1 && qx.is_contiguous(fmt);
  const Tensor x = inner ? qx : dense(qx.transpose(dim, qx.dim() - 1), MemoryFormat::Contiguous);
  Tensor out = empty_q(x, x.sizes(), kQUInt8, {s, z}, inner ? fmt : MemoryFormat::Contiguous);
  if (!out.is_meta() && out.numel() > 0) {
    const int64_t channels = x.size(inner ? dim : x.dim() - 1);
    qk::qsoftmax_qnnpack(codes<uint8_t>(x), mutable_codes<uint8_t>(out), out.numel() / channels,
                         channels, q_scale(qx));
  }
  return inner ? out : out.transpose(dim, qx.dim() - 1);
}

Tensor quantized_clamp_q(const Tensor& qx, const std::optional<Scalar>& min,
                         const std::optional<Scalar>& max) {
  return ember::clamp(qx, min, max);
}

[[maybe_unused]] const bool registered = [] {
  dispatch::register_quantized(OpId::quantized_leaky_relu, &leaky_relu_q);
  dispatch::register_quantized(OpId::quantized_elu, &elu_q);
  dispatch::register_quantized(OpId::quantized_celu, &celu_q);
  dispatch::register_quantized(OpId::quantized_threshold, &threshold_q);
  dispatch::register_quantized(OpId::quantized_softmax, &softmax_q);
  dispatch::register_quantized(OpId::quantized_clamp, &quantized_clamp_q);
  dispatch::register_quantized(OpId::tanh, &tanh_q);
  return true;
}();

// Float inputs of quantized:: ops: PyTorch's "Could not run ... from the 'CPU' backend".
template <OpId id, class... Args>
Tensor cpu_error(const Args&...) {
  dispatch::no_kernel_error(id, "CPU");
}

// ---- quantize_per_tensor_dynamic (a float op) ----
// quant_utils::ChooseQuantizationParams(min, max, qmin, qmax, preserve_sparsity=false,
// force_scale_power_of_two=false, reduce_range) of torch 1.13.
qk::QParams choose_qparams(float min, float max, int32_t qmin, int32_t qmax, bool reduce_range) {
  EMBER_CHECK(min <= max, "In ChooseQuantizationParams, min should be less than or equal to max");
  if (reduce_range) {
    qmin /= 2;
    qmax /= 2;
  }
  min = std::min(min, 0.f);
  max = std::max(max, 0.f);
  double scale = (static_cast<double>(max) - min) / (qmax - qmin);
  if (static_cast<float>(scale) == 0.0f || std::isinf(1.0f / static_cast<float>(scale))) scale = 0.1;
  constexpr float kSmallScale = 6.1e-5f;
  if (scale < kSmallScale) {
    const float org_scale = static_cast<float>(scale);
    scale = kSmallScale;
    if (min == 0.0f) {
      max = kSmallScale * static_cast<float>(qmax - qmin);
    } else if (max == 0.0f) {
      min = -kSmallScale * static_cast<float>(qmax - qmin);
    } else {
      const float amplifier = kSmallScale / org_scale;
      min *= amplifier;
      max *= amplifier;
    }
  }
  const double from_min = qmin - min / scale, from_max = qmax - max / scale;
  const double err_min = std::abs(qmin) - std::abs(min / scale);
  const double err_max = std::abs(qmax) - std::abs(max / scale);
  const double initial = err_min < err_max ? from_min : from_max;
  const int64_t zp = initial < qmin   ? qmin
                     : initial > qmax ? qmax
                                      : static_cast<int64_t>(std::nearbyint(initial));
  return {scale, zp};  // TensorQuantizationParams keeps the double scale
}

Tensor quantize_per_tensor_dynamic_impl(const Tensor& self, const ScalarType& dtype,
                                        const bool& reduce_range_arg) {
  EMBER_CHECK(dtype == kQInt8 || dtype == kQUInt8 || dtype == kFloat16, "dtype ",
              scalar_type_name(dtype), "not supported");
  if (dtype == kFloat16) return self.contiguous().to(kFloat16);
  EMBER_CHECK(self.dtype() == kFloat32, "Quantize only works on Float Tensor, got ",
              scalar_type_name(self.dtype()));
  if (self.is_meta()) {
    return _empty_affine_quantized(self.sizes(), dtype, 1.0, 0, MemoryFormat::Contiguous,
                                   self.device());
  }
  EMBER_CHECK(self.numel() > 0, "min(): Expected reduction dim to be specified for "
              "input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
  bool reduce_range = reduce_range_arg;
  if (quantized_engine() == QEngine::QNNPACK) reduce_range = false;
  const Tensor x = self.contiguous();
  const float mn = ember::min(x).item<float>(), mx = ember::max(x).item<float>();
  const qk::QParams p = dtype == kQInt8 ? choose_qparams(mn, mx, -128, 127, reduce_range)
                                        : choose_qparams(mn, mx, 0, 255, reduce_range);
  return quantize_per_tensor(self, p.scale, p.zero_point, dtype);
}

}  // namespace

Tensor quantize_per_tensor_dynamic(const Tensor& self, ScalarType dtype, bool reduce_range) {
  return dispatch::call<&quantize_per_tensor_dynamic_impl>(OpId::quantize_per_tensor_dynamic,
                                                           self, dtype, reduce_range);
}
EMBER_REGISTER_OP(quantize_per_tensor_dynamic, &quantize_per_tensor_dynamic);

namespace quantized {

Tensor leaky_relu(const Tensor& qx, const Scalar& negative_slope, bool inplace,
                  double output_scale, int64_t output_zero_point) {
  return dispatch::call<&cpu_error<OpId::quantized_leaky_relu, Tensor, Scalar, bool, double,
                                   int64_t>>(OpId::quantized_leaky_relu, qx, negative_slope,
                                             inplace, output_scale, output_zero_point);
}
Tensor elu(const Tensor& qx, double output_scale, int64_t output_zero_point, const Scalar& alpha,
           const Scalar& scale, const Scalar& input_scale) {
  return dispatch::call<&cpu_error<OpId::quantized_elu, Tensor, double, int64_t, Scalar, Scalar,
                                   Scalar>>(OpId::quantized_elu, qx, output_scale,
                                            output_zero_point, alpha, scale, input_scale);
}
Tensor celu(const Tensor& qx, double output_scale, int64_t output_zero_point, const Scalar& alpha) {
  return dispatch::call<&cpu_error<OpId::quantized_celu, Tensor, double, int64_t, Scalar>>(
      OpId::quantized_celu, qx, output_scale, output_zero_point, alpha);
}
Tensor threshold(const Tensor& qx, const Scalar& threshold, const Scalar& value) {
  return dispatch::call<&cpu_error<OpId::quantized_threshold, Tensor, Scalar, Scalar>>(
      OpId::quantized_threshold, qx, threshold, value);
}
Tensor softmax(const Tensor& qx, int64_t dim, double output_scale, int64_t output_zero_point) {
  return dispatch::call<&cpu_error<OpId::quantized_softmax, Tensor, int64_t, double, int64_t>>(
      OpId::quantized_softmax, qx, dim, output_scale, output_zero_point);
}
Tensor clamp(const Tensor& qx, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return dispatch::call<&cpu_error<OpId::quantized_clamp, Tensor, std::optional<Scalar>,
                                   std::optional<Scalar>>>(OpId::quantized_clamp, qx, min, max);
}

}  // namespace quantized

EMBER_REGISTER_OP(quantized_leaky_relu, &quantized::leaky_relu);
EMBER_REGISTER_OP(quantized_elu, &quantized::elu);
EMBER_REGISTER_OP(quantized_celu, &quantized::celu);
EMBER_REGISTER_OP(quantized_threshold, &quantized::threshold);
EMBER_REGISTER_OP(quantized_softmax, &quantized::softmax);
EMBER_REGISTER_OP(quantized_clamp, &quantized::clamp);

}  // namespace ember
