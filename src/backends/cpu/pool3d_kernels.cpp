#include "pool3d_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/parallel.h"
#include "layout.h"

namespace ember::cpu {

namespace {

template <class F>
void for_planes(int64_t planes, int64_t work_per_plane, const F& f) {
  parallel_for(0, planes, std::max<int64_t>(1, 16384 / std::max<int64_t>(work_per_plane, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t i = b; i < e; ++i) f(i);
               });
}

int64_t start_index(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
int64_t end_index(int64_t o, int64_t out, int64_t in) { return ((o + 1) * in + out - 1) / out; }

struct Dims {
  int64_t P, D, H, W;
  int64_t plane() const { return D * H * W; }
};
Dims dims(const Tensor& t) { return {t.size(0), t.size(1), t.size(2), t.size(3)}; }

// One avg-pool window along one dim: [lo, hi) clipped to the input, and the padded length.
struct Span {
  int64_t lo, hi, padded;
};
Span avg_span(int64_t o, int64_t in, int64_t k, int64_t s, int64_t p) {
  int64_t lo = o * s - p;
  int64_t hi = std::min(lo + k, in + p);
  const int64_t padded = hi - lo;
  lo = std::max<int64_t>(lo, 0);
  hi = std::min(hi, in);
  return {lo, hi, padded};
}

}  // namespace

void max_pool3d_kernel(const Tensor& out, const Tensor& indices, const Tensor& input,
                       const Pool3dParams& p) {
  visit_floating(input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const Dims x = dims(input), o = dims(out);
    const T* xp0 = static_cast<const T*>(input.data_ptr());
    T* op0 = static_cast<T*>(out.data_ptr());
    int64_t* ip0 = static_cast<int64_t*>(indices.data_ptr());
    for_planes(x.P, o.plane() * p.k[0] * p.k[1] * p.k[2], [&](int64_t i) {
      const T* xp = xp0 + i * x.plane();
      T* op = op0 + i * o.plane();
      int64_t* ip = ip0 + i * o.plane();
      for (int64_t od = 0; od < o.D; ++od)
        for (int64_t oh = 0; oh < o.H; ++oh)
          for (int64_t ow = 0; ow < o.W; ++ow) {
            M best = -std::numeric_limits<M>::infinity();
            int64_t arg = -1;
            for (int64_t kd = 0; kd < p.k[0]; ++kd) {
              const int64_t d = od * p.s[0] - p.p[0] + kd * p.d[0];
              if (d < 0 || d >= x.D) continue;
              for (int64_t kh = 0; kh < p.k[1]; ++kh) {
                const int64_t h = oh * p.s[1] - p.p[1] + kh * p.d[1];
                if (h < 0 || h >= x.H) continue;
                for (int64_t kw = 0; kw < p.k[2]; ++kw) {
                  const int64_t w = ow * p.s[2] - p.p[2] + kw * p.d[2];
                  if (w < 0 || w >= x.W) continue;
                  const int64_t flat = (d * x.H + h) * x.W + w;
                  const M v = static_cast<M>(xp[flat]);
                  if (arg < 0 || v > best || std::isnan(v)) {
                    best = v;
                    arg = flat;
                  }
                }
              }
            }
            const int64_t at = (od * o.H + oh) * o.W + ow;
            op[at] = static_cast<T>(best);
            ip[at] = arg;
          }
    });
  }, "max_pool3d");
}

void max_pool3d_backward_kernel(const Tensor& grad_input, const Tensor& grad_output,
                                const Tensor& indices) {
  visit_floating(grad_input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const Dims gi = dims(grad_input), go = dims(grad_output);
    T* g0 = static_cast<T*>(grad_input.data_ptr());
    const T* o0 = static_cast<const T*>(grad_output.data_ptr());
    const int64_t* i0 = static_cast<const int64_t*>(indices.data_ptr());
    for_planes(gi.P, gi.plane() + go.plane(), [&](int64_t i) {
      T* gp = g0 + i * gi.plane();
      std::fill(gp, gp + gi.plane(), T(0));
      const T* op = o0 + i * go.plane();
      const int64_t* ip = i0 + i * go.plane();
      for (int64_t j = 0; j < go.plane(); ++j) {
        if (ip[j] < 0) continue;
        gp[ip[j]] = static_cast<T>(static_cast<M>(gp[ip[j]]) + static_cast<M>(op[j]));
      }
    });
  }, "max_pool3d_with_indices_backward");
}

