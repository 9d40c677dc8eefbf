// Quantized pooling and resampling on codes: max_pool2d, avg_pool2d, adaptive_avg_pool2d,
// upsample_nearest2d, for NCHW- or NHWC-contiguous buffers. The averages requantize with the
// formula of the PyTorch 1.13 kernel that the engine and layout select (QAvgFormula).

#include <vector>

#include "ember/parallel.h"
#include "qelementwise_kernels.h"

namespace ember::cpu::quantized {

namespace {

// Offsets of element (n, c, h, w) in a dense buffer of sizes (N, C, H, W).
struct Idx {
  int64_t N, C, H, W;
  bool nhwc;
  int64_t operator()(int64_t n, int64_t c, int64_t h, int64_t w) const {
    return nhwc ? ((n * H + h) * W + w) * C + c : ((n * C + c) * H + h) * W + w;
  }
};

// Runs fn(n, c, oh, ow) over every output element, parallel over (n, oh) rows for NHWC and over
// (n, c) planes for NCHW.
template <class F>
void for_outputs(const QPool2d& g, bool nhwc, const F& fn) {
  if (nhwc) {
    parallel_for(0, g.N * g.OH, 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t ow = 0; ow < g.OW; ++ow)
          for (int64_t c = 0; c < g.C; ++c) fn(r / g.OH, c, r % g.OH, ow);
    });
  } else {
    parallel_for(0, g.N * g.C, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p)
        for (int64_t oh = 0; oh < g.OH; ++oh)
          for (int64_t ow = 0; ow < g.OW; ++ow) fn(p / g.C, p % g.C, oh, ow);
    });
  }
}

// The scalar references' loop: y[(n, c, oh, ow)] = value(n, c, oh, ow) for every output element,
// in order, on the calling thread (y dense in the layout `nhwc` says).
template <class T, class F>
void ref_outputs(T* y, const QPool2d& g, bool nhwc, const F& value) {
  const Idx iy{g.N, g.C, g.OH, g.OW, nhwc};
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t c = 0; c < g.C; ++c)
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) y[iy(n, c, oh, ow)] = value(n, c, oh, ow);
}

// A window coordinate: -1 to skip it, or the index read (clamped to the edge for QNNPACK).
inline int64_t pool_coord(int64_t v, int64_t size, bool edge_clamp) {
  if (edge_clamp) return std::min(std::max<int64_t>(v, 0), size - 1);
  return v < 0 || v >= size ? -1 : v;
}

template <class T>
T max_one(const T* x, const QPool2d& g, const Idx& ix, int64_t n, int64_t c, int64_t oh, int64_t ow,
          bool edge_clamp) {
  const int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
  T best = std::numeric_limits<T>::lowest();
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t h = pool_coord(h0 + i * g.dh, g.H, edge_clamp);
    if (h < 0) continue;
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t w = pool_coord(w0 + j * g.dw, g.W, edge_clamp);
      if (w < 0) continue;
      best = std::max(best, x[ix(n, c, h, w)]);
    }
  }
  return best;
}

// Note [Loops over codes] (qbinary_kernels.cpp): the length is a by-value parameter.
template <class T>
void max_into(T* out, const T* in, const int64_t C) {
  for (int64_t c = 0; c < C; ++c) out[c] = std::max(out[c], in[c]);
}

}  // namespace

template <class T>
void qmax_pool2d_ref(const T* x, T* y, const QPool2d& g, bool nhwc, bool edge_clamp) {
  const Idx ix{g.N, g.C, g.H, g.W, nhwc};
  ref_outputs(y, g, nhwc, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
    return max_one(x, g, ix, n, c, oh, ow, edge_clamp);
  });
}

template <class T>
void qmax_pool2d(const T* x, T* y, const QPool2d& g, bool nhwc, bool edge_clamp) {
  const Idx ix{g.N, g.C, g.H, g.W, nhwc}, iy{g.N, g.C, g.OH, g.OW, nhwc};
  if (!nhwc) {
    for_outputs(g, false, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
      y[iy(n, c, oh, ow)] = max_one(x, g, ix, n, c, oh, ow, edge_clamp);
    });
    return;
  }
  // NHWC: the channel loop innermost over contiguous codes (vectorises).
  parallel_for(0, g.N * g.OH, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / g.OH, oh = r % g.OH;
      for (int64_t ow = 0; ow < g.OW; ++ow) {
        T* out = y + iy(n, 0, oh, ow);
        std::fill(out, out + g.C, std::numeric_limits<T>::lowest());
        for (int64_t i = 0; i < g.kh; ++i) {
          const int64_t h = pool_coord(oh * g.sh - g.ph + i * g.dh, g.H, edge_clamp);
          if (h < 0) continue;
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t w = pool_coord(ow * g.sw - g.pw + j * g.dw, g.W, edge_clamp);
            if (w < 0) continue;
            max_into<T>(out, x + ix(n, 0, h, w), g.C);
          }
        }
      }
    }
  });
}

