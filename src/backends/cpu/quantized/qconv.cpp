// The packed int8 convolution and linear: exact int32 accumulators (oneDNN on a VNNI CPU with
// symmetric weights, Note [Exact int8 accumulators from oneDNN]; otherwise the portable kernel
// below), then the formula's requantization (Note [int8 requantization formulas]).
#include <algorithm>
#include <atomic>
#include <cstring>

#include "ember/error.h"
#include "ember/parallel.h"
#include "backends/cpu/gemm.h"
#include "onednn_int8.h"
#include "qdepthwise.h"
#include "qpointwise_amx.h"
#include "requant.h"

namespace ember::cpu::quantized {

PackedQConv2d::~PackedQConv2d() = default;
PackedQLinear::~PackedQLinear() = default;

namespace {
std::atomic<bool> g_onednn_enabled{true};
}  // namespace

void set_onednn_int8_enabled(bool enabled) { g_onednn_enabled.store(enabled); }
bool onednn_int8_enabled() { return g_onednn_enabled.load(); }

namespace {

using detail::Requant;
using detail::WeightParams;

// Per-thread scratch (accumulators, quantized inputs, patches), grown as needed.
template <class T>
T* scratch(std::vector<T>& v, int64_t n) {
  if (static_cast<int64_t>(v.size()) < n) v.resize(n);
  return v.data();
}
thread_local std::vector<int32_t> t_acc;
thread_local std::vector<uint8_t> t_qx;

int64_t next_pack_id() {
  static std::atomic<int64_t> next{1};
  return next.fetch_add(1);
}

// Output rows per parallel chunk so that each holds at least ~16K outputs.
int64_t row_grain(int64_t row_len) {
  return std::max<int64_t>(1, 16384 / std::max<int64_t>(1, row_len));
}

// Portable exact kernel: weights as int16 (q_w - z_w[o]), reduction order [kh][kw][c] so
// that a patch of the NHWC input is contiguous per tap; int32 dot products.
// The sum wraps modulo 2^32 as the int32 accumulators of every engine do (and as the
// reference's int64 sum cast to int32), without signed overflow.
int32_t dot16(const int16_t* a, const int16_t* b, int64_t n) {
  uint32_t s = 0;
  for (int64_t i = 0; i < n; ++i) {
    s += static_cast<uint32_t>(static_cast<int32_t>(a[i]) * static_cast<int32_t>(b[i]));
  }
  return static_cast<int32_t>(s);
}

void check_geometry(const QConvGeometry& g) {
  EMBER_CHECK(g.groups > 0 && g.in_channels > 0 && g.out_channels >= 0 &&
                  g.in_channels % g.groups == 0 && g.out_channels % g.groups == 0,
              "quantized::conv2d: in_channels (", g.in_channels, ") and out_channels (",
              g.out_channels, ") must be divisible by groups (", g.groups, ")");
  EMBER_CHECK(g.kernel_h > 0 && g.kernel_w > 0 && g.stride_h > 0 && g.stride_w > 0 &&
                  g.dilation_h > 0 && g.dilation_w > 0 && g.pad_h >= 0 && g.pad_w >= 0,
              "quantized::conv2d: expected positive kernel size, stride and dilation and "
              "non-negative padding, got kernel (",
              g.kernel_h, ", ", g.kernel_w, "), stride (", g.stride_h, ", ", g.stride_w,
              "), dilation (", g.dilation_h, ", ", g.dilation_w, "), padding (", g.pad_h, ", ",
              g.pad_w, ")");
}

void check_x_zero_point(int64_t zx) {
  EMBER_CHECK(zx >= 0 && zx <= 255, "quantized kernel: input zero point ", zx,
              " is outside the quint8 range [0, 255]");
}

class QConv2dImpl final : public PackedQConv2d {
 public:
  QConv2dImpl(QFormula f, const QConvGeometry& g, const int8_t* weight, WeightParams wp,
              const float* bias)
      : PackedQConv2d(f, g), wp_(std::move(wp)) {
    const int64_t cg = g.in_channels / g.groups, taps = g.kernel_h * g.kernel_w;
    if (bias) bias_.assign(bias, bias + g.out_channels);
    if (onednn_int8_enabled() && detail::onednn_int8_exact() && wp_.all_zero_points_zero) {
      onednn_ = std::make_unique<detail::OnednnWeights>(weight, g.out_channels * cg * taps);
      // The fast engine's 3x3 depthwise layers run on ember's own kernel (Note [Direct 3x3
      // depthwise int8 kernel]): faster than oneDNN's on every such shape measured.
      if (f == QFormula::Onednn && detail::dw3x3_applies(g)) {
        dw3x3_ = std::make_unique<detail::Dw3x3Weights>(weight, g.out_channels);
      }
      // 1x1 convolutions run on AMX tiles where the CPU has them (Note [1x1 int8 convolutions
      // on AMX tiles]), for both formulas: the tiles give the exact sums.
      if (pointwise() && detail::amx_int8_usable()) {
        amx_ = std::make_unique<detail::AmxWeights>(weight, g.out_channels, g.in_channels);
      }
    }
    // The portable layout is kept too: oneDNN may have no implementation for some shape.
    w16_.resize(g.out_channels * taps * cg);
    for (int64_t o = 0; o < g.out_channels; ++o) {
      for (int64_t c = 0; c < cg; ++c) {
        for (int64_t t = 0; t < taps; ++t) {
          w16_[(o * taps + t) * cg + c] =
              static_cast<int16_t>(weight[(o * cg + c) * taps + t] - wp_.zero_points[o]);
        }
      }
    }
  }