void avg_pool3d_kernel(const Tensor& out, const Tensor& input, const Pool3dParams& p,
                       bool count_include_pad, std::optional<int64_t> divisor_override) {
  visit_floating(input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const Dims x = dims(input), o = dims(out);
    const T* xp0 = static_cast<const T*>(input.data_ptr());
    T* op0 = static_cast<T*>(out.data_ptr());
    for_planes(x.P, o.plane() * p.k[0] * p.k[1] * p.k[2], [&](int64_t i) {
      const T* xp = xp0 + i * x.plane();
      T* op = op0 + i * o.plane();
      for (int64_t od = 0; od < o.D; ++od) {
        const Span sd = avg_span(od, x.D, p.k[0], p.s[0], p.p[0]);
        for (int64_t oh = 0; oh < o.H; ++oh) {
          const Span sh = avg_span(oh, x.H, p.k[1], p.s[1], p.p[1]);
          for (int64_t ow = 0; ow < o.W; ++ow) {
            const Span sw = avg_span(ow, x.W, p.k[2], p.s[2], p.p[2]);
            M sum = 0;
            for (int64_t d = sd.lo; d < sd.hi; ++d)
              for (int64_t h = sh.lo; h < sh.hi; ++h)
                for (int64_t w = sw.lo; w < sw.hi; ++w) sum += static_cast<M>(xp[(d * x.H + h) * x.W + w]);
            const int64_t div = divisor_override ? *divisor_override
                                : count_include_pad ? sd.padded * sh.padded * sw.padded
                                                    : (sd.hi - sd.lo) * (sh.hi - sh.lo) * (sw.hi - sw.lo);
            op[(od * o.H + oh) * o.W + ow] = static_cast<T>(div == 0 ? M(0) : sum / static_cast<M>(div));
          }
        }
      }
    });
  }, "avg_pool3d");
}

void avg_pool3d_backward_kernel(const Tensor& grad_input, const Tensor& grad_output,
                                const Pool3dParams& p, bool count_include_pad,
                                std::optional<int64_t> divisor_override) {
  visit_floating(grad_input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const Dims x = dims(grad_input), o = dims(grad_output);
    T* gp0 = static_cast<T*>(grad_input.data_ptr());
    const T* op0 = static_cast<const T*>(grad_output.data_ptr());
    for_planes(x.P, o.plane() * p.k[0] * p.k[1] * p.k[2], [&](int64_t i) {
      T* gp = gp0 + i * x.plane();
      std::fill(gp, gp + x.plane(), T(0));
      const T* op = op0 + i * o.plane();
      for (int64_t od = 0; od < o.D; ++od) {
        const Span sd = avg_span(od, x.D, p.k[0], p.s[0], p.p[0]);
        for (int64_t oh = 0; oh < o.H; ++oh) {
          const Span sh = avg_span(oh, x.H, p.k[1], p.s[1], p.p[1]);
          for (int64_t ow = 0; ow < o.W; ++ow) {
            const Span sw = avg_span(ow, x.W, p.k[2], p.s[2], p.p[2]);
            const int64_t div = divisor_override ? *divisor_override
                                : count_include_pad ? sd.padded * sh.padded * sw.padded
                                                    : (sd.hi - sd.lo) * (sh.hi - sh.lo) * (sw.hi - sw.lo);
            if (div == 0) continue;
            const M g = static_cast<M>(op[(od * o.H + oh) * o.W + ow]) / static_cast<M>(div);
            for (int64_t d = sd.lo; d < sd.hi; ++d)
              for (int64_t h = sh.lo; h < sh.hi; ++h)
                for (int64_t w = sw.lo; w < sw.hi; ++w) {
                  T& dst = gp[(d * x.H + h) * x.W + w];
                  dst = static_cast<T>(static_cast<M>(dst) + g);
                }
          }
        }
      }
    });
  }, "avg_pool3d_backward");
}

void adaptive_avg_pool3d_kernel(const Tensor& out, const Tensor& input) {
  visit_floating(input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const Dims x = dims(input), o = dims(out);
    const T* xp0 = static_cast<const T*>(input.data_ptr());
    T* op0 = static_cast<T*>(out.data_ptr());
    for_planes(x.P, x.plane(), [&](int64_t i) {
      const T* xp = xp0 + i * x.plane();
      T* op = op0 + i * o.plane();
      for (int64_t od = 0; od < o.D; ++od) {
        const int64_t d0 = start_index(od, o.D, x.D), d1 = end_index(od, o.D, x.D);
        for (int64_t oh = 0; oh < o.H; ++oh) {
          const int64_t h0 = start_index(oh, o.H, x.H), h1 = end_index(oh, o.H, x.H);
          for (int64_t ow = 0; ow < o.W; ++ow) {
            const int64_t w0 = start_index(ow, o.W, x.W), w1 = end_index(ow, o.W, x.W);
            M sum = 0;
            for (int64_t d = d0; d < d1; ++d)
              for (int64_t h = h0; h < h1; ++h)
                for (int64_t w = w0; w < w1; ++w) sum += static_cast<M>(xp[(d * x.H + h) * x.W + w]);
            op[(od * o.H + oh) * o.W + ow] =
                static_cast<T>(sum / static_cast<M>((d1 - d0) * (h1 - h0) * (w1 - w0)));
          }
        }
      }
    });
  }, "adaptive_avg_pool3d_cpu");
}

