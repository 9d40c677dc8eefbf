#include "pooling_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <cstring>
#include <vector>

#include "ember/parallel.h"

namespace ember::cpu {

namespace {

// A 4-d tensor's base pointer and strides.
template <class T>
struct View4 {
  T* p;
  int64_t n, c, h, w;
  int64_t sn, sc, sh, sw;
  T* plane(int64_t i) const { return p + (i / c) * sn + (i % c) * sc; }
};

template <class T>
View4<T> view4(const Tensor& t) {
  return {static_cast<T*>(t.data_ptr()), t.size(0), t.size(1), t.size(2), t.size(3),
          t.stride(0),  t.stride(1),  t.stride(2),  t.stride(3)};
}

// The taps of a max-pool window along one dim, clipped to the input: output o's window starts at
// o * stride - pad; its first tap inside the input is `first` (a whole number of dilations in),
// and taps stop before `end`.
struct Taps {
  int64_t first, end;
};
Taps window_taps(int64_t o, int64_t stride, int64_t pad, int64_t k, int64_t dil, int64_t in) {
  int64_t first = o * stride - pad;
  const int64_t end = std::min(first + (k - 1) * dil + 1, in);
  while (first < 0) first += dil;
  return {first, end};
}

// Calls f(plane) over the N * C planes in parallel.
template <class F>
void for_planes(int64_t planes, int64_t work_per_plane, const F& f) {
  parallel_for(0, planes, std::max<int64_t>(1, 16384 / std::max<int64_t>(work_per_plane, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t i = b; i < e; ++i) f(i);
               });
}

int64_t start_index(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
int64_t end_index(int64_t o, int64_t out, int64_t in) { return ((o + 1) * in + out - 1) / out; }

template <class T>
bool contiguous4(const View4<T>& v) {
  return v.sw == 1 && v.sh == v.w && v.sc == v.h * v.w && v.sn == v.c * v.h * v.w;
}

// Zeroes a strided 4-d tensor.
template <class T>
void zero4(const View4<T>& v) {
  for_planes(v.n * v.c, v.h * v.w, [&](int64_t i) {
    T* q = v.plane(i);
    for (int64_t h = 0; h < v.h; ++h)
      for (int64_t w = 0; w < v.w; ++w) q[h * v.sh + w * v.sw] = T(0);
  });
}

}  // namespace

void max_pool2d_kernel_ref(const Tensor& out, const Tensor& indices, const Tensor& input,
                           const Pool2dParams& p) {
  visit_floating(input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const auto x = view4<const T>(input);
    const auto o = view4<T>(out);
    const auto ix = view4<int64_t>(indices);
    for_planes(x.n * x.c, o.h * o.w * p.kh * p.kw, [&](int64_t i) {
      const T* xp = x.plane(i);
      T* op = o.plane(i);
      int64_t* ip = ix.plane(i);
      for (int64_t oh = 0; oh < o.h; ++oh) {
        const auto [h0, h1] = window_taps(oh, p.sh, p.ph, p.kh, p.dh, x.h);
        for (int64_t ow = 0; ow < o.w; ++ow) {
          const auto [w0, w1] = window_taps(ow, p.sw, p.pw, p.kw, p.dw, x.w);
          int64_t best_i = h0 * x.w + w0;
          M best = -std::numeric_limits<M>::infinity();
          for (int64_t h = h0; h < h1; h += p.dh) {
            const T* row = xp + h * x.sh;
            for (int64_t w = w0; w < w1; w += p.dw) {
              const M v = static_cast<M>(row[w * x.sw]);
              if (v > best || std::isnan(v)) {
                best = v;
                best_i = h * x.w + w;
              }
            }
          }
          op[oh * o.sh + ow * o.sw] = static_cast<T>(best);
          ip[oh * ix.sh + ow * ix.sw] = best_i;
        }
      }
    });
  }, "max_pool2d");
}

void max_pool2d_backward_kernel_ref(const Tensor& grad_input, const Tensor& grad_output,
                                    const Tensor& indices) {
  visit_floating(grad_input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const auto gi = view4<T>(grad_input);
    const auto go = view4<const T>(grad_output);
    const auto ix = view4<const int64_t>(indices);
    zero4(gi);
    for_planes(gi.n * gi.c, go.h * go.w, [&](int64_t i) {
      T* gp = gi.plane(i);
      const T* op = go.plane(i);
      const int64_t* ip = ix.plane(i);
      for (int64_t oh = 0; oh < go.h; ++oh)
        for (int64_t ow = 0; ow < go.w; ++ow) {
          const int64_t k = ip[oh * ix.sh + ow * ix.sw];
          T& dst = gp[(k / gi.w) * gi.sh + (k % gi.w) * gi.sw];
          dst = static_cast<T>(static_cast<M>(dst) + static_cast<M>(op[oh * go.sh + ow * go.sw]));
        }
    });
  }, "max_pool2d_with_indices_backward");
}

