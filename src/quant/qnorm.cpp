// quantized::batch_norm1d / 2d / 3d / batch_norm and their _relu forms (PyTorch 1.13's
// qbatch_norm): per channel
// alpha = inv_sigma·w·(s_x / s_y), beta = (b − mean·inv_sigma·w) / s_y in float, then
// y = z_y + rint(fma(alpha, q − z_x, beta)) on the NHWC codes; the output is channels_last.
#include <cmath>

#include "../dispatch/boxing.h"
#include "ember/quantized/elementwise.h"
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
using quant_ops::visit_codes;

namespace {

// A float32 copy of a 1-d parameter (PyTorch reads them as float data).
std::vector<float> floats(const Tensor& t) {
  const Tensor c = t.to(kFloat32).contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

// The spatial rank a batch norm op takes: 1 (quantized::batch_norm1d: (N, C) or (N, C, L)),
// 2 (batch_norm2d) or 3 (batch_norm3d), as PyTorch's q_batch_norm{1,2,3}d_impl.
Tensor batch_norm_any(const Tensor& qx, const std::optional<Tensor>& weight,
                      const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                      double eps, double output_scale, int64_t output_zero_point, bool relu,
                      int spatial) {
  EMBER_CHECK(weight.has_value() && weight->defined(), "Weight must be provided");
  EMBER_CHECK(bias.has_value() && bias->defined(), "Bias must be provided");
  if (qx.numel() == 0)
    return empty_q(qx, qx.sizes(), qx.dtype(), {q_scale(qx), q_zero_point(qx)},
                   MemoryFormat::Contiguous);
  if (spatial == 1) {
    EMBER_CHECK(qx.dim() == 2 || qx.dim() == 3, "Expecting the input tensor of rank 2 or 3.");
  } else {
    EMBER_CHECK(qx.dim() == spatial + 2, "Expecting the input tensor of rank ", spatial + 2, ".");
  }
  const int64_t C = qx.size(1);
  EMBER_CHECK(weight->numel() == C, "Expect weight size to match C");
  EMBER_CHECK(bias->numel() == C, "Expect weight size to match C");
  EMBER_CHECK(mean.numel() == C, "Mean size must match channel dimension");
  EMBER_CHECK(var.numel() == C, "Variance size must match channel dimension");
  // The kernel runs on channels-innermost codes: NHWC / NDHWC; a 1-d input is treated as
  // N x L x C (PyTorch adds fake trailing dimensions and gives a contiguous result back).
  const MemoryFormat fmt = spatial == 3 ? MemoryFormat::ChannelsLast3d
                           : spatial == 2 ? MemoryFormat::ChannelsLast
                                          : MemoryFormat::Contiguous;
  if (qx.is_meta()) {
    return empty_q(qx, qx.sizes(), qx.dtype(), {output_scale, output_zero_point}, fmt);
  }
  const auto w = floats(*weight), b = floats(*bias), m = floats(mean), v = floats(var);
  const double in_scale = q_scale(qx);
  std::vector<float> alpha(static_cast<size_t>(C)), beta(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    const float inv_sigma = static_cast<float>(1.0 / std::sqrt(v[c] + static_cast<float>(eps)));
    alpha[c] = static_cast<float>(inv_sigma * w[c] * (in_scale / output_scale));
    beta[c] = static_cast<float>((b[c] - m[c] * inv_sigma * w[c]) / output_scale);
  }
  const bool nlc = spatial == 1 && qx.dim() == 3;
  // The codes themselves are laid out (rather than through dense(), whose quantized copy keeps
  // 4-d channels_last only).
  const Tensor x = nlc ? int_repr(qx).permute({0, 2, 1}).contiguous()
                       : int_repr(qx).contiguous(fmt);
  Tensor out = empty_q(qx, x.sizes(), qx.dtype(), {output_scale, output_zero_point},
                       nlc ? MemoryFormat::Contiguous : fmt);
  compute_codes_for(out, qx.dtype(), [&]<class T>() {
    qk::qbatch_norm_nhwc<T>(static_cast<const T*>(x.data_ptr()), mutable_codes<T>(out),
                            qx.numel() / C, C, alpha.data(),
                            beta.data(), q_zero_point(qx), output_zero_point, relu);
  });
  return nlc ? dense(out.permute({0, 2, 1}), MemoryFormat::Contiguous) : out;
}

Tensor batch_norm2d_any(const Tensor& qx, const std::optional<Tensor>& weight,
                        const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                        double eps, double output_scale, int64_t output_zero_point, bool relu) {
  return batch_norm_any(qx, weight, bias, mean, var, eps, output_scale, output_zero_point, relu, 2);
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

// quantized::batch_norm1d / 3d and batch_norm (by rank), with _relu forms.
#define EMBER_QBN_KERNEL(name, relu, spatial_expr)                                             \
  Tensor name(const Tensor& qx, const OptT& w, const OptT& b, const Tensor& m, const Tensor& v, \
              const double& eps, const double& s, const int64_t& z) {                          \
    return batch_norm_any(qx, w, b, m, v, eps, s, z, relu, spatial_expr);                       \
  }
EMBER_QBN_KERNEL(bn1d_q, false, 1)
EMBER_QBN_KERNEL(bn1d_relu_q, true, 1)
EMBER_QBN_KERNEL(bn3d_q, false, 3)
EMBER_QBN_KERNEL(bn3d_relu_q, true, 3)
#undef EMBER_QBN_KERNEL

int spatial_of(const Tensor& qx) {
  const int64_t d = qx.dim();
  EMBER_CHECK(d >= 2 && d <= 5, "quantized::batch_norm only support 2d, 3d, 4d or 5d inputs.");
  return d <= 3 ? 1 : static_cast<int>(d - 2);
}
Tensor bn_q(const Tensor& qx, const OptT& w, const OptT& b, const Tensor& m, const Tensor& v,
            const double& eps, const double& s, const int64_t& z) {
  return batch_norm_any(qx, w, b, m, v, eps, s, z, false, spatial_of(qx));
}
Tensor bn_relu_q(const Tensor& qx, const OptT& w, const OptT& b, const Tensor& m,
                 const Tensor& v, const double& eps, const double& s, const int64_t& z) {
  return batch_norm_any(qx, w, b, m, v, eps, s, z, true, spatial_of(qx));
}

template <OpId id>
Tensor bn_cpu(const Tensor&, const OptT&, const OptT&, const Tensor&, const Tensor&, double,
              double, int64_t) {
  dispatch::no_kernel_error(id, "CPU");
}

}  // namespace

EMBER_REGISTER_QUANTIZED(quantized_batch_norm1d, &bn1d_q);
EMBER_REGISTER_QUANTIZED(quantized_batch_norm1d_relu, &bn1d_relu_q);
EMBER_REGISTER_QUANTIZED(quantized_batch_norm3d, &bn3d_q);
EMBER_REGISTER_QUANTIZED(quantized_batch_norm3d_relu, &bn3d_relu_q);
EMBER_REGISTER_QUANTIZED(quantized_batch_norm, &bn_q);
EMBER_REGISTER_QUANTIZED(quantized_batch_norm_relu, &bn_relu_q);

namespace quantized {
#define EMBER_QBN_FRONTEND(fn, id)                                                              \
  Tensor fn(const Tensor& qx, const std::optional<Tensor>& weight,                             \
            const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var, double eps, \
            double output_scale, int64_t output_zero_point) {                                  \
    return dispatch::call<bn_cpu<OpId::id>>(OpId::id, qx, weight, bias, mean, var, eps,        \
                                            output_scale, output_zero_point);                  \
  }
EMBER_QBN_FRONTEND(batch_norm1d, quantized_batch_norm1d)
EMBER_QBN_FRONTEND(batch_norm1d_relu, quantized_batch_norm1d_relu)
EMBER_QBN_FRONTEND(batch_norm3d, quantized_batch_norm3d)
EMBER_QBN_FRONTEND(batch_norm3d_relu, quantized_batch_norm3d_relu)
EMBER_QBN_FRONTEND(batch_norm, quantized_batch_norm)
EMBER_QBN_FRONTEND(batch_norm_relu, quantized_batch_norm_relu)
#undef EMBER_QBN_FRONTEND
}  // namespace quantized

EMBER_REGISTER_OP(quantized_batch_norm1d, &quantized::batch_norm1d);
EMBER_REGISTER_OP(quantized_batch_norm1d_relu, &quantized::batch_norm1d_relu);
EMBER_REGISTER_OP(quantized_batch_norm3d, &quantized::batch_norm3d);
EMBER_REGISTER_OP(quantized_batch_norm3d_relu, &quantized::batch_norm3d_relu);
EMBER_REGISTER_OP(quantized_batch_norm, &quantized::batch_norm);
EMBER_REGISTER_OP(quantized_batch_norm_relu, &quantized::batch_norm_relu);

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
