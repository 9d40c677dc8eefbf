#include "pooling_kernels.h"

#include <cmath>
#include <limits>

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

void max_pool2d_kernel(const Tensor& out, const Tensor& indices, const Tensor& input,
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
        int64_t h0 = oh * p.sh - p.ph;
        const int64_t h1 = std::min(h0 + (p.kh - 1) * p.dh + 1, x.h);
        while (h0 < 0) h0 += p.dh;
        for (int64_t ow = 0; ow < o.w; ++ow) {
          int64_t w0 = ow * p.sw - p.pw;
          const int64_t w1 = std::min(w0 + (p.kw - 1) * p.dw + 1, x.w);
          while (w0 < 0) w0 += p.dw;
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

void max_pool2d_backward_kernel(const Tensor& grad_input, const Tensor& grad_output,
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