// ---- averages ----
namespace {

template <class T>
T requant_avg(int64_t acc, int64_t c, int64_t C, int64_t div, QParams in, QParams out,
              QAvgFormula f) {
  const float a = static_cast<float>(static_cast<int32_t>(acc));
  int64_t q;
  switch (f) {
    case QAvgFormula::GenericNchw: {
      const float m = static_cast<float>(in.scale / out.scale / static_cast<double>(div));
      q = static_cast<int64_t>(std::nearbyint(a * m + static_cast<float>(out.zero_point)));
      break;
    }
    case QAvgFormula::GenericNhwc: {
      const float m =
          static_cast<float>(in.scale) / static_cast<float>(out.scale) / static_cast<float>(div);
      // The AVX2 part multiplies by m; the channel tail calls quantize_val(1 / m), which
      // multiplies by f32(1 / f32(1 / m)).
      const float mm = c < C / 8 * 8 ? m : 1.0f / (1.0f / m);
      q = out.zero_point + static_cast<int64_t>(std::nearbyint(a * mm));
      break;
    }
    case QAvgFormula::Qnnpack:
    default: {
      const float m =
          static_cast<float>(in.scale) / (static_cast<float>(out.scale) * static_cast<float>(div));
      q = out.zero_point + static_cast<int64_t>(std::nearbyint(a * m));
      break;
    }
  }
  return static_cast<T>(std::min(std::max(q, qmin_of<T>()), qmax_of<T>()));
}

// Output (oh, ow)'s window inside the input, its element count and the divisor.
struct AvgWindow {
  int64_t h0, h1, w0, w1, size, div;
};
AvgWindow avg_window(const QPool2d& g, int64_t oh, int64_t ow, bool count_include_pad,
                     int64_t divisor_override) {
  int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
  int64_t h1 = std::min(h0 + g.kh, g.H + g.ph), w1 = std::min(w0 + g.kw, g.W + g.pw);
  const int64_t pool_size = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0);
  w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, g.H);
  w1 = std::min(w1, g.W);
  const int64_t size = (h1 - h0) * (w1 - w0);
  const int64_t div = divisor_override ? divisor_override : (count_include_pad ? pool_size : size);
  return {h0, h1, w0, w1, size, div};
}

template <class T>
T avg_one(const T* x, const QPool2d& g, const Idx& ix, int64_t n, int64_t c, int64_t oh, int64_t ow,
          bool count_include_pad, int64_t divisor_override, QParams in, QParams out,
          QAvgFormula f) {
  const AvgWindow win = avg_window(g, oh, ow, count_include_pad, divisor_override);
  int64_t acc = -in.zero_point * win.size;
  for (int64_t h = win.h0; h < win.h1; ++h)
    for (int64_t w = win.w0; w < win.w1; ++w) acc += x[ix(n, c, h, w)];
  return requant_avg<T>(acc, c, g.C, win.div, in, out, f);
}

// Adds the NHWC window [h0, h1) x [w0, w1) of a [H, W, C] image into acc[0, C) (the channel
// loop innermost over contiguous codes; Note [Loops over codes] for the by-value bounds).
template <class T>
void window_sum_nhwc(const T* x, const int64_t W, const int64_t C, const int64_t h0,
                     const int64_t h1, const int64_t w0, const int64_t w1, int32_t* acc) {
  for (int64_t h = h0; h < h1; ++h) {
    for (int64_t w = w0; w < w1; ++w) {
      const T* p = x + (h * W + w) * C;
      for (int64_t c = 0; c < C; ++c) acc[c] += static_cast<int32_t>(p[c]);
    }
  }
}

