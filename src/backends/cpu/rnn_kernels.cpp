// Fused LSTM / GRU gates: one loop over [B, H] per step instead of a dozen elementwise ops (the
// gemms that make the gates run before, in matmul). Computed in the tensors' own type.
#include "rnn_kernels.h"

#include <cmath>

#include "ember/parallel.h"

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

void lstm_cell_kernel(Tensor& hy, Tensor& cy, Tensor& workspace, const Tensor& ig,
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

void lstm_cell_backward_kernel(Tensor& grad_gates, Tensor& grad_cx, const Tensor& grad_hy,
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

void gru_cell_kernel(Tensor& hy, Tensor& workspace, const Tensor& ig, const Tensor& hg,
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

void gru_cell_backward_kernel(Tensor& grad_ig, Tensor& grad_hg, Tensor& grad_hx,
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

}  // namespace ember::cpu
