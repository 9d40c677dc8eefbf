// Pooling and resampling of quantized tensors: aten::quantized_max_pool2d (what max_pool2d runs
// on a quantized tensor), and the QuantizedCPU kernels of avg_pool2d, _adaptive_avg_pool2d and
// upsample_nearest2d. Outputs keep the input's qparams and layout. Averages requantize with the
// formula of the PyTorch 1.13 kernel that the engine and the input's layout select
// (QAvgFormula, measured bit-exact against torch). Kernels: qpool_kernels.cpp.
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
using quant_ops::qparams_of;
using quant_ops::visit_codes;

namespace {

// PyTorch's pooling_output_shape (dilation 1 for averages).
int64_t pooled(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil && (out - 1) * stride >= in + pad) --out;
  return out;
}

std::pair<int64_t, int64_t> pair_arg(IntArrayRef v, const char* msg,
                                     std::optional<std::pair<int64_t, int64_t>> fallback = {}) {
  if (v.empty() && fallback) return *fallback;
  EMBER_CHECK(v.size() == 1 || v.size() == 2, msg);
  return {v[0], v.size() == 2 ? v[1] : v[0]};
}

// The 4-d view of a [C, H, W] or [N, C, H, W] input, and the output sizes in the input's rank.
std::vector<int64_t> out_sizes(const Tensor& x, int64_t oh, int64_t ow) {
  auto s = x.sizes().vec();
  s[s.size() - 2] = oh;
  s[s.size() - 1] = ow;
  return s;
}
qk::QPool2d geometry4(const Tensor& x, int64_t oh, int64_t ow) {
  const bool batched = x.dim() == 4;
  return {batched ? x.size(0) : 1, x.size(-3), x.size(-2), x.size(-1), oh, ow, 1, 1, 1, 1, 0, 0};
}

// ---- max pooling ----
Tensor quantized_max_pool2d_q(const Tensor& qx, const IntArrayRef& kernel_size,
                              const IntArrayRef& stride, const IntArrayRef& padding,
                              const IntArrayRef& dilation, const bool& ceil_mode) {
  auto [kh, kw] = pair_arg(
      kernel_size, "max_pool2d: kernel_size must either be a single int, or a tuple of two ints");
  auto [sh, sw] = pair_arg(
      stride, "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints",
      std::pair{kh, kw});
  auto [ph, pw] = pair_arg(
      padding, "max_pool2d: padding must be either be a single int, or a tuple of two ints");
  auto [dh, dw] = pair_arg(
      dilation, "max_pool2d: dilation must be either a single int, or a tuple of two ints");
  const bool qnnpack =
      quantized_engine() == QEngine::QNNPACK && qx.dtype() == kQUInt8 && !ceil_mode;
  if (qnnpack) {
    EMBER_CHECK(qx.dim() == 4, "qnnpack_maxpool2d(): Expected input to be 4-dimensional: got ",
                qx.dim());
    EMBER_CHECK(kh > 0 && kw > 0, "qnnpack_maxpool2d(): kernel_size should be greater than zero.");
    EMBER_CHECK(sh > 0 && sw > 0, "qnnpack_maxpool2d(): strides should be greater than zero.");
    // QNNPACK refuses a 1x1 window; PyTorch asserts on its status (its text kept as the oracle).
    EMBER_CHECK(kh * kw > 1,
                "createStatus == pytorch_qnnp_status_success INTERNAL ASSERT FAILED at "
                "\"./aten/src/ATen/native/quantized/cpu/Pooling.cpp\":315, please report a bug to "
                "PyTorch. failed to create QNNPACK MaxPool operator");
    EMBER_CHECK(ph <= kh / 2 && pw <= kw / 2,
                "pad should be at most half of kernel size, but got pad=", ph > kh / 2 ? ph : pw,
                " and kernel_size=", ph > kh / 2 ? kh : kw);
  }
  EMBER_CHECK(kh > 0 && kw > 0, "kernel_size should be greater than zero.");
  EMBER_CHECK(sh > 0 && sw > 0, "strides should be greater than zero.");
  EMBER_CHECK(dh > 0 && dw > 0, "dilation should be greater than zero. Got (", dh, ", ", dw, ")");
  EMBER_CHECK(qx.dim() == 3 || qx.dim() == 4, "Expecting the input tensor of rank 3 or 4.");
  EMBER_CHECK(qx.size(-3) > 0 && qx.size(-2) > 0 && qx.size(-1) > 0,
              "input dimensions must be non-zero.");
  EMBER_CHECK(kh / 2 >= ph && kw / 2 >= pw, "padding should be smaller than half of kernel_size.");
  const int64_t oh = pooled(qx.size(-2), kh, ph, sh, dh, ceil_mode);
  const int64_t ow = pooled(qx.size(-1), kw, pw, sw, dw, ceil_mode);
  EMBER_CHECK(oh > 0 && ow > 0, "the resulting Tensor is too small.");
  qk::QPool2d g = geometry4(qx, oh, ow);
  g.kh = kh, g.kw = kw, g.sh = sh, g.sw = sw, g.ph = ph, g.pw = pw, g.dh = dh, g.dw = dw;
  if (qnnpack) {
    // QNNPACK pools NHWC; PyTorch converts the result to the input's layout.
    const Tensor x = dense(qx, MemoryFormat::ChannelsLast);
    Tensor out =
        empty_q(qx, out_sizes(qx, oh, ow), kQUInt8, qparams_of(qx), MemoryFormat::ChannelsLast);
    if (out.numel() > 0 && !out.is_meta())
      qk::qmax_pool2d<uint8_t>(codes<uint8_t>(x), mutable_codes<uint8_t>(out), g, true, true);
    return dense(out, qx.suggest_memory_format());
  }
  const bool nhwc = qx.dim() == 4 && qx.is_contiguous(MemoryFormat::ChannelsLast);
  const MemoryFormat fmt = qx.dim() == 4 ? qx.suggest_memory_format() : MemoryFormat::Contiguous;
  const Tensor x = dense(qx, nhwc ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous);
  Tensor out = empty_q(qx, out_sizes(qx, oh, ow), qx.dtype(), qparams_of(qx),
                       nhwc ? fmt : MemoryFormat::Contiguous);
  if (out.numel() == 0) return out;
  compute_codes_for(out, qx.dtype(), [&]<class T>() {
    qk::qmax_pool2d<T>(codes<T>(x), mutable_codes<T>(out), g, nhwc, false);
  });
  return out;
}