  bool uses_onednn() const override { return onednn_ != nullptr; }

  void run(const uint8_t* x, int64_t n, int64_t h, int64_t w, double x_scale, int64_t x_zero_point,
           uint8_t* y, double y_scale, int64_t y_zero_point, bool relu) override {
    const QConvGeometry& g = geometry_;
    const int64_t oh = g.out_h(h), ow = g.out_w(w), O = g.out_channels;
    if (n == 0 || oh <= 0 || ow <= 0 || O == 0) return;
    check_x_zero_point(x_zero_point);
    // oneDNN runs on the calling thread's OpenMP team: sized to ember's thread count for the
    // call, and the caller's setting restored after it (libgomp's count is shared with anything
    // else in the process, PyTorch included: Note [Torch's float convolution paths]).
    const ScopedOnednnThreads onednn_threads;
    const auto cached = requant_.get(formula_, wp_, bias_.empty() ? nullptr : bias_.data(),
                                     x_scale, y_scale, y_zero_point, relu);
    const Requant& r = *cached;
    const int64_t rows = n * oh * ow;
    if (amx_ && rows >= detail::kAmxMinRows && detail::pointwise_amx_enabled()) {
      detail::pointwise_amx_run(*amx_, x, rows, static_cast<int32_t>(x_zero_point), r, y);
      return;
    }
    if (dw3x3_ && detail::dw3x3_enabled()) {
      detail::dw3x3_run(*dw3x3_, g, x, n, h, w, static_cast<int32_t>(x_zero_point), r, y);
      return;
    }
    if (onednn_ && formula_ == QFormula::Onednn) {
      const auto out = relu ? detail::Output::U8Relu : detail::Output::U8;
      detail::FixedScales fixed{r.mult.data(), id_, 0, 0};
      std::memcpy(&fixed.x_scale_bits, &x_scale, sizeof(double));
      std::memcpy(&fixed.y_scale_bits, &y_scale, sizeof(double));
      if (detail::Int8Primitive* p = detail::conv_primitive(g, n, h, w, out, &fixed)) {
        detail::run_u8(*p, x, onednn_->for_primitive(*p), static_cast<int32_t>(x_zero_point),
                       r.fbias.data(), r.zero_point, y);
        return;
      }
    }
    if (onednn_ && pointwise() &&
        run_pointwise_chunked(x, rows, static_cast<int32_t>(x_zero_point), y, r)) {
      return;
    }
    if (onednn_) {
      if (detail::Int8Primitive* p = detail::conv_primitive(g, n, h, w, detail::Output::S32)) {
        int32_t* acc = scratch(t_acc, rows * O);
        detail::run_s32(*p, x, onednn_->for_primitive(*p), static_cast<int32_t>(x_zero_point), acc);
        parallel_for(0, rows, row_grain(O), [&](int64_t b, int64_t e) {
          detail::requantize_rows(r, acc + b * O, e - b, O, y + b * O);
        });
        return;
      }
    }
    run_portable(x, n, h, w, static_cast<int32_t>(x_zero_point), y, r);
  }

