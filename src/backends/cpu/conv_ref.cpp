// Scalar convolution kernels (Note in conv_kernels.h): direct loops over every output element,
// accumulating in double (int64 for integer types), so they serve as the tests' reference for
// oneDNN and as the kernel for float64, bfloat16 and integer convolutions.
#include <array>
#include <type_traits>

#include "conv_kernels.h"
#include "ember/parallel.h"

namespace ember::cpu {
namespace {

constexpr int kSp = 3;  // spatial dims after padding the shape with leading size-1 dims

// A tensor [N, C, *spatial] seen as [N, C, D, H, W]: sizes and element strides.
struct View5 {
  std::array<int64_t, 2 + kSp> size{}, stride{};
  char* base = nullptr;
  explicit View5(const Tensor& t) : base(static_cast<char*>(t.data_ptr())) {
    const int64_t sp = t.dim() - 2, pad = kSp - sp;
    for (int d = 0; d < 2 + kSp; ++d) {
      if (d >= 2 && d < 2 + pad) {
        size[d] = 1;
        stride[d] = 0;
      } else {
        int64_t src = d < 2 ? d : d - pad;
        size[d] = t.size(src);
        stride[d] = t.stride(src);
      }
    }
  }
  int64_t offset(int64_t n, int64_t c, int64_t z, int64_t y, int64_t x) const {
    return n * stride[0] + c * stride[1] + z * stride[2] + y * stride[3] + x * stride[4];
  }
};

// Geometry padded to kSp dims (leading dims: stride 1, no padding, dilation 1).
struct Geo3 {
  std::array<int64_t, kSp> s{}, p{}, d{};
  int64_t groups;
  explicit Geo3(const ConvGeometry& g) : groups(g.groups) {
    const size_t pad = kSp - g.stride.size();
    for (size_t i = 0; i < kSp; ++i) {
      s[i] = i < pad ? 1 : g.stride[i - pad];
      p[i] = i < pad ? 0 : g.padding[i - pad];
      d[i] = i < pad ? 1 : g.dilation[i - pad];
    }
  }
};

template <class T>
using acc_t = std::conditional_t<std::is_integral_v<T>, int64_t, double>;

template <class T>
T load(const View5& v, int64_t off) {
  return reinterpret_cast<const T*>(v.base)[off];
}
template <class T, class A>
void store(const View5& v, int64_t off, A value) {
  if constexpr (is_reduced_float_v<T>) {
    reinterpret_cast<T*>(v.base)[off] = T(static_cast<float>(value));
  } else {
    reinterpret_cast<T*>(v.base)[off] = static_cast<T>(value);
  }
}
template <class T>
acc_t<T> widen(T v) {
  if constexpr (is_reduced_float_v<T>) return static_cast<double>(static_cast<float>(v));
  else return static_cast<acc_t<T>>(v);
}

// The input position a kernel tap reads for output position o, or -1 outside the input.
inline int64_t in_pos(int64_t o, int64_t k, int64_t s, int64_t p, int64_t d, int64_t size) {
  int64_t i = o * s - p + k * d;
  return i >= 0 && i < size ? i : -1;
}

template <class T>
void forward_ref(const Tensor& out_t, const Tensor& in_t, const Tensor& w_t,
                 const std::optional<Tensor>& bias, const ConvGeometry& geo) {
  const View5 y(out_t), x(in_t), w(w_t);
  const Geo3 g(geo);
  const int64_t N = y.size[0], OC = y.size[1], ocg = OC / g.groups, icg = w.size[1];
  Tensor b = bias && bias->defined() ? *bias : Tensor();
  parallel_for(0, N * OC, 1, [&](int64_t begin, int64_t end) {
    for (int64_t job = begin; job < end; ++job) {
      const int64_t n = job / OC, oc = job % OC, grp = oc / ocg;
      const acc_t<T> b0 = b.defined() ? widen(b.data_ptr<T>()[oc * b.stride(0)]) : acc_t<T>(0);
      for (int64_t oz = 0; oz < y.size[2]; ++oz)
        for (int64_t oy = 0; oy < y.size[3]; ++oy)
          for (int64_t ox = 0; ox < y.size[4]; ++ox) {
            acc_t<T> acc = b0;
            for (int64_t ic = 0; ic < icg; ++ic)
              for (int64_t kz = 0; kz < w.size[2]; ++kz) {
                int64_t iz = in_pos(oz, kz, g.s[0], g.p[0], g.d[0], x.size[2]);
                if (iz < 0) continue;
                for (int64_t ky = 0; ky < w.size[3]; ++ky) {
                  int64_t iy = in_pos(oy, ky, g.s[1], g.p[1], g.d[1], x.size[3]);
                  if (iy < 0) continue;
                  for (int64_t kx = 0; kx < w.size[4]; ++kx) {
                    int64_t ix = in_pos(ox, kx, g.s[2], g.p[2], g.d[2], x.size[4]);
                    if (ix < 0) continue;
                    acc += widen(load<T>(x, x.offset(n, grp * icg + ic, iz, iy, ix))) *
                           widen(load<T>(w, w.offset(oc, ic, kz, ky, kx)));
                  }
                }
              }
            store<T>(y, y.offset(n, oc, oz, oy, ox), acc);
          }
    }
  });
}

// The output position whose tap k reads input position i, or -1 when none does.
inline int64_t out_pos(int64_t i, int64_t k, int64_t s, int64_t p, int64_t d, int64_t size) {
  int64_t t = i + p - k * d;
  if (t < 0 || t % s != 0) return -1;
  t /= s;
  return t < size ? t : -1;
}

template <class T>
void backward_input_ref(const Tensor& gx_t, const Tensor& gy_t, const Tensor& w_t,
                        const ConvGeometry& geo) {
  const View5 gx(gx_t), gy(gy_t), w(w_t);
  const Geo3 g(geo);
  const int64_t N = gx.size[0], IC = gx.size[1], icg = w.size[1];
  const int64_t ocg = gy.size[1] / g.groups;
  parallel_for(0, N * IC, 1, [&](int64_t begin, int64_t end) {
    for (int64_t job = begin; job < end; ++job) {
      const int64_t n = job / IC, c = job % IC, grp = c / icg, ic = c % icg;
      for (int64_t iz = 0; iz < gx.size[2]; ++iz)
        for (int64_t iy = 0; iy < gx.size[3]; ++iy)
          for (int64_t ix = 0; ix < gx.size[4]; ++ix) {
            acc_t<T> acc = 0;
            for (int64_t kz = 0; kz < w.size[2]; ++kz) {
              int64_t oz = out_pos(iz, kz, g.s[0], g.p[0], g.d[0], gy.size[2]);
              if (oz < 0) continue;
              for (int64_t ky = 0; ky < w.size[3]; ++ky) {
                int64_t oy = out_pos(iy, ky, g.s[1], g.p[1], g.d[1], gy.size[3]);
                if (oy < 0) continue;
                for (int64_t kx = 0; kx < w.size[4]; ++kx) {
                  int64_t ox = out_pos(ix, kx, g.s[2], g.p[2], g.d[2], gy.size[4]);
                  if (ox < 0) continue;
                  for (int64_t o = 0; o < ocg; ++o) {
                    const int64_t oc = grp * ocg + o;
                    acc += widen(load<T>(gy, gy.offset(n, oc, oz, oy, ox))) *
                           widen(load<T>(w, w.offset(oc, ic, kz, ky, kx)));
                  }
                }
              }
            }
            store<T>(gx, gx.offset(n, c, iz, iy, ix), acc);
          }
    }
  });
}

template <class T>
void backward_weight_ref(const Tensor& gw_t, const Tensor& gy_t, const Tensor& x_t,
                         const ConvGeometry& geo) {
  const View5 gw(gw_t), gy(gy_t), x(x_t);
  const Geo3 g(geo);
  const int64_t OC = gw.size[0], icg = gw.size[1], ocg = OC / g.groups, N = gy.size[0];
  const int64_t taps = gw.size[2] * gw.size[3] * gw.size[4];
  parallel_for(0, OC * icg * taps, 1, [&](int64_t begin, int64_t end) {
    for (int64_t job = begin; job < end; ++job) {
      int64_t r = job;
      const int64_t kx = r % gw.size[4];
      r /= gw.size[4];
      const int64_t ky = r % gw.size[3];
      r /= gw.size[3];
      const int64_t kz = r % gw.size[2];
      r /= gw.size[2];
      const int64_t ic = r % icg, oc = r / icg, c = oc / ocg * icg + ic;
      acc_t<T> acc = 0;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t oz = 0; oz < gy.size[2]; ++oz) {
          int64_t iz = in_pos(oz, kz, g.s[0], g.p[0], g.d[0], x.size[2]);
          if (iz < 0) continue;
          for (int64_t oy = 0; oy < gy.size[3]; ++oy) {
            int64_t iy = in_pos(oy, ky, g.s[1], g.p[1], g.d[1], x.size[3]);
            if (iy < 0) continue;
            for (int64_t ox = 0; ox < gy.size[4]; ++ox) {
              int64_t ix = in_pos(ox, kx, g.s[2], g.p[2], g.d[2], x.size[4]);
              if (ix < 0) continue;
              acc += widen(load<T>(gy, gy.offset(n, oc, oz, oy, ox))) *
                     widen(load<T>(x, x.offset(n, c, iz, iy, ix)));
            }
          }
        }
      store<T>(gw, gw.offset(oc, ic, kz, ky, kx), acc);
    }
  });
}

template <class F>
void visit_conv_dtype(ScalarType t, F&& f) {
  visit_dtype(t, [&]<class T>() {
    if constexpr (std::is_same_v<T, bool>) {
      EMBER_FAIL("convolution: bool tensors are not supported");
    } else {
      f.template operator()<T>();
    }
  }, "conv");
}

}  // namespace

