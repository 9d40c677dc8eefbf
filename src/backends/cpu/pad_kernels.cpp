#include "pad_kernels.h"

#include "dtype_lists.h"
#include "ember/parallel.h"

namespace ember::cpu {

namespace {

template <class F>
void for_planes(int64_t planes, int64_t work, const F& f) {
  parallel_for(0, planes, std::max<int64_t>(1, 16384 / std::max<int64_t>(work, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t i = b; i < e; ++i) f(i);
               });
}

}  // namespace

// The padding gather and its backward take complex too (torch.stft pads complex signals).
void gather2d_kernel(const Tensor& out, const Tensor& in, const std::vector<int64_t>& map_h,
                     const std::vector<int64_t>& map_w) {
  const int64_t P = out.size(0), OH = out.size(1), OW = out.size(2);
  const int64_t H = in.size(1), W = in.size(2);
  dispatch_types(kFloatAndComplexTypes, in.dtype(), "gather2d", [&]<class T>() {
    const T* src = static_cast<const T*>(in.data_ptr());
    T* dst = static_cast<T*>(out.data_ptr());
    for_planes(P, OH * OW, [&](int64_t p) {
      const T* s = src + p * H * W;
      T* d = dst + p * OH * OW;
      for (int64_t oh = 0; oh < OH; ++oh) {
        const T* row = s + map_h[static_cast<size_t>(oh)] * W;
        for (int64_t ow = 0; ow < OW; ++ow) d[oh * OW + ow] = row[map_w[static_cast<size_t>(ow)]];
      }
    });
  });
}

void scatter_add2d_kernel(const Tensor& grad_in, const Tensor& grad_out,
                          const std::vector<int64_t>& map_h, const std::vector<int64_t>& map_w) {
  const int64_t P = grad_out.size(0), OH = grad_out.size(1), OW = grad_out.size(2);
  const int64_t H = grad_in.size(1), W = grad_in.size(2);
  dispatch_types(kFloatAndComplexTypes, grad_in.dtype(), "scatter_add2d", [&]<class T>() {
    using M = opmath_t<T>;
    const T* src = static_cast<const T*>(grad_out.data_ptr());
    T* dst = static_cast<T*>(grad_in.data_ptr());
    for_planes(P, OH * OW, [&](int64_t p) {
      std::vector<M> acc(static_cast<size_t>(H * W), M(0));
      const T* s = src + p * OH * OW;
      for (int64_t oh = 0; oh < OH; ++oh) {
        M* row = acc.data() + map_h[static_cast<size_t>(oh)] * W;
        for (int64_t ow = 0; ow < OW; ++ow) row[map_w[static_cast<size_t>(ow)]] += static_cast<M>(s[oh * OW + ow]);
      }
      T* d = dst + p * H * W;
      for (int64_t k = 0; k < H * W; ++k) d[k] = static_cast<T>(acc[static_cast<size_t>(k)]);
    });
  });
}

void bilinear2d_kernel(const Tensor& out, const Tensor& in, const std::vector<LinearTap>& th,
                       const std::vector<LinearTap>& tw) {
  const int64_t P = out.size(0), OH = out.size(1), OW = out.size(2);
  const int64_t H = in.size(1), W = in.size(2);
  visit_floating(in.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const T* src = static_cast<const T*>(in.data_ptr());
    T* dst = static_cast<T*>(out.data_ptr());
    for_planes(P, OH * OW * 4, [&](int64_t p) {
      const T* s = src + p * H * W;
      T* d = dst + p * OH * OW;
      for (int64_t oh = 0; oh < OH; ++oh) {
        const LinearTap& h = th[static_cast<size_t>(oh)];
        const T* r0 = s + h.i0 * W;
        const T* r1 = s + h.i1 * W;
        const M h0 = static_cast<M>(h.l0), h1 = static_cast<M>(h.l1);
        for (int64_t ow = 0; ow < OW; ++ow) {
          const LinearTap& w = tw[static_cast<size_t>(ow)];
          const M w0 = static_cast<M>(w.l0), w1 = static_cast<M>(w.l1);
          d[oh * OW + ow] = static_cast<T>(
              h0 * (w0 * static_cast<M>(r0[w.i0]) + w1 * static_cast<M>(r0[w.i1])) +
              h1 * (w0 * static_cast<M>(r1[w.i0]) + w1 * static_cast<M>(r1[w.i1])));
        }
      }
    });
  }, "upsample_bilinear2d");
}

void bilinear2d_backward_kernel(const Tensor& grad_in, const Tensor& grad_out,
                                const std::vector<LinearTap>& th, const std::vector<LinearTap>& tw) {
  const int64_t P = grad_out.size(0), OH = grad_out.size(1), OW = grad_out.size(2);
  const int64_t H = grad_in.size(1), W = grad_in.size(2);
  visit_floating(grad_in.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const T* src = static_cast<const T*>(grad_out.data_ptr());
    T* dst = static_cast<T*>(grad_in.data_ptr());
    for_planes(P, OH * OW * 4, [&](int64_t p) {
      std::vector<M> acc(static_cast<size_t>(H * W), M(0));
      const T* s = src + p * OH * OW;
      for (int64_t oh = 0; oh < OH; ++oh) {
        const LinearTap& h = th[static_cast<size_t>(oh)];
        M* r0 = acc.data() + h.i0 * W;
        M* r1 = acc.data() + h.i1 * W;
        for (int64_t ow = 0; ow < OW; ++ow) {
          const LinearTap& w = tw[static_cast<size_t>(ow)];
          const M g = static_cast<M>(s[oh * OW + ow]);
          r0[w.i0] += static_cast<M>(h.l0 * w.l0) * g;
          r0[w.i1] += static_cast<M>(h.l0 * w.l1) * g;
          r1[w.i0] += static_cast<M>(h.l1 * w.l0) * g;
          r1[w.i1] += static_cast<M>(h.l1 * w.l1) * g;
        }
      }
      T* d = dst + p * H * W;
      for (int64_t k = 0; k < H * W; ++k) d[k] = static_cast<T>(acc[static_cast<size_t>(k)]);
    });
  }, "upsample_bilinear2d_backward");
}

}  // namespace ember::cpu
