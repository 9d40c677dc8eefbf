// quantized::batch_norm2d / batch_norm2d_relu (PyTorch 1.13's qbatch_norm): per channel
// alpha = inv_sigma·w·(s_x / s_y), beta = (b − mean·inv_sigma·w) / s_y in float, then
// y = z_y + rint(fma(alpha, q − z_x, beta)) on the NHWC codes; the output is channels_last.
#include <cmath>

#include "../dispatch/boxing.h"
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
using quant_ops::visit_codes;

namespace {

// A float32 copy of a 1-d parameter (PyTorch reads them as float data).
std::vector<float> floats(const Tensor& t) {
  const Tensor c = t.to(kFloat32).contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

Tensor batch_norm2d_any(const Tensor& qx, const std::optional<Tensor>& weight,
                        const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                        double eps, double output_scale, int64_t output_zero_point, bool relu) {
  EMBER_CHECK(weight.has_value() && weight->defined(), "Weight must be provided");
  EMBER_CHECK(bias.has_value() && bias->defined(), "Bias must be provided");
  if (qx.numel() == 0)
    return empty_q(qx, qx.sizes(), qx.dtype(), {q_scale(qx), q_zero_point(qx)},
                   MemoryFormat::Contiguous);
  EMBER_CHECK(qx.dim() == 4, "Expecting the input tensor of rank 4.");
  const int64_t C = qx.size(1);
  EMBER_CHECK(weight->numel() == C, "Expect weight size to match C");
  EMBER_CHECK(bias->numel() == C, "Expect weight size to match C");
  EMBER_CHECK(mean.numel() == C, "Mean size must match channel dimension");
  EMBER_CHECK(var.numel() == C, "Variance size must match channel dimension");
  if (qx.is_meta()) {
    return empty_q(qx, qx.sizes(), qx.dtype(), {output_scale, output_zero_point},
                   MemoryFormat::ChannelsLast);
  }
  const auto w = floats(*weight), b = floats(*bias), m = floats(mean), v = floats(var);
  const double in_scale = q_scale(qx);
  std::vector<float> alpha(static_cast<size_t>(C)), beta(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    const float inv_sigma = static_cast<float>(1.0 / std::sqrt(v[c] + static_cast<float>(eps)));
    alpha[c] = static_cast<float>(inv_sigma * w[c] * (in_scale / output_scale));
    beta[c] = static_cast<float>((b[c] - m[c] * inv_sigma * w[c]) / output_scale);
  }
  const Tensor x = dense(qx, MemoryFormat::ChannelsLast);
  Tensor out = empty_q(qx, qx.sizes(), qx.dtype(), {output_scale, output_zero_point},
                       MemoryFormat::ChannelsLast);
  compute_codes_for(out, qx.dtype(), [&]<class T>() {
    qk::qbatch_norm_nhwc<T>(codes<T>(x), mutable_codes<T>(out), qx.numel() / C, C, alpha.data(),
                            beta.data(), q_zero_point(qx), output_zero_point, relu);
  });
  return out;
}

using OptT = std::optional<Tensor>;
Tensor bn2d_q(const Tensor& qx, const OptT& w, const OptT& b, const Tensor& m, const Tensor& v,
              const double& eps, const double& s, const int64_t& z) {
  return batch_norm2d_any(qx, w, b, m, v, eps, s, z, false);
}
Tensor bn2d_relu_q(const Tensor& qx, const OptT& w, const OptT& b, const Tensor& m, const Tensor& v,
                   const double& eps, const double& s, const int64_t& z) {
  return batch_norm2d_any(qx, w, b, m, v, eps, s, z, true);
}
Tensor bn2d_cpu(const Tensor&, const OptT&, const OptT&, const Tensor&, const Tensor&, double,
                double, int64_t) {
  dispatch::no_kernel_error(OpId::quantized_batch_norm2d, "CPU");
}
Tensor bn2d_relu_cpu(const Tensor&, const OptT&, const OptT&, const Tensor&, const Tensor&, double,
                     double, int64_t) {
  dispatch::no_kernel_error(OpId::quantized_batch_norm2d_relu, "CPU");
}

}  // namespace

EMBER_REGISTER_QUANTIZED(quantized_batch_norm2d, &bn2d_q);
EMBER_REGISTER_QUANTIZED(quantized_batch_norm2d_relu, &bn2d_relu_q);

namespace quantized {
Tensor batch_norm2d(const Tensor& qx, const std::optional<Tensor>& weight,
                    const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                    double eps, double output_scale, int64_t output_zero_point) {
  return dispatch::call<bn2d_cpu>(OpId::quantized_batch_norm2d, qx, weight, bias, mean, var, eps,
                                  output_scale, output_zero_point);
}
Tensor batch_norm2d_relu(const Tensor& qx, const std::optional<Tensor>& weight,
                         const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                         double eps, double output_scale, int64_t output_zero_point) {
  return dispatch::call<bn2d_relu_cpu>(OpId::quantized_batch_norm2d_relu, qx, weight, bias, mean,
                                       var, eps, output_scale, output_zero_point);
}
}  // namespace quantized

EMBER_REGISTER_OP(quantized_batch_norm2d, &quantized::batch_norm2d);
EMBER_REGISTER_OP(quantized_batch_norm2d_relu, &quantized::batch_norm2d_relu);

}  // namespace ember