 private:
  bool pointwise() const {
    const QConvGeometry& g = geometry_;
    return g.kernel_h == 1 && g.kernel_w == 1 && g.stride_h == 1 && g.stride_w == 1 &&
           g.pad_h == 0 && g.pad_w == 0 && g.groups == 1;
  }

  // Note [Chunked int32 accumulators]: a 1x1 convolution is a matmul over the NHWC pixels; run
  // it on blocks of pixels whose int32 accumulators stay in the L2 cache (~256 KB) and
  // requantize each block right away. Writing a whole layer's accumulators first (4 bytes per
  // output, 4.8 MB for MobileNetV2's 16->96 at 112x112) and reading them back made that layer
  // 6x slower than oneDNN's own u8 output.
  bool run_pointwise_chunked(const uint8_t* x, int64_t rows, int32_t zx, uint8_t* y,
                             const Requant& r) {
    const int64_t C = geometry_.in_channels, O = geometry_.out_channels;
    const int64_t chunk = std::max<int64_t>(64, (int64_t{256} << 10) / (4 * O));
    if (rows <= chunk) return false;  // one block: the convolution primitive itself
    detail::Int8Primitive* full = detail::matmul_s32_primitive(chunk, C, O);
    if (!full) return false;
    int32_t* acc = scratch(t_acc, chunk * O);
    for (int64_t b = 0; b < rows; b += chunk) {
      const int64_t m = std::min(chunk, rows - b);
      detail::Int8Primitive* p = m == chunk ? full : detail::matmul_s32_primitive(m, C, O);
      if (!p) return b == 0 ? false : (run_rows_portable(x, b, rows, zx, y, r), true);
      detail::run_s32(*p, x + b * C, onednn_->for_primitive(*p), zx, acc);
      parallel_for(0, m, row_grain(O), [&](int64_t lo, int64_t hi) {
        detail::requantize_rows(r, acc + lo * O, hi - lo, O, y + (b + lo) * O);
      });
    }
    return true;
  }

  // Pixels [b, e) of a 1x1 convolution by the portable kernel (a tail oneDNN cannot run).
  void run_rows_portable(const uint8_t* x, int64_t b, int64_t e, int32_t zx, uint8_t* y,
                         const Requant& r) const {
    const int64_t C = geometry_.in_channels, O = geometry_.out_channels;
    std::vector<int16_t> row(C);
    std::vector<int32_t> acc(O);
    for (int64_t i = b; i < e; ++i) {
      for (int64_t c = 0; c < C; ++c) row[c] = static_cast<int16_t>(x[i * C + c] - zx);
      for (int64_t o = 0; o < O; ++o) acc[o] = dot16(row.data(), w16_.data() + o * C, C);
      detail::requantize_rows(r, acc.data(), 1, O, y + i * O);
    }
  }

  // One output row (n, oh) at a time: gather each output pixel's patch as int16 (x - z_x, 0
  // in the padding), dot it with each output channel's weights, requantize the row.
  void run_portable(const uint8_t* x, int64_t n, int64_t h, int64_t w, int32_t zx, uint8_t* y,
                    const Requant& r) const {
    const QConvGeometry& g = geometry_;
    const int64_t oh_n = g.out_h(h), ow_n = g.out_w(w), O = g.out_channels, C = g.in_channels;
    const int64_t cg = C / g.groups, og = O / g.groups, taps = g.kernel_h * g.kernel_w;
    const int64_t plen = taps * cg;
    parallel_for(0, n * oh_n, 1, [&](int64_t b, int64_t e) {
      std::vector<int16_t> patch(plen);
      std::vector<int32_t> acc(ow_n * O);
      for (int64_t row = b; row < e; ++row) {
        const int64_t bn = row / oh_n, oh = row % oh_n;
        const uint8_t* xb = x + bn * h * w * C;
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          for (int64_t gi = 0; gi < g.groups; ++gi) {
            for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
              const int64_t ih = oh * g.stride_h - g.pad_h + kh * g.dilation_h;
              for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
                const int64_t iw = ow * g.stride_w - g.pad_w + kw * g.dilation_w;
                int16_t* pp = patch.data() + (kh * g.kernel_w + kw) * cg;
                if (ih < 0 || ih >= h || iw < 0 || iw >= w) {
                  std::fill(pp, pp + cg, int16_t{0});
                  continue;
                }
                const uint8_t* px = xb + (ih * w + iw) * C + gi * cg;
                for (int64_t c = 0; c < cg; ++c) pp[c] = static_cast<int16_t>(px[c] - zx);
              }
            }
            for (int64_t o = gi * og; o < (gi + 1) * og; ++o) {
              acc[ow * O + o] = dot16(patch.data(), w16_.data() + o * plen, plen);
            }
          }
        }
        detail::requantize_rows(r, acc.data(), ow_n, O, y + row * ow_n * O);
      }
    });
  }

  WeightParams wp_;
  detail::RequantCache requant_;
  std::vector<float> bias_;
  std::vector<int16_t> w16_;
  std::unique_ptr<detail::OnednnWeights> onednn_;
  std::unique_ptr<detail::Dw3x3Weights> dw3x3_;  // the direct depthwise kernel's layout
  std::unique_ptr<detail::AmxWeights> amx_;       // the AMX 1x1 kernel's layout
  // Identifies this pack in the primitive caches (Note [Exact int8 accumulators from oneDNN]).
  const int64_t id_ = next_pack_id();
};

