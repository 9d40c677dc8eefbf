// Activations on quantized tensors: the QuantizedCPU kernels of aten::relu / relu_ / hardtanh /
// hardtanh_ / clamp / clamp_ (PyTorch's error) / sigmoid / hardsigmoid, and quantized::relu6 /
// hardswish / sigmoid. Clamps work on codes with the qparams unchanged (spec § 7.2: relu is max(q,
// z)); sigmoid and hardswish dequantize, apply the float function and quantize (spec § 7.4), or use
// QNNPACK's table on the qnnpack engine. Kernels: src/backends/cpu/quantized/qunary_kernels.cpp.
#include <cmath>

#include "../dispatch/boxing.h"
#include "ember/ops/copy.h"
#include "ember/quantized/elementwise.h"
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
using quant_ops::visit_codes;

namespace {

// quantize_val of a bound (scalar formula, spec § 1.2).
template <class T>
int64_t quantize_bound(const Tensor& qx, const Scalar& v) {
  return qk::quant_scalar<T>(static_cast<float>(v.to_double()), qk::inv_scale_scalar(q_scale(qx)),
                             q_zero_point(qx));
}

// Codes of qx clamped to [lo, hi] into a new tensor laid out as qx (PyTorch's generic kernels).
Tensor clamp_codes(const Tensor& qx, const std::optional<Scalar>& min,
                   const std::optional<Scalar>& max) {
  const MemoryFormat fmt = qx.suggest_memory_format();
  const Tensor x = dense(qx, fmt);
  Tensor out = empty_q(qx, qx.sizes(), qx.dtype(), qparams_of(qx), fmt);
  compute_codes_for(out, qx.dtype(), [&]<class T>() {
    const int64_t lo = min ? quantize_bound<T>(qx, *min) : qk::qmin_of<T>();
    const int64_t hi = max ? quantize_bound<T>(qx, *max) : qk::qmax_of<T>();
    if (min && max && lo > hi) {
      // std::min(std::max(q, lo), hi): everything becomes hi.
      std::fill(mutable_codes<T>(out), mutable_codes<T>(out) + out.numel(), static_cast<T>(hi));
      return;
    }
    qk::qclamp_codes<T>(codes<T>(x), mutable_codes<T>(out), out.numel(), lo, hi);
  });
  return out;
}

// Note [QNNPACK clamp and channels_last]: PyTorch 1.13's qnnpack_clamp (hardtanh, relu6, clamp on
// the qnnpack engine) clamps the input's codes in the input's memory order but allocates its
// output contiguous: a channels_last input comes back as a contiguous tensor holding NHWC-ordered
// codes (its values are permuted). ember reproduces it bit for bit, as it does every number of
// the qnnpack engine.
Tensor qnnpack_clamp(const Tensor& qx, const Scalar& min, const Scalar& max) {
  EMBER_CHECK(qx.dim() > 0, "qnnpack_clamp(): Got empty input tensor");
  const Tensor x = dense(qx, qx.suggest_memory_format());
  Tensor out = empty_q(qx, qx.sizes(), kQUInt8, qparams_of(qx), MemoryFormat::Contiguous);
  if (out.is_meta() || out.numel() == 0) return out;
  const int64_t lo = quantize_bound<uint8_t>(qx, min), hi = quantize_bound<uint8_t>(qx, max);
  qk::qclamp_codes<uint8_t>(codes<uint8_t>(x), mutable_codes<uint8_t>(out), out.numel(), lo,
                            std::max(lo, hi));
  return out;
}

Tensor quantized_clamp_impl(const Tensor& qx, const std::optional<Scalar>& min,
                            const std::optional<Scalar>& max) {
  if (min && max) {
    if (quantized_engine() == QEngine::QNNPACK && qx.dtype() == kQUInt8) {
      return qnnpack_clamp(qx, *min, *max);
    }
    return clamp_codes(qx, min, max);
  }
  EMBER_CHECK(quantized_engine() != QEngine::QNNPACK,
              "Both min and max should be specified for quantized clamp!");
  EMBER_CHECK(min || max, "At least one of 'min' or 'max' must not be None");
  return clamp_codes(qx, min, max);
}

// In-place forms compute out of place and copy back (as PyTorch's hardtanh_ does).
Tensor write_back(const Tensor& self, const Tensor& result) {
  quant_ops::copy_codes_into(self, result);
  return self;
}

// ---- relu ----
Tensor relu_q(const Tensor& qx) {
  if (quantized_engine() == QEngine::QNNPACK && qx.dtype() == kQUInt8) {
    EMBER_CHECK(qx.dim() > 0, "qnnpack_relu(): Got empty input tensor");
  }
  const MemoryFormat fmt = qx.suggest_memory_format();
  const Tensor x = dense(qx, fmt);
  Tensor out = empty_q(qx, qx.sizes(), qx.dtype(), qparams_of(qx), fmt);
  compute_codes_for(out, qx.dtype(), [&]<class T>() {
    qk::qclamp_codes<T>(codes<T>(x), mutable_codes<T>(out), out.numel(), q_zero_point(qx),
                        qk::qmax_of<T>());
  });
  return out;
}
Tensor relu__q(const Tensor& qx) {
  const MemoryFormat fmt = qx.suggest_memory_format();
  if (qx.is_contiguous(fmt)) {
    compute_codes_for(qx, qx.dtype(), [&]<class T>() {
      qk::qclamp_codes<T>(codes<T>(qx), mutable_codes<T>(qx), qx.numel(), q_zero_point(qx),
                          qk::qmax_of<T>());
    });
    return qx;
  }
  return write_back(qx, relu_q(qx));
}

Tensor hardtanh_q(const Tensor& qx, const Scalar& min, const Scalar& max) {
  return quantized_clamp_impl(qx, min, max);
}
Tensor hardtanh__q(const Tensor& qx, const Scalar& min, const Scalar& max) {
  return write_back(qx, quantized_clamp_impl(qx, min, max));
}
Tensor clamp_q(const Tensor& qx, const std::optional<Scalar>& min,
               const std::optional<Scalar>& max) {
  return quantized_clamp_impl(qx, min, max);
}

// PyTorch 1.13 has no quantized clamp_: a float bound fails in its type promotion, an integer
// one finds no kernel (named aten::clamp.out, src/quant/qtensor_ops.cpp).
Tensor clamp__q(const Tensor& qx, const std::optional<Scalar>& min,
                const std::optional<Scalar>& max) {
  const bool floating = (min && min->is_floating()) || (max && max->is_floating());
  if (!floating) dispatch::no_kernel_error(OpId::clamp_, "QuantizedCPU");
  const char* q = qx.dtype() == kQUInt8 ? "QUInt8" : qx.dtype() == kQInt8 ? "QInt8" : "QInt32";
  EMBER_FAIL(
      "promoteTypes with quantized numbers is not handled yet; figure out what the correct "
      "rules should be, offending types: ",
      q, " Float");
}

// ---- sigmoid / hardswish: functions of one code ----
Tensor unary_fn(const Tensor& qx, qk::QUnaryFn fn, double out_scale, int64_t out_zp) {
  const MemoryFormat fmt = qx.suggest_memory_format();
  const Tensor x = dense(qx, fmt);
  Tensor out = empty_q(qx, qx.sizes(), qx.dtype(), {out_scale, out_zp}, fmt);
  const int64_t n = out.numel();
  compute_codes_for(out, qx.dtype(), [&]<class T>() {
    qk::qunary<T>(codes<T>(x), mutable_codes<T>(out), n, std::max<int64_t>(n, 1),
                  {fn, qparams_of(qx), {out_scale, out_zp}});
  });
  return out;
}

Tensor sigmoid_with(const Tensor& qx, double out_scale, int64_t out_zp) {
  if (quantized_engine() == QEngine::QNNPACK && qx.dtype() == kQUInt8) {
    EMBER_CHECK(qx.dim() > 0, "qnnpack_sigmoid(): Got empty input tensor");
    return unary_fn(qx, qk::QUnaryFn::SigmoidQnnpack, out_scale, out_zp);
  }
  return unary_fn(qx, qk::QUnaryFn::Sigmoid, out_scale, out_zp);
}

// aten::sigmoid / hardsigmoid: fixed output qparams 1/256 (1/2^32 for qint32), zero point 0
// (-128 for qint8).
qk::QParams fixed_unit_qparams(ScalarType dtype) {
  if (dtype == kQInt32) return {2.3283064365386963e-10, 0};
  return {0.00390625, dtype == kQInt8 ? -128 : 0};
}
Tensor sigmoid_q(const Tensor& qx) {
  const auto p = fixed_unit_qparams(qx.dtype());
  return sigmoid_with(qx, p.scale, p.zero_point);
}
Tensor hardsigmoid_q(const Tensor& qx) {
  const auto p = fixed_unit_qparams(qx.dtype());
  if (quantized_engine() == QEngine::QNNPACK && qx.dtype() == kQUInt8) {
    EMBER_CHECK(qx.dim() > 0, "qnnpack_hardsigmoid(): Got empty input tensor");
    return unary_fn(qx, qk::QUnaryFn::HardsigmoidQnnpack, p.scale, p.zero_point);
  }
  return unary_fn(qx, qk::QUnaryFn::Hardsigmoid, p.scale, p.zero_point);
}

Tensor quantized_sigmoid_q(const Tensor& qx, const double& s, const int64_t& z) {
  return sigmoid_with(qx, s, z);
}
Tensor hardswish_q(const Tensor& qx, const double& s, const int64_t& z) {
  const bool qnnpack = quantized_engine() == QEngine::QNNPACK && qx.dtype() == kQUInt8;
  if (qnnpack) EMBER_CHECK(qx.dim() > 0, "qnnpack_hardswish(): Got empty input tensor");
  return unary_fn(qx, qnnpack ? qk::QUnaryFn::HardswishQnnpack : qk::QUnaryFn::Hardswish, s, z);
}
Tensor relu6_q(const Tensor& qx, const bool& inplace) {
  if (inplace) return write_back(qx, quantized_clamp_impl(qx, Scalar(0.0), Scalar(6.0)));
  return quantized_clamp_impl(qx, Scalar(0.0), Scalar(6.0));
}

Tensor relu6_cpu(const Tensor&, bool) { dispatch::no_kernel_error(OpId::quantized_relu6, "CPU"); }
Tensor hardswish_cpu(const Tensor&, double, int64_t) {
  dispatch::no_kernel_error(OpId::quantized_hardswish, "CPU");
}
Tensor sigmoid_cpu(const Tensor&, double, int64_t) {
  dispatch::no_kernel_error(OpId::quantized_sigmoid, "CPU");
}

}  // namespace

