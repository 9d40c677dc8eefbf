// 3-d and transposed int8 convolutions: a scalar reference and a packed gather kernel (Note
// [Gathered transposed convolution] in qconv_nd.h). Both accumulate exactly in int32 and
// requantize with the 2-d kernels' constants (requant.h), so they agree bit for bit.
#include "qconv_nd.h"

#include <algorithm>

#include "ember/error.h"
#include "ember/parallel.h"
#include "backends/cpu/gemm.h"
#include "onednn_int8.h"
#include "requant.h"

namespace ember::cpu::quantized {

Dims3 QConvNdGeometry::out_size(const Dims3& in) const {
  Dims3 o{};
  for (int i = 0; i < 3; ++i) {
    o[i] = transposed ? (in[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1) +
                            output_padding[i] + 1
                      : (in[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) / stride[i] + 1;
  }
  return o;
}

namespace {

// The input position that output position `o` reads through kernel offset `k` along one
// dimension, or -1 when there is none (outside the input, or a transposed stride that does not
// divide).
inline int64_t input_pos(const QConvNdGeometry& g, int dim, int64_t o, int64_t k, int64_t in) {
  if (!g.transposed) {
    const int64_t i = o * g.stride[dim] - g.padding[dim] + k * g.dilation[dim];
    return i >= 0 && i < in ? i : -1;
  }
  const int64_t t = o + g.padding[dim] - k * g.dilation[dim];
  if (t < 0 || t % g.stride[dim] != 0) return -1;
  const int64_t i = t / g.stride[dim];
  return i < in ? i : -1;
}

// Index of weight element (group gi, output channel ol of the group, input channel cl of the
// group, kernel offset kk = (kd*KH + kh)*KW + kw) in PyTorch's layout.
inline int64_t weight_index(const QConvNdGeometry& g, int64_t gi, int64_t ol, int64_t cl,
                            int64_t kk) {
  const int64_t K = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const int64_t Cg = g.in_channels / g.groups, Og = g.out_channels / g.groups;
  return g.transposed ? ((gi * Cg + cl) * Og + ol) * K + kk : ((gi * Og + ol) * Cg + cl) * K + kk;
}

void check_geometry(const QConvNdGeometry& g) {
  EMBER_CHECK(g.groups > 0 && g.in_channels % g.groups == 0 && g.out_channels % g.groups == 0,
              "quantized convolution: channels (", g.in_channels, " in, ", g.out_channels,
              " out) must be divisible by groups (", g.groups, ")");
  for (int i = 0; i < 3; ++i) {
    EMBER_CHECK(g.kernel[i] > 0 && g.stride[i] > 0 && g.dilation[i] > 0 && g.padding[i] >= 0 &&
                    g.output_padding[i] >= 0,
                "quantized convolution: invalid geometry (kernel, stride and dilation must be "
                "positive, padding and output padding non-negative)");
  }
}

}  // namespace

std::unique_ptr<PackedQConvNd> PackedQConvNd::create(QFormula formula, const QConvNdGeometry& g,
                                                     const int8_t* weight, const double* w_scales,
                                                     const int64_t* w_zero_points,
                                                     int64_t n_wparams, const float* bias) {
  check_geometry(g);
  const detail::WeightParams wp = detail::expand_weight_params(
      formula, "quantized convolution", g.out_channels, w_scales, w_zero_points, n_wparams);
  std::unique_ptr<PackedQConvNd> p(new PackedQConvNd());
  p->formula_ = formula;
  p->g_ = g;
  p->w_scales_ = wp.scales;
  p->w_zero_points_ = wp.zero_points;
  p->has_bias_ = bias != nullptr;
  if (bias) p->bias_.assign(bias, bias + g.out_channels);
  const int64_t K = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const int64_t Cg = g.in_channels / g.groups, Og = g.out_channels / g.groups;
  p->wt_.resize(static_cast<size_t>(g.groups * K * Cg * Og));
  for (int64_t gi = 0; gi < g.groups; ++gi)
    for (int64_t kk = 0; kk < K; ++kk)
      for (int64_t cl = 0; cl < Cg; ++cl)
        for (int64_t ol = 0; ol < Og; ++ol)
          p->wt_[((gi * K + kk) * Cg + cl) * Og + ol] =
              static_cast<int32_t>(weight[weight_index(g, gi, ol, cl, kk)]) -
              static_cast<int32_t>(wp.zero_points[gi * Og + ol]);
  if (onednn_int8_enabled() && detail::onednn_int8_exact() && wp.all_zero_points_zero &&
      Og >= 8) {
    std::vector<int8_t> wg(static_cast<size_t>(Og * Cg * K));
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      for (int64_t ol = 0; ol < Og; ++ol)
        for (int64_t cl = 0; cl < Cg; ++cl)
          for (int64_t kk = 0; kk < K; ++kk)
            wg[(ol * Cg + cl) * K + kk] = weight[weight_index(g, gi, ol, cl, kk)];
      p->onednn_.push_back(
          std::make_unique<detail::OnednnWeights>(wg.data(), static_cast<int64_t>(wg.size())));
    }
  }
  return p;
}

PackedQConvNd::~PackedQConvNd() = default;

namespace {

// The position (b, od, oh, ow) of output row `row`.
struct OutPos {
  int64_t b, d, h, w;
};
inline OutPos out_pos(int64_t row, const Dims3& out) {
  OutPos p;
  p.w = row % out[2];
  row /= out[2];
  p.h = row % out[1];
  row /= out[1];
  p.d = row % out[0];
  p.b = row / out[0];
  return p;
}

}  // namespace

void PackedQConvNd::accumulate_onednn(const uint8_t* x, int64_t /*n*/, const Dims3& in,
                                      int32_t zx, int32_t* acc, int64_t row_begin,
                                      int64_t row_end) const {
  const QConvNdGeometry& g = g_;
  const Dims3 out = g.out_size(in);
  const int64_t C = g.in_channels, O = g.out_channels;
  const int64_t K = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const int64_t Cg = C / g.groups, Og = O / g.groups, KK = Cg * K;
  const int64_t m = row_end - row_begin;
  const ScopedOnednnThreads onednn_threads;  // as in qconv.cpp's run()
  detail::Int8Primitive* prim = detail::matmul_s32_primitive(m, KK, Og);
  EMBER_ASSERT(prim, "oneDNN int8 matmul unavailable for a conv whose weights were packed for it");
  std::vector<uint8_t> cols(static_cast<size_t>(m * KK));
  std::vector<int32_t> part(static_cast<size_t>(g.groups > 1 ? m * Og : 0));
  for (int64_t gi = 0; gi < g.groups; ++gi) {
    // im2col of this group's channels: row r, column cl * K + kk.
    for (int64_t r = 0; r < m; ++r) {
      const OutPos o = out_pos(row_begin + r, out);
      uint8_t* col = cols.data() + r * KK;
      for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
        const int64_t id = input_pos(g, 0, o.d, kd, in[0]);
        for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
          const int64_t ih = id < 0 ? -1 : input_pos(g, 1, o.h, kh, in[1]);
          for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
            const int64_t iw = ih < 0 ? -1 : input_pos(g, 2, o.w, kw, in[2]);
            const int64_t kk = (kd * g.kernel[1] + kh) * g.kernel[2] + kw;
            if (iw < 0) {
              for (int64_t cl = 0; cl < Cg; ++cl) col[cl * K + kk] = static_cast<uint8_t>(zx);
              continue;
            }
            const uint8_t* px = x + (((o.b * in[0] + id) * in[1] + ih) * in[2] + iw) * C + gi * Cg;
            for (int64_t cl = 0; cl < Cg; ++cl) col[cl * K + kk] = px[cl];
          }
        }
      }
    }
    const detail::OnednnWeights& w = *onednn_[static_cast<size_t>(gi)];
    int32_t* dst = g.groups > 1 ? part.data() : acc;
    detail::run_s32(*prim, cols.data(),
                    const_cast<detail::OnednnWeights&>(w).for_primitive(*prim), zx, dst);
    if (g.groups > 1) {
      for (int64_t r = 0; r < m; ++r)
        std::copy(part.data() + r * Og, part.data() + (r + 1) * Og, acc + r * O + gi * Og);
    }
  }
}