namespace {

// Note [Fast max pooling]: the reference visits one window at a time, and its `v > best` branch
// mispredicts about half the time on real activations. The fast loops keep many outputs' running
// maxima in small arrays and visit the window positions (h, w) in the reference's order, each
// across all those outputs with selects that the compiler vectorizes, so ties (the first wins)
// and NaN (the last NaN wins) come out exactly as in the reference. Two shapes of it:
//  - max_pool_tiles, when no window is clipped (no padding, every window inside the input): the
//    outputs of consecutive planes are taken kPoolTile at a time, whatever the row length (the
//    small planes of a CNN's last layers have rows of 2 or 4), each window position's values
//    first copied into a contiguous array;
//  - max_pool_plane_fast otherwise, along each output row of unit-stride planes; outputs whose
//    window leaves the input on the left or right, and rows with an empty window, go through the
//    reference's per-window code.
// Indices are int32 within a tile (planes of < 2^31 elements).
constexpr int64_t kPoolTile = 64;
constexpr int64_t kPoolBigTile = 256;

template <class T>
struct PoolPlane {
  const T* x;
  T* o;
  int64_t* ix;
  int64_t xsh, osh, ish;  // row strides; the column strides are 1
  int64_t H, W;
};

// One output (oh, ow) as the reference computes it.
template <class T>
void max_pool_one(const PoolPlane<T>& q, const Pool2dParams& p, int64_t oh, int64_t ow) {
  using M = opmath_t<T>;
  const auto [h0, h1] = window_taps(oh, p.sh, p.ph, p.kh, p.dh, q.H);
  const auto [w0, w1] = window_taps(ow, p.sw, p.pw, p.kw, p.dw, q.W);
  int64_t best_i = h0 * q.W + w0;
  M best = -std::numeric_limits<M>::infinity();
  for (int64_t h = h0; h < h1; h += p.dh)
    for (int64_t w = w0; w < w1; w += p.dw) {
      const M v = static_cast<M>(q.x[h * q.xsh + w]);
      if (v > best || std::isnan(v)) {
        best = v;
        best_i = h * q.W + w;
      }
    }
  q.o[oh * q.osh + ow] = static_cast<T>(best);
  q.ix[oh * q.ish + ow] = best_i;
}

template <class T>
void max_pool_plane_fast(const PoolPlane<T>& q, const Pool2dParams& p, int64_t OH, int64_t OW) {
  using M = opmath_t<T>;
  // Outputs [lo, hi) have their whole window inside [0, W) horizontally.
  const int64_t lo = std::min(OW, (p.pw + p.sw - 1) / p.sw);
  const int64_t last = q.W - 1 - (p.kw - 1) * p.dw + p.pw;  // the largest ow * sw allowed
  const int64_t hi = last < 0 ? lo : std::max(lo, std::min(OW, last / p.sw + 1));
  M best[kPoolTile];
  int32_t idx[kPoolTile];
  for (int64_t oh = 0; oh < OH; ++oh) {
    const auto [h0, h1] = window_taps(oh, p.sh, p.ph, p.kh, p.dh, q.H);
    if (h0 >= h1) {
      for (int64_t ow = 0; ow < OW; ++ow) max_pool_one(q, p, oh, ow);
      continue;
    }
    for (int64_t ow = 0; ow < lo; ++ow) max_pool_one(q, p, oh, ow);
    for (int64_t t0 = lo; t0 < hi; t0 += kPoolTile) {
      const int64_t n = std::min(kPoolTile, hi - t0);
      const int64_t c0 = t0 * p.sw - p.pw;  // the window's first column for output t0
      for (int64_t t = 0; t < n; ++t) {
        best[t] = -std::numeric_limits<M>::infinity();
        idx[t] = static_cast<int32_t>(h0 * q.W + c0 + t * p.sw);
      }
      for (int64_t h = h0; h < h1; h += p.dh) {
        for (int64_t j = 0; j < p.kw; ++j) {
          const int64_t col = c0 + j * p.dw;
          const T* r = q.x + h * q.xsh + col;
          const int32_t base = static_cast<int32_t>(h * q.W + col);
          const int32_t step = static_cast<int32_t>(p.sw);
          for (int64_t t = 0; t < n; ++t) {
            const M v = static_cast<M>(r[t * p.sw]);
            const bool take = v > best[t] || v != v;
            best[t] = take ? v : best[t];
            idx[t] = take ? base + static_cast<int32_t>(t) * step : idx[t];
          }
        }
      }
      T* orow = q.o + oh * q.osh + t0;
      int64_t* irow = q.ix + oh * q.ish + t0;
      for (int64_t t = 0; t < n; ++t) {
        orow[t] = static_cast<T>(best[t]);
        irow[t] = idx[t];
      }
    }
    for (int64_t ow = hi; ow < OW; ++ow) max_pool_one(q, p, oh, ow);
  }
}

// Outputs [b * OH * OW, e * OH * OW) of planes b..e (no window clipped), kPoolBigTile at a time.
template <class T>
void max_pool_tiles(const View4<const T>& x, const View4<T>& o, const View4<int64_t>& ix,
                    const Pool2dParams& p, int64_t b, int64_t e) {
  using M = opmath_t<T>;
  const T* src[kPoolBigTile];   // each output's window start
  int32_t first[kPoolBigTile];  // its flat index
  M vals[kPoolBigTile], best[kPoolBigTile];
  int32_t idx[kPoolBigTile];
  // The position (plane, oh, ow) of the next output to load, and of the next to store.
  int64_t li = b, lh = 0, lw = 0, si = b, sh = 0, sw = 0;
  const int64_t count = (e - b) * o.h * o.w;
  const bool dense_out = contiguous4(o) && contiguous4(ix);
  for (int64_t t0 = 0; t0 < count; t0 += kPoolBigTile) {
    const int64_t n = std::min(kPoolBigTile, count - t0);
    const T* xp = x.plane(li);
    for (int64_t t = 0; t < n; ++t) {
      const int64_t h = lh * p.sh, w = lw * p.sw;
      src[t] = xp + h * x.sh + w * x.sw;
      first[t] = static_cast<int32_t>(h * x.w + w);
      if (++lw == o.w) {
        lw = 0;
        if (++lh == o.h) {
          lh = 0;
          if (++li < e) xp = x.plane(li);
        }
      }
    }
    for (int64_t t = 0; t < n; ++t) {
      best[t] = -std::numeric_limits<M>::infinity();
      idx[t] = first[t];
    }
    for (int64_t i = 0; i < p.kh; ++i)
      for (int64_t j = 0; j < p.kw; ++j) {
        const int64_t d = i * p.dh * x.sh + j * p.dw * x.sw;
        const int32_t di = static_cast<int32_t>(i * p.dh * x.w + j * p.dw);
        for (int64_t t = 0; t < n; ++t) vals[t] = static_cast<M>(src[t][d]);
        for (int64_t t = 0; t < n; ++t) {
          const M v = vals[t];
          const bool take = v > best[t] || v != v;
          best[t] = take ? v : best[t];
          idx[t] = take ? first[t] + di : idx[t];
        }
      }
    if (dense_out) {  // planes b..e of out and indices are one run each
      T* op = o.p + b * o.h * o.w + t0;
      int64_t* ip = ix.p + b * o.h * o.w + t0;
      for (int64_t t = 0; t < n; ++t) {
        op[t] = static_cast<T>(best[t]);
        ip[t] = idx[t];
      }
      continue;
    }
    T* op = o.plane(si);
    int64_t* ip = ix.plane(si);
    for (int64_t t = 0; t < n; ++t) {
      op[sh * o.sh + sw * o.sw] = static_cast<T>(best[t]);
      ip[sh * ix.sh + sw * ix.sw] = idx[t];
      if (++sw == o.w) {
        sw = 0;
        if (++sh == o.h) {
          sh = 0;
          if (++si < e) {
            op = o.plane(si);
            ip = ix.plane(si);
          }
        }
      }
    }
  }
}

}  // namespace

