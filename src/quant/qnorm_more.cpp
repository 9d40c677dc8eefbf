// quantized::layer_norm / group_norm / instance_norm (PyTorch 1.13's quantized_layer_norm_impl
// and quantized_group_norm_impl): checks with PyTorch's texts, then the normalisation kernel
// (src/backends/cpu/quantized/qnorm_more_kernels.cpp) on the codes in logical order. Layer norm
// gives a contiguous result; group / instance norm keep a 4-d channels_last input's layout.
#include "../backends/cpu/quantized/qnorm_more_kernels.h"
#include "../dispatch/boxing.h"
#include "ember/quantized/norm.h"
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

using OptT = std::optional<Tensor>;

// A float32 contiguous copy of an optional affine parameter (PyTorch reads float data).
Tensor affine(const OptT& t) {
  if (!t || !t->defined()) return Tensor();
  return t->to(kFloat32).contiguous();
}
const float* data_or_null(const Tensor& t) { return t.defined() ? t.data_ptr<float>() : nullptr; }

void check_quantized_input(const Tensor& qx, const char* op) {
  EMBER_CHECK(qscheme(qx) == QScheme::PerTensorAffine, op,
              ": expected a per-tensor affine quantized input");
}

// PyTorch's _check_layer_norm_inputs (the shape checks; the quantized kernel reads float
// affine parameters whatever the input's dtype).
void check_layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                      const Tensor& bias) {
  EMBER_CHECK(!normalized_shape.empty(),
              "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
              "one element, but got normalized_shape = ", normalized_shape);
  EMBER_CHECK(!weight.defined() || weight.sizes() == normalized_shape,
              "Expected weight to be of same shape as normalized_shape, but got weight of shape ",
              weight.defined() ? weight.sizes() : IntArrayRef(), " and normalized_shape = ",
              normalized_shape);
  EMBER_CHECK(!bias.defined() || bias.sizes() == normalized_shape,
              "Expected bias to be of same shape as normalized_shape, but got bias of shape ",
              bias.defined() ? bias.sizes() : IntArrayRef(), " and normalized_shape = ",
              normalized_shape);
  const int64_t nd = input.dim(), k = static_cast<int64_t>(normalized_shape.size());
  if (nd < k || input.sizes().slice(static_cast<size_t>(nd - k)) != normalized_shape) {
    std::string expected = "[*";
    for (int64_t s : normalized_shape) expected += ", " + std::to_string(s);
    EMBER_FAIL("Given normalized_shape=", normalized_shape, ", expected input with shape ",
               expected, "], but got input of size", input.sizes());
  }
}

Tensor layer_norm_q(const Tensor& qx, const IntArrayRef& normalized_shape, const OptT& weight,
                    const OptT& bias, const double& eps, const double& s, const int64_t& z) {
  check_quantized_input(qx, "quantized::layer_norm");
  const Tensor w = affine(weight), b = affine(bias);
  check_layer_norm(qx, normalized_shape, weight ? *weight : Tensor(), bias ? *bias : Tensor());
  int64_t N = 1;
  for (int64_t d : normalized_shape) N *= d;
  Tensor out = empty_q(qx, qx.sizes(), qx.dtype(), {s, z}, MemoryFormat::Contiguous);
  if (out.is_meta() || out.numel() == 0) return out;
  const Tensor x = dense(qx, MemoryFormat::Contiguous);
  qk::QNormSpec spec;
  spec.rows = qx.numel() / N;
  spec.row_len = N;
  spec.gamma = data_or_null(w);
  spec.beta = data_or_null(b);
  spec.in = qparams_of(qx);
  spec.out = {s, z};
  spec.eps = eps;
  compute_codes_for(out, qx.dtype(), [&]<class T>() {
    qk::qnormalize<T>(codes<T>(x), mutable_codes<T>(out), spec);
  });
  return out;
}