class QLinearImpl final : public PackedQLinear {
 public:
  QLinearImpl(QFormula f, int64_t in, int64_t out, const int8_t* weight, WeightParams wp,
              const float* bias)
      : PackedQLinear(f, in, out), wp_(std::move(wp)) {
    if (bias) bias_.assign(bias, bias + out);
    // (oneDNN has no use for an empty product: K == 0 gives zero accumulators below.)
    if (onednn_int8_enabled() && detail::onednn_int8_exact() && wp_.all_zero_points_zero &&
        in > 0 && out > 0) {
      onednn_ = std::make_unique<detail::OnednnWeights>(weight, in * out);
      // As the 1x1 convolutions (Note [1x1 int8 convolutions on AMX tiles]).
      if (detail::amx_int8_usable()) amx_ = std::make_unique<detail::AmxWeights>(weight, out, in);
    }
    w16_.resize(in * out);
    for (int64_t o = 0; o < out; ++o) {
      for (int64_t k = 0; k < in; ++k) {
        w16_[o * in + k] = static_cast<int16_t>(weight[o * in + k] - wp_.zero_points[o]);
      }
    }
  }

  bool uses_onednn() const override { return onednn_ != nullptr; }

  void run(const uint8_t* x, int64_t m, double x_scale, int64_t x_zero_point, uint8_t* y,
           double y_scale, int64_t y_zero_point, bool relu) override {
    const int64_t O = out_features_;
    if (m == 0 || O == 0) return;
    check_x_zero_point(x_zero_point);
    const auto cached = requant_.get(formula_, wp_, bias_.empty() ? nullptr : bias_.data(),
                                     x_scale, y_scale, y_zero_point, relu);
    const Requant& r = *cached;
    if (amx_ && m >= detail::kAmxMinRows && detail::pointwise_amx_enabled()) {
      detail::pointwise_amx_run(*amx_, x, m, static_cast<int32_t>(x_zero_point), r, y);
      return;
    }
    // Otherwise linear (a matmul) always takes the s32 path: oneDNN 2.6's only u8-output int8 matmul with
    // per-call scales is its gemm:jit one, 10x slower at batch 1 than brgemm with s32 output
    // plus our requantization (measured 1280->1000: 229 us vs 21 us).
    int32_t* acc = scratch(t_acc, m * O);
    accumulate(x, m, static_cast<int32_t>(x_zero_point), acc);
    parallel_for(0, m, row_grain(O), [&](int64_t b, int64_t e) {
      detail::requantize_rows(r, acc + b * O, e - b, O, y + b * O);
    });
  }