Tensor quantized_max_pool2d_cpu(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef,
                                bool) {
  dispatch::no_kernel_error(OpId::quantized_max_pool2d, "CPU");
}

// ---- average pooling ----
Tensor avg_pool2d_q(const Tensor& qx, const IntArrayRef& kernel_size, const IntArrayRef& stride,
                    const IntArrayRef& padding, const bool& ceil_mode,
                    const bool& count_include_pad, const std::optional<int64_t>& divisor_override) {
  auto [kh, kw] = pair_arg(
      kernel_size, "avg_pool2d: kernel_size must either be a single int, or a tuple of two ints");
  auto [sh, sw] = pair_arg(
      stride, "avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints",
      std::pair{kh, kw});
  auto [ph, pw] =
      pair_arg(padding, "avg_pool2d: padding must either be a single int, or a tuple of two ints");
  const bool qnnpack =
      quantized_engine() == QEngine::QNNPACK && qx.dtype() == kQUInt8 && !ceil_mode;
  if (qnnpack) {
    EMBER_CHECK(qx.dim() == 4, "qnnpack_avg_pool2d(): Expected input to be 4-dimensional: got ",
                qx.dim());
  } else {
    EMBER_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  }
  EMBER_CHECK(qx.dim() == 3 || qx.dim() == 4, "avg_pool2d: expected a 3-d or 4-d input, got ",
              qx.dim(), " dims");
  const int64_t oh = pooled(qx.size(-2), kh, ph, sh, 1, ceil_mode);
  const int64_t ow = pooled(qx.size(-1), kw, pw, sw, 1, ceil_mode);
  qk::QPool2d g = geometry4(qx, oh, ow);
  g.kh = kh, g.kw = kw, g.sh = sh, g.sw = sw, g.ph = ph, g.pw = pw;
  const auto p = qparams_of(qx);
  if (qnnpack) {
    // QNNPACK: NHWC, padding counted, no divisor override, its float requantization; a 1x1
    // window is refused.
    EMBER_CHECK(
        kh * kw > 1 && oh > 0 && ow > 0,
        "[enforce fail at AveragePool2d.cpp:322] createStatus == pytorch_qnnp_status_success. "
        "failed to create QNNPACK Average Pooling operator");
    const Tensor x = dense(qx, MemoryFormat::ChannelsLast);
    Tensor out = empty_q(qx, out_sizes(qx, oh, ow), kQUInt8, p, MemoryFormat::ChannelsLast);
    if (out.numel() > 0 && !out.is_meta())
      qk::qavg_pool2d<uint8_t>(codes<uint8_t>(x), mutable_codes<uint8_t>(out), g, true, true, 0, p,
                               p, qk::QAvgFormula::Qnnpack);
    return dense(out, qx.suggest_memory_format());
  }
  const bool nhwc = qx.dim() == 4 && qx.is_contiguous(MemoryFormat::ChannelsLast);
  const Tensor x = dense(qx, nhwc ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous);
  Tensor out = empty_q(qx, out_sizes(qx, oh, ow), qx.dtype(), p,
                       nhwc ? qx.suggest_memory_format() : MemoryFormat::Contiguous);
  if (out.numel() == 0) return out;
  compute_codes_for(out, qx.dtype(), [&]<class T>() {
    qk::qavg_pool2d<T>(codes<T>(x), mutable_codes<T>(out), g, nhwc, count_include_pad,
                       divisor_override.value_or(0), p, p,
                       nhwc ? qk::QAvgFormula::GenericNhwc : qk::QAvgFormula::GenericNchw);
  });
  return out;
}