namespace {

// Note [Channels-last max pooling]: with the channels innermost, each window position is a
// contiguous row of C values, so one output pixel is a select over 8 channels at a time per
// window position (float32; other dtypes lane by lane), visiting the positions in the reference's order: ties keep the first, the last
// NaN wins, and a window that misses the input entirely gives -inf at its first position,
// exactly as max_pool2d_kernel_ref. Clipped (padded) windows need no special case.
// One window over channels [0, lanes) of a row block, any dtype (opmath compare).
template <class T>
void max_pool_cl_lanes(const T* base, int64_t sh, int64_t sw, int64_t W, int64_t h0, int64_t h1,
                       int64_t w0, int64_t w1, const Pool2dParams& p, int64_t lanes, T* out,
                       int64_t* idx) {
  using M = opmath_t<T>;
  for (int64_t l = 0; l < lanes; ++l) {
    M best = -std::numeric_limits<M>::infinity();
    int64_t best_i = h0 * W + w0;
    for (int64_t h = h0; h < h1; h += p.dh) {
      for (int64_t w = w0; w < w1; w += p.dw) {
        const M v = static_cast<M>(base[h * sh + w * sw + l]);
        if (v > best || std::isnan(v)) {
          best = v;
          best_i = h * W + w;
        }
      }
    }
    out[l] = static_cast<T>(best);
    idx[l] = best_i;
  }
}

// float32, 8 channels at a time in GCC vector types (the compiler left the generic lane loop
// scalar): the same selects, positions as int32 (planes are < 2^31 elements here).
using f32x8 = float __attribute__((vector_size(32)));
using i32x8 = int32_t __attribute__((vector_size(32)));
void max_pool_cl_f32x8(const float* base, int64_t sh, int64_t sw, int64_t W, int64_t h0,
                       int64_t h1, int64_t w0, int64_t w1, const Pool2dParams& p, float* out,
                       int64_t* idx) {
  f32x8 best = f32x8{} - std::numeric_limits<float>::infinity();
  i32x8 best_i = i32x8{} + static_cast<int32_t>(h0 * W + w0);
  for (int64_t h = h0; h < h1; h += p.dh) {
    for (int64_t w = w0; w < w1; w += p.dw) {
      f32x8 v;
      std::memcpy(&v, base + h * sh + w * sw, sizeof v);
      const i32x8 take = (v > best) | (v != v);  // v != v: NaN
      best = take ? v : best;
      best_i = take ? (i32x8{} + static_cast<int32_t>(h * W + w)) : best_i;
    }
  }
  std::memcpy(out, &best, sizeof best);
  for (int l = 0; l < 8; ++l) idx[l] = best_i[l];
}

template <class T>
void max_pool_channels_last(const View4<const T>& x, const View4<T>& o, const View4<int64_t>& ix,
                            const Pool2dParams& p) {
  const int64_t C = x.c;
  parallel_for(0, o.n * o.h * o.w, std::max<int64_t>(1, 4096 / std::max<int64_t>(C * p.kh * p.kw, 1)),
               [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t n = i / (o.h * o.w), oh = (i / o.w) % o.h, ow = i % o.w;
      const auto [h0, h1] = window_taps(oh, p.sh, p.ph, p.kh, p.dh, x.h);
      const auto [w0, w1] = window_taps(ow, p.sw, p.pw, p.kw, p.dw, x.w);
      const T* base = x.p + n * x.sn;
      T* out_row = o.p + n * o.sn + oh * o.sh + ow * o.sw;
      int64_t* idx_row = ix.p + n * ix.sn + oh * ix.sh + ow * ix.sw;
      int64_t c0 = 0;
      if constexpr (std::is_same_v<T, float>) {
        for (; c0 + 8 <= C; c0 += 8) {
          max_pool_cl_f32x8(base + c0, x.sh, x.sw, x.w, h0, h1, w0, w1, p, out_row + c0,
                            idx_row + c0);
        }
      }
      max_pool_cl_lanes(base + c0, x.sh, x.sw, x.w, h0, h1, w0, w1, p, C - c0, out_row + c0,
                        idx_row + c0);
    }
  });
}

}  // namespace