// The NHWC average poolings (avg_pool2d, adaptive_avg_pool2d): per output pixel, one int32
// accumulator per channel over window(oh, ow), then requantize (the divisor is the window's).
template <class T, class Window>
void avg_pool_nhwc(const T* x, T* y, const QPool2d& g, QParams in, QParams out, QAvgFormula f,
                   const Window& window) {
  parallel_for(0, g.N * g.OH, 1, [&](int64_t r0, int64_t r1) {
    std::vector<int32_t> acc(static_cast<size_t>(g.C));
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / g.OH, oh = r % g.OH;
      for (int64_t ow = 0; ow < g.OW; ++ow) {
        const AvgWindow win = window(oh, ow);
        std::fill(acc.begin(), acc.end(), static_cast<int32_t>(-in.zero_point * win.size));
        window_sum_nhwc<T>(x + n * g.H * g.W * g.C, g.W, g.C, win.h0, win.h1, win.w0, win.w1,
                           acc.data());
        T* yp = y + ((n * g.OH + oh) * g.OW + ow) * g.C;
        for (int64_t c = 0; c < g.C; ++c) {
          yp[c] = requant_avg<T>(acc[c], c, g.C, win.div, in, out, f);
        }
      }
    }
  });
}

}  // namespace

template <class T>
void qavg_pool2d_ref(const T* x, T* y, const QPool2d& g, bool nhwc, bool count_include_pad,
                     int64_t divisor_override, QParams in, QParams out, QAvgFormula f) {
  const Idx ix{g.N, g.C, g.H, g.W, nhwc};
  ref_outputs(y, g, nhwc, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
    return avg_one(x, g, ix, n, c, oh, ow, count_include_pad, divisor_override, in, out, f);
  });
}

template <class T>
void qavg_pool2d(const T* x, T* y, const QPool2d& g, bool nhwc, bool count_include_pad,
                 int64_t divisor_override, QParams in, QParams out, QAvgFormula f) {
  const Idx ix{g.N, g.C, g.H, g.W, nhwc}, iy{g.N, g.C, g.OH, g.OW, nhwc};
  if (nhwc) {
    avg_pool_nhwc<T>(x, y, g, in, out, f, [&](int64_t oh, int64_t ow) {
      return avg_window(g, oh, ow, count_include_pad, divisor_override);
    });
    return;
  }
  for_outputs(g, nhwc, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
    y[iy(n, c, oh, ow)] =
        avg_one(x, g, ix, n, c, oh, ow, count_include_pad, divisor_override, in, out, f);
  });
}

namespace {
// PyTorch's adaptive window bounds (float arithmetic, as its kernels).
inline int64_t ada_start(int64_t o, int64_t out, int64_t in) {
  return static_cast<int64_t>(std::floor(static_cast<float>(o * in) / static_cast<float>(out)));
}
inline int64_t ada_end(int64_t o, int64_t out, int64_t in) {
  return static_cast<int64_t>(
      std::ceil(static_cast<float>((o + 1) * in) / static_cast<float>(out)));
}

template <class T>
T ada_one(const T* x, const QPool2d& g, const Idx& ix, int64_t n, int64_t c, int64_t oh, int64_t ow,
          bool nhwc, QParams p) {
  const int64_t h0 = ada_start(oh, g.OH, g.H), h1 = ada_end(oh, g.OH, g.H);
  const int64_t w0 = ada_start(ow, g.OW, g.W), w1 = ada_end(ow, g.OW, g.W);
  int64_t sum = 0;
  for (int64_t h = h0; h < h1; ++h)
    for (int64_t w = w0; w < w1; ++w) sum += x[ix(n, c, h, w)];
  const int64_t kh = h1 - h0, kw = w1 - w0;
  if (nhwc) {
    return requant_avg<T>(sum - p.zero_point * kh * kw, c, g.C, kh * kw, p, p,
                          QAvgFormula::GenericNhwc);
  }
  // NCHW: the average of the codes themselves, rint(Σq · f32(f32(1 / kh) / kw)).
  const float r = static_cast<float>(1.0 / static_cast<double>(kh)) / static_cast<float>(kw);
  const float v = std::nearbyint(static_cast<float>(sum) * r);
  return static_cast<T>(static_cast<int64_t>(v));
}
}  // namespace

template <class T>
void qadaptive_avg_pool2d_ref(const T* x, T* y, const QPool2d& g, bool nhwc, QParams p) {
  const Idx ix{g.N, g.C, g.H, g.W, nhwc};
  ref_outputs(y, g, nhwc, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
    return ada_one(x, g, ix, n, c, oh, ow, nhwc, p);
  });
}