void PackedQConvNd::accumulate_gather(const uint8_t* x, int64_t /*n*/, const Dims3& in,
                                      int32_t zx, int32_t* acc, int64_t row_begin,
                                      int64_t row_end) const {
  const QConvNdGeometry& g = g_;
  const Dims3 out = g.out_size(in);
  const int64_t C = g.in_channels, O = g.out_channels;
  const int64_t K = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const int64_t Cg = C / g.groups, Og = O / g.groups;
  for (int64_t row = row_begin; row < row_end; ++row) {
    const OutPos o = out_pos(row, out);
    int32_t* a0 = acc + (row - row_begin) * O;
    std::fill(a0, a0 + O, 0);
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
      const int64_t id = input_pos(g, 0, o.d, kd, in[0]);
      if (id < 0) continue;
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
        const int64_t ih = input_pos(g, 1, o.h, kh, in[1]);
        if (ih < 0) continue;
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
          const int64_t iw = input_pos(g, 2, o.w, kw, in[2]);
          if (iw < 0) continue;
          const int64_t kk = (kd * g.kernel[1] + kh) * g.kernel[2] + kw;
          const uint8_t* px = x + (((o.b * in[0] + id) * in[1] + ih) * in[2] + iw) * C;
          for (int64_t gi = 0; gi < g.groups; ++gi) {
            int32_t* a = a0 + gi * Og;
            const int32_t* wk = wt_.data() + (gi * K + kk) * Cg * Og;
            for (int64_t cl = 0; cl < Cg; ++cl) {
              const int32_t xv = static_cast<int32_t>(px[gi * Cg + cl]) - zx;
              const int32_t* w = wk + cl * Og;
              for (int64_t ol = 0; ol < Og; ++ol) a[ol] += xv * w[ol];
            }
          }
        }
      }
    }
  }
}