  void run_dynamic(const float* x, int64_t m, float* y, bool reduce_range, bool relu) override {
    const int64_t K = in_features_, O = out_features_;
    if (m == 0 || O == 0) return;
    float mn = 0.f, mx = 0.f;
    if (m * K > 0) detail::min_max(x, m * K, &mn, &mx);
    const DynamicQParams qp =
        choose_dynamic_qparams(mn, mx, formula_ == QFormula::Onednn && reduce_range);
    uint8_t* qx = scratch(t_qx, m * K);
    detail::quantize_input(formula_, x, m * K, detail::dynamic_inv_scale(formula_, qp.scale),
                           qp.zero_point, qx);
    const std::vector<float> d = detail::dynamic_dequant_scales(wp_, qp.scale);
    int32_t* acc = scratch(t_acc, m * O);
    accumulate(qx, m, qp.zero_point, acc);
    const float* b = bias_.empty() ? nullptr : bias_.data();
    parallel_for(0, m, row_grain(O), [&](int64_t lo, int64_t hi) {
      detail::dequantize_rows(acc + lo * O, hi - lo, O, d.data(), b, relu, y + lo * O);
    });
  }

 private:
  void accumulate(const uint8_t* x, int64_t m, int32_t zx, int32_t* acc) const {
    const int64_t K = in_features_, O = out_features_;
    if (amx_ && m >= detail::kAmxMinRows && detail::pointwise_amx_enabled()) {
      detail::pointwise_amx_sums(*amx_, x, m, zx, acc);
      return;
    }
    if (onednn_) {
      const ScopedOnednnThreads onednn_threads;  // as in the convolution's run()
      if (detail::Int8Primitive* p = detail::matmul_s32_primitive(m, K, O)) {
        detail::run_s32(*p, x, onednn_->for_primitive(*p), zx, acc);
        return;
      }
    }
    parallel_for(0, m, 1, [&](int64_t b, int64_t e) {
      std::vector<int16_t> row(K);
      for (int64_t i = b; i < e; ++i) {
        for (int64_t k = 0; k < K; ++k) row[k] = static_cast<int16_t>(x[i * K + k] - zx);
        for (int64_t o = 0; o < O; ++o) acc[i * O + o] = dot16(row.data(), w16_.data() + o * K, K);
      }
    });
  }

  WeightParams wp_;
  detail::RequantCache requant_;
  std::vector<float> bias_;
  std::vector<int16_t> w16_;
  std::unique_ptr<detail::OnednnWeights> onednn_;
  std::unique_ptr<detail::AmxWeights> amx_;
};

}  // namespace

std::unique_ptr<PackedQConv2d> PackedQConv2d::create(QFormula formula, const QConvGeometry& g,
                                                     const int8_t* weight, const double* w_scales,
                                                     const int64_t* w_zero_points,
                                                     int64_t n_wparams, const float* bias) {
  check_geometry(g);
  WeightParams wp = detail::expand_weight_params(
      formula, "quantized::conv2d_prepack", g.out_channels, w_scales, w_zero_points, n_wparams);
  if (formula == QFormula::Onednn) {
    EMBER_CHECK(wp.all_zero_points_zero,
                "quantized::qconv_prepack: ONEDNN only supports symmetric quantization of weight, "
                "whose zero point must be 0.");
  }
  return std::make_unique<QConv2dImpl>(formula, g, weight, std::move(wp), bias);
}

std::unique_ptr<PackedQLinear> PackedQLinear::create(QFormula formula, int64_t in_features,
                                                     int64_t out_features, const int8_t* weight,
                                                     const double* w_scales,
                                                     const int64_t* w_zero_points,
                                                     int64_t n_wparams, const float* bias) {
  EMBER_CHECK(in_features >= 0 && out_features >= 0,
              "quantized::linear_prepack: expected non-negative sizes, got in_features ",
              in_features, " and out_features ", out_features);
  WeightParams wp = detail::expand_weight_params(formula, "quantized::linear_prepack", out_features,
                                                 w_scales, w_zero_points, n_wparams);
  if (formula == QFormula::Onednn) {
    for (int64_t i = 0; i < n_wparams; ++i) {
      if (w_zero_points[i] == 0) continue;
      if (n_wparams == 1) {
        EMBER_FAIL(
            "quantized::linear_prepack: ONEDNN only supports symmetric quantization of "
            "weight, whose zero point must be 0, but got ",
            w_zero_points[i]);
      }
      EMBER_FAIL(
          "quantized::linear_prepack: ONEDNN only supports symmetric quantization of "
          "weight, whose zero point must be 0, but got ",
          w_zero_points[i], ", at index ", i);
    }
  }
  return std::make_unique<QLinearImpl>(formula, in_features, out_features, weight, std::move(wp),
                                       bias);
}

}  // namespace ember::cpu::quantized
