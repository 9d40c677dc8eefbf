// Fused LSTM / GRU gates: one loop over [B, H] per step instead of a dozen elementwise ops (the
// gemms that make the gates run before, in matmul). The *_ref kernels compute in the tensors'
// own type with std::exp / std::tanh; float32 takes the fast kernels below them, which run the
// sigmoids over whole rows with vec_math's vectorized sigmoid and tanh as 2 sigmoid(2x) - 1
// (libm's scalar tanh costs about 70 ns here). tests/cpp/nn/test_seq_layers.cpp checks fast
// against ref.
#include "rnn_kernels.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ember/parallel.h"
#include "vec_math.h"

namespace ember::cpu {

namespace {

template <class T>
inline T sigm(T x) { return T(1) / (T(1) + std::exp(-x)); }

template <class T>
const T* ptr_or_null(const Tensor& t) { return t.defined() ? t.data_ptr<T>() : nullptr; }

template <class F>
void by_dtype(const Tensor& t, F&& f) {
  if (t.dtype() == kFloat32) {
    f(float{});
  } else {
    EMBER_CHECK(t.dtype() == kFloat64, "fused RNN cell: expected a float or double tensor, got ",
                dtype_name(t.dtype()));
    f(double{});
  }
}

int64_t grain(int64_t H) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(H, 1)); }

}  // namespace

void lstm_cell_kernel_ref(Tensor& hy, Tensor& cy, Tensor& workspace, const Tensor& ig,
                      const Tensor& hg, const Tensor& cx, const Tensor& ib, const Tensor& hb) {
  const int64_t B = cx.size(0), H = cx.size(1);
  by_dtype(cx, [&](auto tag) {
    using T = decltype(tag);
    const T *pi = ig.data_ptr<T>(), *ph = hg.data_ptr<T>(), *pc = cx.data_ptr<T>();
    const T *bi = ptr_or_null<T>(ib), *bh = ptr_or_null<T>(hb);
    T *phy = hy.data_ptr<T>(), *pcy = cy.data_ptr<T>(), *pw = workspace.data_ptr<T>();
    parallel_for(0, B, grain(H), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const T* gi = pi + b * 4 * H;
        const T* gh = ph + b * 4 * H;
        T* w = pw + b * 4 * H;
        for (int64_t j = 0; j < H; ++j) {
          T g4[4];
          for (int k = 0; k < 4; ++k) {
            const int64_t idx = k * H + j;
            T v = gi[idx] + gh[idx];
            if (bi) v += bi[idx];
            if (bh) v += bh[idx];
            g4[k] = v;
          }
          const T i = sigm(g4[0]), f = sigm(g4[1]), g = std::tanh(g4[2]), o = sigm(g4[3]);
          const T c = f * pc[b * H + j] + i * g;
          pcy[b * H + j] = c;
          phy[b * H + j] = o * std::tanh(c);
          w[j] = i, w[H + j] = f, w[2 * H + j] = g, w[3 * H + j] = o;
        }
      }
    });
  });
}

void lstm_cell_backward_kernel_ref(Tensor& grad_gates, Tensor& grad_cx, const Tensor& grad_hy,
                               const Tensor& grad_cy, const Tensor& cx, const Tensor& cy,
                               const Tensor& workspace) {
  const int64_t B = cx.size(0), H = cx.size(1);
  by_dtype(cx, [&](auto tag) {
    using T = decltype(tag);
    const T *ghy = ptr_or_null<T>(grad_hy), *gcy = ptr_or_null<T>(grad_cy);
    const T *pc = cx.data_ptr<T>(), *pcy = cy.data_ptr<T>(), *pw = workspace.data_ptr<T>();
    T *pg = grad_gates.data_ptr<T>(), *pgcx = grad_cx.data_ptr<T>();
    parallel_for(0, B, grain(H), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const T* w = pw + b * 4 * H;
        T* g = pg + b * 4 * H;
        for (int64_t j = 0; j < H; ++j) {
          const int64_t e = b * H + j;
          const T i = w[j], f = w[H + j], gg = w[2 * H + j], o = w[3 * H + j];
          const T tc = std::tanh(pcy[e]);
          const T dh = ghy ? ghy[e] : T(0);
          const T dc = (gcy ? gcy[e] : T(0)) + dh * o * (T(1) - tc * tc);
          g[j] = dc * gg * i * (T(1) - i);
          g[H + j] = dc * pc[e] * f * (T(1) - f);
          g[2 * H + j] = dc * i * (T(1) - gg * gg);
          g[3 * H + j] = dh * tc * o * (T(1) - o);
          pgcx[e] = dc * f;
        }
      }
    });
  });
}