void max_pool2d_kernel(const Tensor& out, const Tensor& indices, const Tensor& input,
                       const Pool2dParams& p) {
  const int64_t H = input.size(2), W = input.size(3), OH = out.size(2), OW = out.size(3);
  if (H * W >= (int64_t{1} << 31)) return max_pool2d_kernel_ref(out, indices, input, p);
  if (input.size(1) > 1 && input.stride(1) == 1 && out.stride(1) == 1 && indices.stride(1) == 1) {
    visit_floating(input.dtype(), [&]<class T>() {
      max_pool_channels_last(view4<const T>(input), view4<T>(out), view4<int64_t>(indices), p);
    }, "max_pool2d");
    return;
  }
  const bool unclipped = p.ph == 0 && p.pw == 0 && (OH - 1) * p.sh + (p.kh - 1) * p.dh < H &&
                         (OW - 1) * p.sw + (p.kw - 1) * p.dw < W;
  const bool unit_cols = input.stride(3) == 1 && out.stride(3) == 1 && indices.stride(3) == 1;
  if (!unclipped && !unit_cols) return max_pool2d_kernel_ref(out, indices, input, p);
  visit_floating(input.dtype(), [&]<class T>() {
    const auto x = view4<const T>(input);
    const auto o = view4<T>(out);
    const auto ix = view4<int64_t>(indices);
    if (unclipped) {
      const int64_t per_plane = std::max<int64_t>(OH * OW * p.kh * p.kw, 1);
      parallel_for(0, x.n * x.c, std::max<int64_t>(1, 16384 / per_plane),
                   [&](int64_t b, int64_t e) { max_pool_tiles(x, o, ix, p, b, e); });
      return;
    }
    for_planes(x.n * x.c, o.h * o.w * p.kh * p.kw, [&](int64_t i) {
      const PoolPlane<T> q{x.plane(i), o.plane(i), ix.plane(i), x.sh, o.sh, ix.sh, x.h, x.w};
      max_pool_plane_fast(q, p, o.h, o.w);
    });
  }, "max_pool2d");
}