Tensor group_norm_any(const Tensor& qx, int64_t num_groups, const OptT& weight, const OptT& bias,
                      double eps, double s, int64_t z) {
  check_quantized_input(qx, "quantized::group_norm");
  EMBER_CHECK(qx.dim() >= 3, "Expected normalized_shape to be at least 3-dimensional");
  EMBER_CHECK(num_groups > 0, "Expected num_groups to be positive");
  const int64_t C = qx.size(1);
  EMBER_CHECK(C % num_groups == 0, "Expected channels to be divisible by groups");
  const Tensor w = affine(weight), b = affine(bias);
  for (const Tensor* t : {&w, &b}) {
    EMBER_CHECK(!t->defined() || t->numel() == C, "quantized::group_norm: expected ",
                t == &w ? "weight" : "bias", " to have ", C, " elements (one per channel), got ",
                t->numel());
  }
  const MemoryFormat fmt = qx.dim() == 4 && qx.suggest_memory_format() == MemoryFormat::ChannelsLast
                               ? MemoryFormat::ChannelsLast
                               : MemoryFormat::Contiguous;
  Tensor out = empty_q(qx, qx.sizes(), qx.dtype(), {s, z}, MemoryFormat::Contiguous);
  if (out.is_meta() || out.numel() == 0) return fmt == MemoryFormat::Contiguous ? out : dense(out, fmt);
  const Tensor x = dense(qx, MemoryFormat::Contiguous);
  qk::QNormSpec spec;
  spec.rows = qx.size(0) * num_groups;
  spec.row_len = qx.numel() / spec.rows;
  spec.per_channel = true;
  spec.channels = C;
  spec.channels_per_row = C / num_groups;
  spec.gamma = data_or_null(w);
  spec.beta = data_or_null(b);
  spec.in = qparams_of(qx);
  spec.out = {s, z};
  spec.eps = eps;
  compute_codes_for(out, qx.dtype(), [&]<class T>() {
    qk::qnormalize<T>(codes<T>(x), mutable_codes<T>(out), spec);
  });
  return fmt == MemoryFormat::Contiguous ? out : dense(out, fmt);
}

Tensor group_norm_q(const Tensor& qx, const int64_t& groups, const OptT& weight, const OptT& bias,
                    const double& eps, const double& s, const int64_t& z) {
  return group_norm_any(qx, groups, weight, bias, eps, s, z);
}
Tensor instance_norm_q(const Tensor& qx, const OptT& weight, const OptT& bias, const double& eps,
                       const double& s, const int64_t& z) {
  EMBER_CHECK(qx.dim() >= 3, "Expected normalized_shape to be at least 3-dimensional");
  return group_norm_any(qx, qx.size(1), weight, bias, eps, s, z);
}

[[maybe_unused]] const bool registered = [] {
  dispatch::register_quantized(OpId::quantized_layer_norm, &layer_norm_q);
  dispatch::register_quantized(OpId::quantized_group_norm, &group_norm_q);
  dispatch::register_quantized(OpId::quantized_instance_norm, &instance_norm_q);
  return true;
}();

template <OpId id, class... Args>
Tensor cpu_error(const Args&...) {
  dispatch::no_kernel_error(id, "CPU");
}

}  // namespace

namespace quantized {

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const OptT& weight,
                  const OptT& bias, double eps, double output_scale, int64_t output_zero_point) {
  return dispatch::call<&cpu_error<OpId::quantized_layer_norm, Tensor, IntArrayRef, OptT, OptT,
                                   double, double, int64_t>>(
      OpId::quantized_layer_norm, input, normalized_shape, weight, bias, eps, output_scale,
      output_zero_point);
}
Tensor group_norm(const Tensor& input, int64_t num_groups, const OptT& weight, const OptT& bias,
                  double eps, double output_scale, int64_t output_zero_point) {
  return dispatch::call<&cpu_error<OpId::quantized_group_norm, Tensor, int64_t, OptT, OptT, double,
                                   double, int64_t>>(OpId::quantized_group_norm, input, num_groups,
                                                     weight, bias, eps, output_scale,
                                                     output_zero_point);
}
Tensor instance_norm(const Tensor& input, const OptT& weight, const OptT& bias, double eps,
                     double output_scale, int64_t output_zero_point) {
  return dispatch::call<&cpu_error<OpId::quantized_instance_norm, Tensor, OptT, OptT, double,
                                   double, int64_t>>(OpId::quantized_instance_norm, input, weight,
                                                     bias, eps, output_scale, output_zero_point);
}

}  // namespace quantized

EMBER_REGISTER_OP(quantized_layer_norm, &quantized::layer_norm);
EMBER_REGISTER_OP(quantized_group_norm, &quantized::group_norm);
EMBER_REGISTER_OP(quantized_instance_norm, &quantized::instance_norm);

}  // namespace ember