void gru_cell_kernel_ref(Tensor& hy, Tensor& workspace, const Tensor& ig, const Tensor& hg,
                     const Tensor& hx, const Tensor& ib, const Tensor& hb) {
  const int64_t B = hx.size(0), H = hx.size(1);
  by_dtype(hx, [&](auto tag) {
    using T = decltype(tag);
    const T *pi = ig.data_ptr<T>(), *ph = hg.data_ptr<T>(), *px = hx.data_ptr<T>();
    const T *bi = ptr_or_null<T>(ib), *bh = ptr_or_null<T>(hb);
    T *phy = hy.data_ptr<T>(), *pw = workspace.data_ptr<T>();
    parallel_for(0, B, grain(H), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const T* gi = pi + b * 3 * H;
        const T* gh = ph + b * 3 * H;
        T* w = pw + b * 5 * H;
        for (int64_t j = 0; j < H; ++j) {
          auto in = [&](int k) { return gi[k * H + j] + (bi ? bi[k * H + j] : T(0)); };
          auto hid = [&](int k) { return gh[k * H + j] + (bh ? bh[k * H + j] : T(0)); };
          const T r = sigm(in(0) + hid(0));
          const T z = sigm(in(1) + hid(1));
          const T hn = hid(2);
          const T n = std::tanh(in(2) + r * hn);
          const T h = px[b * H + j];
          phy[b * H + j] = n + z * (h - n);
          w[j] = r, w[H + j] = z, w[2 * H + j] = n, w[3 * H + j] = h, w[4 * H + j] = hn;
        }
      }
    });
  });
}

void gru_cell_backward_kernel_ref(Tensor& grad_ig, Tensor& grad_hg, Tensor& grad_hx,
                              const Tensor& grad_hy, const Tensor& workspace) {
  const int64_t B = grad_hy.size(0), H = grad_hy.size(1);
  by_dtype(grad_hy, [&](auto tag) {
    using T = decltype(tag);
    const T *pg = grad_hy.data_ptr<T>(), *pw = workspace.data_ptr<T>();
    T *pi = grad_ig.data_ptr<T>(), *ph = grad_hg.data_ptr<T>(), *px = grad_hx.data_ptr<T>();
    parallel_for(0, B, grain(H), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const T* w = pw + b * 5 * H;
        T* gi = pi + b * 3 * H;
        T* gh = ph + b * 3 * H;
        for (int64_t j = 0; j < H; ++j) {
          const T r = w[j], z = w[H + j], n = w[2 * H + j], h = w[3 * H + j], hn = w[4 * H + j];
          const T go = pg[b * H + j];
          const T gn = go * (T(1) - z) * (T(1) - n * n);
          const T gz = go * (h - n) * z * (T(1) - z);
          const T gr = gn * hn * r * (T(1) - r);
          gi[j] = gr, gi[H + j] = gz, gi[2 * H + j] = gn;
          gh[j] = gr, gh[H + j] = gz, gh[2 * H + j] = gn * r;
          px[b * H + j] = go * z;
        }
      }
    });
  });
}

// ---- float32 fast kernels ----

namespace {

// tanh(x) = 2 sigmoid(2x) - 1 over n floats, in place.
void tanh_fast_inplace(float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] *= 2.0f;
  sigmoid_fast_array(x, x, n);
  for (int64_t i = 0; i < n; ++i) x[i] = 2.0f * x[i] - 1.0f;
}

bool fast_float(const Tensor& t) { return t.dtype() == kFloat32; }

}  // namespace

void lstm_cell_kernel(Tensor& hy, Tensor& cy, Tensor& workspace, const Tensor& ig,
                      const Tensor& hg, const Tensor& cx, const Tensor& ib, const Tensor& hb) {
  if (!fast_float(cx)) return lstm_cell_kernel_ref(hy, cy, workspace, ig, hg, cx, ib, hb);
  const int64_t B = cx.size(0), H = cx.size(1);
  const float *pi = ig.data_ptr<float>(), *ph = hg.data_ptr<float>(), *pc = cx.data_ptr<float>();
  const float *bi = ptr_or_null<float>(ib), *bh = ptr_or_null<float>(hb);
  float *phy = hy.data_ptr<float>(), *pcy = cy.data_ptr<float>(), *pw = workspace.data_ptr<float>();
  parallel_for(0, B, grain(H), [&](int64_t b0, int64_t b1) {
    std::vector<float> tc(static_cast<size_t>(H));
    for (int64_t b = b0; b < b1; ++b) {
      float* w = pw + b * 4 * H;
      const float* gi = pi + b * 4 * H;
      const float* gh = ph + b * 4 * H;
      for (int64_t k = 0; k < 4 * H; ++k) {
        float v = gi[k] + gh[k];
        if (bi) v += bi[k];
        if (bh) v += bh[k];
        w[k] = v;
      }
      for (int64_t j = 2 * H; j < 3 * H; ++j) w[j] *= 2.0f;  // g's tanh, as a sigmoid
      sigmoid_fast_array(w, w, 4 * H);
      for (int64_t j = 2 * H; j < 3 * H; ++j) w[j] = 2.0f * w[j] - 1.0f;
      const float* c0 = pc + b * H;
      float* c1 = pcy + b * H;
      for (int64_t j = 0; j < H; ++j) {
        c1[j] = w[H + j] * c0[j] + w[j] * w[2 * H + j];
        tc[j] = c1[j];
      }
      tanh_fast_inplace(tc.data(), H);
      float* h1 = phy + b * H;
      for (int64_t j = 0; j < H; ++j) h1[j] = w[3 * H + j] * tc[j];
    }
  });
}