void max_pool2d_backward_kernel(const Tensor& grad_input, const Tensor& grad_output,
                                const Tensor& indices) {
  // Planes whose rows are contiguous and adjacent take the flat index as is (no division).
  const bool flat = grad_input.stride(3) == 1 && grad_input.stride(2) == grad_input.size(3);
  if (!flat) return max_pool2d_backward_kernel_ref(grad_input, grad_output, indices);
  visit_floating(grad_input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const auto gi = view4<T>(grad_input);
    const auto go = view4<const T>(grad_output);
    const auto ix = view4<const int64_t>(indices);
    const int64_t plane = gi.h * gi.w;
    for_planes(gi.n * gi.c, plane + go.h * go.w, [&](int64_t i) {
      T* gp = gi.plane(i);
      const T* op = go.plane(i);
      const int64_t* ip = ix.plane(i);
      std::fill(gp, gp + plane, T(0));
      for (int64_t oh = 0; oh < go.h; ++oh) {
        const T* orow = op + oh * go.sh;
        const int64_t* irow = ip + oh * ix.sh;
        for (int64_t ow = 0; ow < go.w; ++ow) {
          T& dst = gp[irow[ow * ix.sw]];
          dst = static_cast<T>(static_cast<M>(dst) + static_cast<M>(orow[ow * go.sw]));
        }
      }
    });
  }, "max_pool2d_with_indices_backward");
}