EMBER_REGISTER_QUANTIZED(relu, &relu_q);
EMBER_REGISTER_QUANTIZED(relu_, &relu__q);
EMBER_REGISTER_QUANTIZED(hardtanh, &hardtanh_q);
EMBER_REGISTER_QUANTIZED(hardtanh_, &hardtanh__q);
EMBER_REGISTER_QUANTIZED(clamp, &clamp_q);
EMBER_REGISTER_QUANTIZED(clamp_, &clamp__q);
EMBER_REGISTER_QUANTIZED(sigmoid, &sigmoid_q);
EMBER_REGISTER_QUANTIZED(hardsigmoid, &hardsigmoid_q);
EMBER_REGISTER_QUANTIZED(quantized_sigmoid, &quantized_sigmoid_q);
EMBER_REGISTER_QUANTIZED(quantized_hardswish, &hardswish_q);
EMBER_REGISTER_QUANTIZED(quantized_relu6, &relu6_q);

namespace quantized {
Tensor relu6(const Tensor& qx, bool inplace) {
  return dispatch::call<relu6_cpu>(OpId::quantized_relu6, qx, inplace);
}
Tensor hardswish(const Tensor& qx, double output_scale, int64_t output_zero_point) {
  return dispatch::call<hardswish_cpu>(OpId::quantized_hardswish, qx, output_scale,
                                       output_zero_point);
}
Tensor sigmoid(const Tensor& qx, double output_scale, int64_t output_zero_point) {
  return dispatch::call<sigmoid_cpu>(OpId::quantized_sigmoid, qx, output_scale, output_zero_point);
}
}  // namespace quantized

EMBER_REGISTER_OP(quantized_relu6, &quantized::relu6);
EMBER_REGISTER_OP(quantized_hardswish, &quantized::hardswish);
EMBER_REGISTER_OP(quantized_sigmoid, &quantized::sigmoid);

}  // namespace ember

namespace ember::quant_ops {
void copy_codes_into(const Tensor& self, const Tensor& src) {
  const MemoryFormat fmt = self.suggest_memory_format();
  EMBER_CHECK(
      self.is_contiguous(fmt),
      "in-place quantized ops need a dense (contiguous or channels_last) tensor, got strides ",
      self.strides());
  const Tensor s = dense(src, fmt);
  compute_codes_for(self, self.dtype(), [&]<class T>() {
    std::copy(codes<T>(s), codes<T>(s) + s.numel(), mutable_codes<T>(self));
  });
}
}  // namespace ember::quant_ops