void lstm_cell_backward_kernel(Tensor& grad_gates, Tensor& grad_cx, const Tensor& grad_hy,
                               const Tensor& grad_cy, const Tensor& cx, const Tensor& cy,
                               const Tensor& workspace) {
  if (!fast_float(cx)) {
    return lstm_cell_backward_kernel_ref(grad_gates, grad_cx, grad_hy, grad_cy, cx, cy, workspace);
  }
  const int64_t B = cx.size(0), H = cx.size(1);
  const float *ghy = ptr_or_null<float>(grad_hy), *gcy = ptr_or_null<float>(grad_cy);
  const float *pc = cx.data_ptr<float>(), *pcy = cy.data_ptr<float>(), *pw = workspace.data_ptr<float>();
  float *pg = grad_gates.data_ptr<float>(), *pgcx = grad_cx.data_ptr<float>();
  parallel_for(0, B, grain(H), [&](int64_t b0, int64_t b1) {
    std::vector<float> tc(static_cast<size_t>(H));
    for (int64_t b = b0; b < b1; ++b) {
      std::copy(pcy + b * H, pcy + (b + 1) * H, tc.begin());
      tanh_fast_inplace(tc.data(), H);
      const float* w = pw + b * 4 * H;
      float* g = pg + b * 4 * H;
      for (int64_t j = 0; j < H; ++j) {
        const int64_t e = b * H + j;
        const float i = w[j], f = w[H + j], gg = w[2 * H + j], o = w[3 * H + j];
        const float t = tc[j];
        const float dh = ghy ? ghy[e] : 0.0f;
        const float dc = (gcy ? gcy[e] : 0.0f) + dh * o * (1.0f - t * t);
        g[j] = dc * gg * i * (1.0f - i);
        g[H + j] = dc * pc[e] * f * (1.0f - f);
        g[2 * H + j] = dc * i * (1.0f - gg * gg);
        g[3 * H + j] = dh * t * o * (1.0f - o);
        pgcx[e] = dc * f;
      }
    }
  });
}

void gru_cell_kernel(Tensor& hy, Tensor& workspace, const Tensor& ig, const Tensor& hg,
                     const Tensor& hx, const Tensor& ib, const Tensor& hb) {
  if (!fast_float(hx)) return gru_cell_kernel_ref(hy, workspace, ig, hg, hx, ib, hb);
  const int64_t B = hx.size(0), H = hx.size(1);
  const float *pi = ig.data_ptr<float>(), *ph = hg.data_ptr<float>(), *px = hx.data_ptr<float>();
  const float *bi = ptr_or_null<float>(ib), *bh = ptr_or_null<float>(hb);
  float *phy = hy.data_ptr<float>(), *pw = workspace.data_ptr<float>();
  parallel_for(0, B, grain(H), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const float* gi = pi + b * 3 * H;
      const float* gh = ph + b * 3 * H;
      float* w = pw + b * 5 * H;  // r, z, n, hx, hn
      for (int64_t k = 0; k < 2 * H; ++k) {
        w[k] = gi[k] + gh[k] + (bi ? bi[k] : 0.0f) + (bh ? bh[k] : 0.0f);
      }
      sigmoid_fast_array(w, w, 2 * H);
      for (int64_t j = 0; j < H; ++j) {
        const float hn = gh[2 * H + j] + (bh ? bh[2 * H + j] : 0.0f);
        w[4 * H + j] = hn;
        w[2 * H + j] = gi[2 * H + j] + (bi ? bi[2 * H + j] : 0.0f) + w[j] * hn;
        w[3 * H + j] = px[b * H + j];
      }
      tanh_fast_inplace(w + 2 * H, H);
      for (int64_t j = 0; j < H; ++j) {
        const float n = w[2 * H + j];
        phy[b * H + j] = n + w[H + j] * (w[3 * H + j] - n);
      }
    }
  });
}

void gru_cell_backward_kernel(Tensor& grad_ig, Tensor& grad_hg, Tensor& grad_hx,
                              const Tensor& grad_hy, const Tensor& workspace) {
  // No transcendental here: the reference loop is the fast one.
  gru_cell_backward_kernel_ref(grad_ig, grad_hg, grad_hx, grad_hy, workspace);
}

}  // namespace ember::cpu