void adaptive_avg_pool3d_backward_kernel(const Tensor& grad_input, const Tensor& grad_output) {
  visit_floating(grad_input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const Dims x = dims(grad_input), o = dims(grad_output);
    T* gp0 = static_cast<T*>(grad_input.data_ptr());
    const T* op0 = static_cast<const T*>(grad_output.data_ptr());
    for_planes(x.P, x.plane(), [&](int64_t i) {
      T* gp = gp0 + i * x.plane();
      std::fill(gp, gp + x.plane(), T(0));
      const T* op = op0 + i * o.plane();
      for (int64_t od = 0; od < o.D; ++od) {
        const int64_t d0 = start_index(od, o.D, x.D), d1 = end_index(od, o.D, x.D);
        for (int64_t oh = 0; oh < o.H; ++oh) {
          const int64_t h0 = start_index(oh, o.H, x.H), h1 = end_index(oh, o.H, x.H);
          for (int64_t ow = 0; ow < o.W; ++ow) {
            const int64_t w0 = start_index(ow, o.W, x.W), w1 = end_index(ow, o.W, x.W);
            const M g = static_cast<M>(op[(od * o.H + oh) * o.W + ow]) /
                        static_cast<M>((d1 - d0) * (h1 - h0) * (w1 - w0));
            for (int64_t d = d0; d < d1; ++d)
              for (int64_t h = h0; h < h1; ++h)
                for (int64_t w = w0; w < w1; ++w) {
                  T& dst = gp[(d * x.H + h) * x.W + w];
                  dst = static_cast<T>(static_cast<M>(dst) + g);
                }
          }
        }
      }
    });
  }, "adaptive_avg_pool3d_backward_cpu");
}

void adaptive_max_pool3d_kernel(const Tensor& out, const Tensor& indices, const Tensor& input) {
  visit_floating(input.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const Dims x = dims(input), o = dims(out);
    const T* xp0 = static_cast<const T*>(input.data_ptr());
    T* op0 = static_cast<T*>(out.data_ptr());
    int64_t* ip0 = static_cast<int64_t*>(indices.data_ptr());
    for_planes(x.P, x.plane(), [&](int64_t i) {
      const T* xp = xp0 + i * x.plane();
      T* op = op0 + i * o.plane();
      int64_t* ip = ip0 + i * o.plane();
      for (int64_t od = 0; od < o.D; ++od) {
        const int64_t d0 = start_index(od, o.D, x.D), d1 = end_index(od, o.D, x.D);
        for (int64_t oh = 0; oh < o.H; ++oh) {
          const int64_t h0 = start_index(oh, o.H, x.H), h1 = end_index(oh, o.H, x.H);
          for (int64_t ow = 0; ow < o.W; ++ow) {
            const int64_t w0 = start_index(ow, o.W, x.W), w1 = end_index(ow, o.W, x.W);
            M best = -std::numeric_limits<M>::infinity();
            int64_t arg = -1;
            for (int64_t d = d0; d < d1; ++d)
              for (int64_t h = h0; h < h1; ++h)
                for (int64_t w = w0; w < w1; ++w) {
                  const int64_t flat = (d * x.H + h) * x.W + w;
                  const M v = static_cast<M>(xp[flat]);
                  if (arg < 0 || v > best || std::isnan(v)) {
                    best = v;
                    arg = flat;
                  }
                }
            const int64_t at = (od * o.H + oh) * o.W + ow;
            op[at] = static_cast<T>(best);
            ip[at] = arg;
          }
        }
      }
    });
  }, "adaptive_max_pool3d_cpu");
}