// ---- adaptive average pooling ----
Tensor adaptive_avg_pool2d_q(const Tensor& qx, const IntArrayRef& output_size) {
  EMBER_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  for (int64_t i = 1; i < qx.dim(); ++i) {
    EMBER_CHECK(qx.size(i) > 0,
                "adaptive_avg_pooling2d(): expected input to have non-empty spatial "
                "dimensions, but input has sizes ",
                qx.sizes(), " with dimension ", i, " being empty");
  }
  EMBER_CHECK(qx.dim() == 3 || qx.dim() == 4,
              "non-empty 3D or 4D (batch mode) tensor expected for input");
  const int64_t oh = output_size[0], ow = output_size[1];
  const int64_t H = qx.size(-2), W = qx.size(-1);
  const auto p = qparams_of(qx);
  qk::QPool2d g = geometry4(qx, oh, ow);
  const bool qnnpack = quantized_engine() == QEngine::QNNPACK && qx.dtype() == kQUInt8 &&
                       !(H == oh && W == ow) && oh > 0 && ow > 0 && H % oh == 0 && W % ow == 0;
  if (qnnpack) {
    // PyTorch runs QNNPACK's average pooling with kernel = stride = input / output.
    const int64_t kh = H / oh, kw = W / ow;
    return avg_pool2d_q(qx, IntArrayRef({kh, kw}), IntArrayRef({kh, kw}), IntArrayRef({0, 0}),
                        false, false, std::nullopt);
  }
  const bool nhwc = qx.dim() == 4 && qx.is_contiguous(MemoryFormat::ChannelsLast);
  const Tensor x = dense(qx, nhwc ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous);
  Tensor out = empty_q(qx, out_sizes(qx, oh, ow), qx.dtype(), p,
                       nhwc ? qx.suggest_memory_format() : MemoryFormat::Contiguous);
  if (out.numel() == 0) return out;
  compute_codes_for(out, qx.dtype(), [&]<class T>() {
    qk::qadaptive_avg_pool2d<T>(codes<T>(x), mutable_codes<T>(out), g, nhwc, p);
  });
  return out;
}

// ---- nearest upsampling ----
// PyTorch's nearest_idx: the same size and exact doubling are special-cased, otherwise
// floor(o * scale) with scale = f32(1 / scales) when given, else in / out.
float nearest_scale(int64_t in, int64_t out, const std::optional<double>& scale) {
  if (out == in) return 1.0f;
  if (out == 2 * in) return 0.5f;
  if (scale && *scale > 0) return static_cast<float>(1.0 / *scale);
  return static_cast<float>(in) / static_cast<float>(out);
}

Tensor upsample_nearest2d_q(const Tensor& qx, const IntArrayRef& output_size,
                            const std::optional<double>& scales_h,
                            const std::optional<double>& scales_w) {
  EMBER_CHECK(output_size.size() == 2, "It is expected output_size equals to 2, but got size ",
              output_size.size());
  EMBER_CHECK(qx.dim() == 4, "Non-empty 4D data tensor expected but got a tensor with sizes ",
              qx.sizes());
  const int64_t oh = output_size[0], ow = output_size[1];
  const bool nhwc = qx.is_contiguous(MemoryFormat::ChannelsLast);
  const Tensor x = dense(qx, nhwc ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous);
  Tensor out = empty_q(qx, {qx.size(0), qx.size(1), oh, ow}, qx.dtype(), qparams_of(qx),
                       nhwc ? qx.suggest_memory_format() : MemoryFormat::Contiguous);
  if (out.numel() == 0) return out;
  const qk::QPool2d g = geometry4(qx, oh, ow);
  const float fh = nearest_scale(g.H, oh, scales_h), fw = nearest_scale(g.W, ow, scales_w);
  compute_codes_for(out, qx.dtype(), [&]<class T>() {
    qk::qupsample_nearest2d<T>(codes<T>(x), mutable_codes<T>(out), g, nhwc, fh, fw);
  });
  return out;
}

}  // namespace

EMBER_REGISTER_QUANTIZED(quantized_max_pool2d, &quantized_max_pool2d_q);
EMBER_REGISTER_QUANTIZED(avg_pool2d, &avg_pool2d_q);
EMBER_REGISTER_QUANTIZED(_adaptive_avg_pool2d, &adaptive_avg_pool2d_q);
EMBER_REGISTER_QUANTIZED(upsample_nearest2d, &upsample_nearest2d_q);

Tensor quantized_max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                            IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return dispatch::call<quantized_max_pool2d_cpu>(OpId::quantized_max_pool2d, self, kernel_size,
                                                  stride, padding, dilation, ceil_mode);
}
EMBER_REGISTER_OP(quantized_max_pool2d, &quantized_max_pool2d);

}  // namespace ember