namespace {

// The window of output (oh, ow) of avg_pool2d clipped to the input, and its divisor.
struct AvgWindow {
  int64_t h0, h1, w0, w1, divisor;
};

AvgWindow avg_window(int64_t oh, int64_t ow, int64_t H, int64_t W, const Pool2dParams& p,
                     bool count_include_pad, std::optional<int64_t> divisor_override) {
  int64_t h0 = oh * p.sh - p.ph, w0 = ow * p.sw - p.pw;
  int64_t h1 = std::min(h0 + p.kh, H + p.ph), w1 = std::min(w0 + p.kw, W + p.pw);
  const int64_t pool_size = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0);
  w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, H);
  w1 = std::min(w1, W);
  const int64_t div = divisor_override ? *divisor_override
                                       : (count_include_pad ? pool_size : (h1 - h0) * (w1 - w0));
  return {h0, h1, w0, w1, div};
}

}  // namespace

void avg_pool2d_kernel(const Tensor& out, const Tensor& input, const Pool2dParams& p,
                       bool count_include_pad, std::optional<int64_t> divisor_override) {
  visit_floating(input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const auto x = view4<const T>(input);
    const auto o = view4<T>(out);
    for_planes(x.n * x.c, o.h * o.w * p.kh * p.kw, [&](int64_t i) {
      const T* xp = x.plane(i);
      T* op = o.plane(i);
      for (int64_t oh = 0; oh < o.h; ++oh)
        for (int64_t ow = 0; ow < o.w; ++ow) {
          const AvgWindow wd = avg_window(oh, ow, x.h, x.w, p, count_include_pad, divisor_override);
          M sum = 0;
          if (wd.h0 < wd.h1 && wd.w0 < wd.w1) {
            for (int64_t h = wd.h0; h < wd.h1; ++h)
              for (int64_t w = wd.w0; w < wd.w1; ++w) sum += static_cast<M>(xp[h * x.sh + w * x.sw]);
            sum /= static_cast<M>(wd.divisor);
          }
          op[oh * o.sh + ow * o.sw] = static_cast<T>(sum);
        }
    });
  }, "avg_pool2d");
}

void avg_pool2d_backward_kernel(const Tensor& grad_input, const Tensor& grad_output,
                                const Pool2dParams& p, bool count_include_pad,
                                std::optional<int64_t> divisor_override) {
  visit_floating(grad_input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const auto gi = view4<T>(grad_input);
    const auto go = view4<const T>(grad_output);
    zero4(gi);
    for_planes(gi.n * gi.c, go.h * go.w * p.kh * p.kw, [&](int64_t i) {
      T* gp = gi.plane(i);
      const T* op = go.plane(i);
      for (int64_t oh = 0; oh < go.h; ++oh)
        for (int64_t ow = 0; ow < go.w; ++ow) {
          const AvgWindow wd = avg_window(oh, ow, gi.h, gi.w, p, count_include_pad, divisor_override);
          if (wd.h0 >= wd.h1 || wd.w0 >= wd.w1) continue;
          const M g = static_cast<M>(op[oh * go.sh + ow * go.sw]) / static_cast<M>(wd.divisor);
          for (int64_t h = wd.h0; h < wd.h1; ++h)
            for (int64_t w = wd.w0; w < wd.w1; ++w) {
              T& dst = gp[h * gi.sh + w * gi.sw];
              dst = static_cast<T>(static_cast<M>(dst) + g);
            }
        }
    });
  }, "avg_pool2d_backward");
}