void add_channel_bias(const Tensor& out, const Tensor& bias) {
  if (out.numel() == 0) return;
  visit_conv_dtype(out.dtype(), [&]<class T>() {
    const View5 y(out);
    const T* b = bias.data_ptr<T>();
    parallel_for(0, y.size[0] * y.size[1], 1, [&](int64_t begin, int64_t end) {
      for (int64_t job = begin; job < end; ++job) {
        const int64_t n = job / y.size[1], c = job % y.size[1];
        const acc_t<T> bc = widen(b[c * bias.stride(0)]);
        for (int64_t z = 0; z < y.size[2]; ++z)
          for (int64_t r = 0; r < y.size[3]; ++r)
            for (int64_t x = 0; x < y.size[4]; ++x) {
              const int64_t off = y.offset(n, c, z, r, x);
              store<T>(y, off, widen(load<T>(y, off)) + bc);
            }
      }
    });
  });
}

void conv_forward_ref(const Tensor& out, const Tensor& input, const Tensor& weight,
                      const std::optional<Tensor>& bias, const ConvGeometry& g) {
  if (out.numel() == 0) return;
  visit_conv_dtype(out.dtype(), [&]<class T>() { forward_ref<T>(out, input, weight, bias, g); });
}

void conv_backward_input_ref(const Tensor& grad_input, const Tensor& grad_output,
                             const Tensor& weight, const ConvGeometry& g) {
  if (grad_input.numel() == 0) return;
  visit_conv_dtype(grad_input.dtype(),
                   [&]<class T>() { backward_input_ref<T>(grad_input, grad_output, weight, g); });
}

void conv_backward_weight_ref(const Tensor& grad_weight, const Tensor& grad_output,
                              const Tensor& input, const ConvGeometry& g) {
  if (grad_weight.numel() == 0) return;
  visit_conv_dtype(grad_weight.dtype(),
                   [&]<class T>() { backward_weight_ref<T>(grad_weight, grad_output, input, g); });
}

}  // namespace ember::cpu