void PackedQConvNd::run(const uint8_t* x, int64_t n, const Dims3& in, double x_scale,
                        int64_t x_zero_point, uint8_t* y, double y_scale, int64_t y_zero_point,
                        bool relu) const {
  const Dims3 out = g_.out_size(in);
  const int64_t rows = n * out[0] * out[1] * out[2];
  if (rows <= 0) return;
  detail::WeightParams wp;
  wp.scales = w_scales_;
  wp.zero_points = w_zero_points_;
  const detail::Requant r = detail::make_requant(formula_, wp, has_bias_ ? bias_.data() : nullptr,
                                                 x_scale, y_scale, y_zero_point, relu);
  const int64_t O = g_.out_channels;
  const int32_t zx = static_cast<int32_t>(x_zero_point);
  // Blocks of rows keep the gathered patches and accumulators in cache; oneDNN parallelises
  // inside a block, the portable loop across blocks.
  constexpr int64_t kBlock = 1024;
  if (uses_onednn()) {
    std::vector<int32_t> acc(static_cast<size_t>(std::min(rows, kBlock) * O));
    for (int64_t b = 0; b < rows; b += kBlock) {
      const int64_t e = std::min(rows, b + kBlock);
      accumulate_onednn(x, n, in, zx, acc.data(), b, e);
      detail::requantize_rows(r, acc.data(), e - b, O, y + b * O);
    }
    return;
  }
  parallel_for(0, rows, 16, [&](int64_t begin, int64_t end) {
    std::vector<int32_t> acc(static_cast<size_t>((end - begin) * O));
    accumulate_gather(x, n, in, zx, acc.data(), begin, end);
    detail::requantize_rows(r, acc.data(), end - begin, O, y + begin * O);
  });
}

void qconv_nd_ref(QFormula formula, const QConvNdGeometry& g, const int8_t* weight,
                  const double* w_scales, const int64_t* w_zero_points, int64_t n_wparams,
                  const float* bias, const uint8_t* x, int64_t n, const Dims3& in, double x_scale,
                  int64_t x_zero_point, uint8_t* y, double y_scale, int64_t y_zero_point,
                  bool relu) {
  check_geometry(g);
  const detail::WeightParams wp = detail::expand_weight_params(
      formula, "quantized convolution", g.out_channels, w_scales, w_zero_points, n_wparams);
  const detail::Requant r =
      detail::make_requant(formula, wp, bias, x_scale, y_scale, y_zero_point, relu);
  const Dims3 out = g.out_size(in);
  const int64_t C = g.in_channels, O = g.out_channels;
  const int64_t Cg = C / g.groups, Og = O / g.groups;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t od = 0; od < out[0]; ++od)
      for (int64_t oh = 0; oh < out[1]; ++oh)
        for (int64_t ow = 0; ow < out[2]; ++ow)
          for (int64_t o = 0; o < O; ++o) {
            const int64_t gi = o / Og, ol = o % Og;
            int32_t acc = 0;
            for (int64_t cl = 0; cl < Cg; ++cl)
              for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
                for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
                  for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                    const int64_t id = input_pos(g, 0, od, kd, in[0]);
                    const int64_t ih = input_pos(g, 1, oh, kh, in[1]);
                    const int64_t iw = input_pos(g, 2, ow, kw, in[2]);
                    if (id < 0 || ih < 0 || iw < 0) continue;  // padding: the real value 0
                    const int64_t c = gi * Cg + cl;
                    const int32_t xv =
                        x[(((b * in[0] + id) * in[1] + ih) * in[2] + iw) * C + c] -
                        static_cast<int32_t>(x_zero_point);
                    const int64_t kk = (kd * g.kernel[1] + kh) * g.kernel[2] + kw;
                    const int32_t wv = weight[weight_index(g, gi, ol, cl, kk)] -
                                       static_cast<int32_t>(wp.zero_points[o]);
                    acc += xv * wv;
                  }
            y[(((b * out[0] + od) * out[1] + oh) * out[2] + ow) * O + o] =
                detail::requantize_one(r, acc, o);
          }
}

}  // namespace ember::cpu::quantized