template <class T>
void qadaptive_avg_pool2d(const T* x, T* y, const QPool2d& g, bool nhwc, QParams p) {
  const Idx ix{g.N, g.C, g.H, g.W, nhwc}, iy{g.N, g.C, g.OH, g.OW, nhwc};
  if (nhwc) {
    avg_pool_nhwc<T>(x, y, g, p, p, QAvgFormula::GenericNhwc, [&](int64_t oh, int64_t ow) {
      const int64_t h0 = ada_start(oh, g.OH, g.H), h1 = ada_end(oh, g.OH, g.H);
      const int64_t w0 = ada_start(ow, g.OW, g.W), w1 = ada_end(ow, g.OW, g.W);
      const int64_t size = (h1 - h0) * (w1 - w0);
      return AvgWindow{h0, h1, w0, w1, size, size};
    });
    return;
  }
  for_outputs(g, nhwc, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
    y[iy(n, c, oh, ow)] = ada_one(x, g, ix, n, c, oh, ow, nhwc, p);
  });
}

// ---- mean over inner dims ----
namespace {
template <class T>
T mean_row(const T* x, int64_t n) {
  int64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  return static_cast<T>(
      static_cast<int64_t>(std::nearbyint(static_cast<float>(sum) / static_cast<float>(n))));
}
}  // namespace

template <class T>
void qmean_inner_ref(const T* x, T* y, int64_t m, int64_t n) {
  for (int64_t i = 0; i < m; ++i) y[i] = mean_row(x + i * n, n);
}

template <class T>
void qmean_inner(const T* x, T* y, int64_t m, int64_t n) {
  parallel_for(0, m, std::max<int64_t>(1, 32768 / std::max<int64_t>(n, 1)),
               [&](int64_t i0, int64_t i1) {
                 for (int64_t i = i0; i < i1; ++i) y[i] = mean_row(x + i * n, n);
               });
}

// ---- nearest upsampling ----
namespace {
inline int64_t nearest_src(int64_t o, float scale, int64_t in) {
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * scale)), in - 1);
}
}  // namespace

template <class T>
void qupsample_nearest2d_ref(const T* x, T* y, const QPool2d& g, bool nhwc, float scale_h,
                             float scale_w) {
  const Idx ix{g.N, g.C, g.H, g.W, nhwc};
  ref_outputs(y, g, nhwc, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
    return x[ix(n, c, nearest_src(oh, scale_h, g.H), nearest_src(ow, scale_w, g.W))];
  });
}

template <class T>
void qupsample_nearest2d(const T* x, T* y, const QPool2d& g, bool nhwc, float scale_h,
                         float scale_w) {
  const Idx ix{g.N, g.C, g.H, g.W, nhwc}, iy{g.N, g.C, g.OH, g.OW, nhwc};
  if (nhwc) {
    parallel_for(0, g.N * g.OH, 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t n = r / g.OH, oh = r % g.OH, ih = nearest_src(oh, scale_h, g.H);
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const T* in = x + ix(n, 0, ih, nearest_src(ow, scale_w, g.W));
          std::copy(in, in + g.C, y + iy(n, 0, oh, ow));
        }
      }
    });
    return;
  }
  for_outputs(g, false, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
    y[iy(n, c, oh, ow)] = x[ix(n, c, nearest_src(oh, scale_h, g.H), nearest_src(ow, scale_w, g.W))];
  });
}

#define EMBER_QPOOL_INST(T)                                                                    \
  template void qmax_pool2d<T>(const T*, T*, const QPool2d&, bool, bool);                      \
  template void qmax_pool2d_ref<T>(const T*, T*, const QPool2d&, bool, bool);                  \
  template void qavg_pool2d<T>(const T*, T*, const QPool2d&, bool, bool, int64_t, QParams,     \
                               QParams, QAvgFormula);                                          \
  template void qavg_pool2d_ref<T>(const T*, T*, const QPool2d&, bool, bool, int64_t, QParams, \
                                   QParams, QAvgFormula);                                      \
  template void qadaptive_avg_pool2d<T>(const T*, T*, const QPool2d&, bool, QParams);          \
  template void qadaptive_avg_pool2d_ref<T>(const T*, T*, const QPool2d&, bool, QParams);      \
  template void qmean_inner<T>(const T*, T*, int64_t, int64_t);                                \
  template void qmean_inner_ref<T>(const T*, T*, int64_t, int64_t);                            \
  template void qupsample_nearest2d<T>(const T*, T*, const QPool2d&, bool, float, float);      \
  template void qupsample_nearest2d_ref<T>(const T*, T*, const QPool2d&, bool, float, float);
EMBER_QPOOL_INST(uint8_t)
EMBER_QPOOL_INST(int8_t)
EMBER_QPOOL_INST(int32_t)
#undef EMBER_QPOOL_INST

}  // namespace ember::cpu::quantized