void adaptive_avg_pool2d_kernel(const Tensor& out, const Tensor& input) {
  visit_floating(input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const auto x = view4<const T>(input);
    const auto o = view4<T>(out);
    for_planes(x.n * x.c, x.h * x.w, [&](int64_t i) {
      const T* xp = x.plane(i);
      T* op = o.plane(i);
      for (int64_t oh = 0; oh < o.h; ++oh) {
        const int64_t h0 = start_index(oh, o.h, x.h), h1 = end_index(oh, o.h, x.h);
        for (int64_t ow = 0; ow < o.w; ++ow) {
          const int64_t w0 = start_index(ow, o.w, x.w), w1 = end_index(ow, o.w, x.w);
          M sum = 0;
          for (int64_t h = h0; h < h1; ++h) {
            const T* row = xp + h * x.sh;
            if (x.sw == 1) {
              for (int64_t w = w0; w < w1; ++w) sum += static_cast<M>(row[w]);
            } else {
              for (int64_t w = w0; w < w1; ++w) sum += static_cast<M>(row[w * x.sw]);
            }
          }
          op[oh * o.sh + ow * o.sw] = static_cast<T>(sum / static_cast<M>((h1 - h0) * (w1 - w0)));
        }
      }
    });
  }, "adaptive_avg_pool2d");
}

void adaptive_avg_pool2d_backward_kernel(const Tensor& grad_input, const Tensor& grad_output) {
  visit_floating(grad_input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const auto gi = view4<T>(grad_input);
    const auto go = view4<const T>(grad_output);
    zero4(gi);
    for_planes(gi.n * gi.c, gi.h * gi.w, [&](int64_t i) {
      T* gp = gi.plane(i);
      const T* op = go.plane(i);
      for (int64_t oh = 0; oh < go.h; ++oh) {
        const int64_t h0 = start_index(oh, go.h, gi.h), h1 = end_index(oh, go.h, gi.h);
        for (int64_t ow = 0; ow < go.w; ++ow) {
          const int64_t w0 = start_index(ow, go.w, gi.w), w1 = end_index(ow, go.w, gi.w);
          const M g = static_cast<M>(op[oh * go.sh + ow * go.sw]) /
                      static_cast<M>((h1 - h0) * (w1 - w0));
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) {
              T& dst = gp[h * gi.sh + w * gi.sw];
              dst = static_cast<T>(static_cast<M>(dst) + g);
            }
        }
      }
    });
  }, "adaptive_avg_pool2d_backward");
}

void adaptive_max_pool2d_kernel(const Tensor& out, const Tensor& indices, const Tensor& input) {
  visit_floating(input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const auto x = view4<const T>(input);
    const auto o = view4<T>(out);
    const auto ix = view4<int64_t>(indices);
    for_planes(x.n * x.c, x.h * x.w, [&](int64_t i) {
      const T* xp = x.plane(i);
      T* op = o.plane(i);
      int64_t* ip = ix.plane(i);
      for (int64_t oh = 0; oh < o.h; ++oh) {
        const int64_t h0 = start_index(oh, o.h, x.h), h1 = end_index(oh, o.h, x.h);
        for (int64_t ow = 0; ow < o.w; ++ow) {
          const int64_t w0 = start_index(ow, o.w, x.w), w1 = end_index(ow, o.w, x.w);
          M best = -std::numeric_limits<M>::infinity();
          int64_t best_i = h0 * x.w + w0;
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) {
              const M v = static_cast<M>(xp[h * x.sh + w * x.sw]);
              if (v > best || std::isnan(v)) {
                best = v;
                best_i = h * x.w + w;
              }
            }
          op[oh * o.sh + ow * o.sw] = static_cast<T>(best);
          ip[oh * ix.sh + ow * ix.sw] = best_i;
        }
      }
    });
  }, "adaptive_max_pool2d");
}

}  // namespace ember::cpu