void gather3d_kernel(const Tensor& out, const Tensor& in, const std::vector<int64_t>& map_d,
                     const std::vector<int64_t>& map_h, const std::vector<int64_t>& map_w) {
  visit_floating(in.dtype(), [&]<class T>() {
    const Dims x = dims(in), o = dims(out);
    const T* xp0 = static_cast<const T*>(in.data_ptr());
    T* op0 = static_cast<T*>(out.data_ptr());
    for_planes(x.P, o.plane(), [&](int64_t i) {
      const T* xp = xp0 + i * x.plane();
      T* op = op0 + i * o.plane();
      for (int64_t od = 0; od < o.D; ++od)
        for (int64_t oh = 0; oh < o.H; ++oh) {
          const T* row = xp + (map_d[od] * x.H + map_h[oh]) * x.W;
          T* orow = op + (od * o.H + oh) * o.W;
          for (int64_t ow = 0; ow < o.W; ++ow) orow[ow] = row[map_w[ow]];
        }
    });
  }, "pad3d");
}

void scatter_add3d_kernel(const Tensor& grad_in, const Tensor& grad_out,
                          const std::vector<int64_t>& map_d, const std::vector<int64_t>& map_h,
                          const std::vector<int64_t>& map_w) {
  visit_floating(grad_in.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const Dims x = dims(grad_in), o = dims(grad_out);
    T* gp0 = static_cast<T*>(grad_in.data_ptr());
    const T* op0 = static_cast<const T*>(grad_out.data_ptr());
    for_planes(x.P, o.plane(), [&](int64_t i) {
      T* gp = gp0 + i * x.plane();
      std::fill(gp, gp + x.plane(), T(0));
      const T* op = op0 + i * o.plane();
      for (int64_t od = 0; od < o.D; ++od)
        for (int64_t oh = 0; oh < o.H; ++oh) {
          T* row = gp + (map_d[od] * x.H + map_h[oh]) * x.W;
          const T* orow = op + (od * o.H + oh) * o.W;
          for (int64_t ow = 0; ow < o.W; ++ow) {
            T& dst = row[map_w[ow]];
            dst = static_cast<T>(static_cast<M>(dst) + static_cast<M>(orow[ow]));
          }
        }
    });
  }, "pad3d_backward");
}

void im2col_kernel(const Tensor& cols, const Tensor& image, const Im2ColParams& p) {
  visit_floating(image.dtype(), [&]<class T>() {
    const int64_t N = image.size(0), C = image.size(1);
    const T* ip0 = static_cast<const T*>(image.data_ptr());
    T* cp0 = static_cast<T*>(cols.data_ptr());
    const int64_t L = p.oh * p.ow;
    for_planes(N * C, p.kh * p.kw * L, [&](int64_t i) {
      const T* ip = ip0 + i * p.h * p.w;
      T* cp = cp0 + i * p.kh * p.kw * L;
      for (int64_t ki = 0; ki < p.kh; ++ki)
        for (int64_t kj = 0; kj < p.kw; ++kj) {
          T* row = cp + (ki * p.kw + kj) * L;
          for (int64_t bh = 0; bh < p.oh; ++bh) {
            const int64_t h = bh * p.sh - p.ph + ki * p.dh;
            for (int64_t bw = 0; bw < p.ow; ++bw) {
              const int64_t w = bw * p.sw - p.pw + kj * p.dw;
              row[bh * p.ow + bw] = (h >= 0 && h < p.h && w >= 0 && w < p.w) ? ip[h * p.w + w] : T(0);
            }
          }
        }
    });
  }, "im2col");
}

void col2im_kernel(const Tensor& image, const Tensor& cols, const Im2ColParams& p) {
  visit_floating(image.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const int64_t N = image.size(0), C = image.size(1);
    T* ip0 = static_cast<T*>(image.data_ptr());
    const T* cp0 = static_cast<const T*>(cols.data_ptr());
    const int64_t L = p.oh * p.ow;
    for_planes(N * C, p.kh * p.kw * L, [&](int64_t i) {
      T* ip = ip0 + i * p.h * p.w;
      std::fill(ip, ip + p.h * p.w, T(0));
      const T* cp = cp0 + i * p.kh * p.kw * L;
      for (int64_t ki = 0; ki < p.kh; ++ki)
        for (int64_t kj = 0; kj < p.kw; ++kj) {
          const T* row = cp + (ki * p.kw + kj) * L;
          for (int64_t bh = 0; bh < p.oh; ++bh) {
            const int64_t h = bh * p.sh - p.ph + ki * p.dh;
            if (h < 0 || h >= p.h) continue;
            for (int64_t bw = 0; bw < p.ow; ++bw) {
              const int64_t w = bw * p.sw - p.pw + kj * p.dw;
              if (w < 0 || w >= p.w) continue;
              T& dst = ip[h * p.w + w];
              dst = static_cast<T>(static_cast<M>(dst) + static_cast<M>(row[bh * p.ow + bw]));
            }
          }
        }
    });
  }, "col2im");
}

}  // namespace ember::cpu
