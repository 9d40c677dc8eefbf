// Fake quantization: float ops that round to the quantization grid and back (PyTorch's
// fake_quantize_per_tensor_affine / _per_channel_affine and their *_cachemask forms). The
// gradient is straight-through where the code fell inside [quant_min, quant_max] and zero
// outside: the forward keeps that mask, and the backward is grad * mask, as PyTorch 1.13's
// autograd does.
//
// Numerics (PyTorch's CPU kernels): inv = f32(1 / f32(s)); q = int64(z + rint(x * inv)) (in the
// input's precision, x86's conversion: NaN and huge values give INT64_MIN); the output is
// (clamp(q, qmin, qmax) - z) * f32(s) computed in double and rounded to the input's dtype; the
// mask is qmin <= q <= qmax. Float zero points (per channel) are added before rounding.
#include <cmath>

#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "ember/ops/factory.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/copy.h"
#include "ember/ops/view.h"
#include "quantizer.h"

namespace ember {

using dispatch::OpId;

namespace {

inline int64_t to_int64_x86(double v) {
  return (v >= -0x1p63 && v < 0x1p63) ? static_cast<int64_t>(v) : INT64_MIN;
}

template <class T>
inline void fake_quant_one(T x, float scale, float inv, int64_t zp, int64_t qmin, int64_t qmax,
                           T& out, bool& mask) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const C v = static_cast<C>(static_cast<C>(x) * static_cast<C>(inv));
  const C r = static_cast<C>(static_cast<C>(zp) + std::nearbyint(v));
  const int64_t q = to_int64_x86(static_cast<double>(r));
  mask = qmin <= q && q <= qmax;
  double c;
  if constexpr (std::is_same_v<T, double>) {
    // PyTorch's double kernel clamps the rounded double itself (its int64 round trip is
    // optimised away): +inf and huge values give qmax, NaN and -inf qmin.
    c = std::fmin(std::fmax(r, static_cast<double>(qmin)), static_cast<double>(qmax));
  } else {
    c = static_cast<double>(std::min(std::max(q, qmin), qmax));
  }
  out = static_cast<T>((c - static_cast<double>(zp)) * static_cast<double>(scale));
}

void check_range(int64_t qmin, int64_t qmax) {
  EMBER_CHECK(qmin <= qmax, "`quant_min` should be less than or         equal to `quant_max`.");
}
void check_zero_point_in(int64_t zp, int64_t qmin, int64_t qmax) {
  EMBER_CHECK(zp >= qmin && zp <= qmax, "`zero_point` must be between `quant_min` and `quant_max`.");
}

template <class F>
void visit_fake_quant_dtype(ScalarType t, const char* kernel, F&& f) {
  switch (t) {
    case kFloat32: f.template operator()<float>(); return;
    case kFloat64: f.template operator()<double>(); return;
    case kFloat16: f.template operator()<Half>(); return;
    default: break;
  }
  EMBER_FAIL("\"", kernel, "\" not implemented for '", scalar_type_name(t), "'");
}

std::tuple<Tensor, Tensor> per_tensor_cachemask(const Tensor& self, double scale, int64_t zp,
                                                int64_t qmin, int64_t qmax) {
  check_range(qmin, qmax);
  check_zero_point_in(zp, qmin, qmax);
  Tensor x = self.contiguous();
  Tensor out = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  Tensor mask = empty(self.sizes(), TensorOptions(kBool).device(self.device()));
  if (out.is_meta()) return {out, mask};
  visit_fake_quant_dtype(self.dtype(), "fake_quantize_tensor_cachemask_kernel_type_handling", [&]<class T>() {
    const float s = static_cast<float>(scale), inv = 1.0f / s;
    const T* xp = x.data_ptr<T>();
    T* op = out.data_ptr<T>();
    bool* mp = mask.data_ptr<bool>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      if constexpr (std::is_same_v<T, Half>) {
        float o;
        fake_quant_one<float>(static_cast<float>(xp[i]), s, inv, zp, qmin, qmax, o, mp[i]);
        op[i] = Half(o);
      } else {
        fake_quant_one<T>(xp[i], s, inv, zp, qmin, qmax, op[i], mp[i]);
      }
    }
  });
  return {out, mask};
}

std::tuple<Tensor, Tensor> fq_cachemask_impl(const Tensor& self, const double& scale,
                                             const int64_t& zp, const int64_t& qmin,
                                             const int64_t& qmax) {
  return per_tensor_cachemask(self, scale, zp, qmin, qmax);
}

std::tuple<Tensor, Tensor> fq_cachemask_tq_impl(const Tensor& self, const Tensor& scale,
                                                const Tensor& zero_point,
                                                const Tensor& fake_quant_enabled,
                                                const int64_t& qmin, const int64_t& qmax) {
  if (fake_quant_enabled.item().to<int64_t>() == 0) {
    Tensor mask = empty(self.sizes(), TensorOptions(kBool).device(self.device()));
    Tensor m = mask;
    if (!mask.is_meta()) fill_(m, true);
    return {clone(self), mask};
  }
  return per_tensor_cachemask(self, scale.item().to<double>(),
                              static_cast<int64_t>(zero_point.item().to<double>()), qmin, qmax);
}

std::tuple<Tensor, Tensor> fq_per_channel_cachemask_impl(const Tensor& self, const Tensor& scale,
                                                         const Tensor& zero_point,
                                                         const int64_t& axis, const int64_t& qmin,
                                                         const int64_t& qmax) {
  EMBER_CHECK(zero_point.dtype() == kInt32 || zero_point.dtype() == kFloat32 ||
                  zero_point.dtype() == kFloat16,
              "Zero-point must be Int32, Float or Half, found ", scalar_type_name(zero_point.dtype()));
  EMBER_CHECK(scale.dim() == 1, "scale should be a 1-D tensor");
  EMBER_CHECK(zero_point.dim() == 1, "zero point should be a 1-D tensor");
  EMBER_CHECK(scale.numel() == zero_point.numel(), "scale and zero-point need to have the same dimensions");
  const int64_t d = wrap_dim(axis, self.dim());
  EMBER_CHECK(scale.numel() == self.size(d),
              "dimensions of scale and zero-point are not consistent with input tensor");
  check_range(qmin, qmax);
  const bool float_zp = zero_point.dtype() != kInt32;
  const Tensor zf = zero_point.to(kFloat64).contiguous();
  const double* z = zf.data_ptr<double>();
  // torch 1.13 checks integer zero points only: float ones (per_channel_affine_float_qparams,
  // -min / scale of a row) may lie outside [quant_min, quant_max].
  for (int64_t c = 0; c < zf.numel() && !float_zp; ++c)
    check_zero_point_in(static_cast<int64_t>(std::nearbyint(z[c])), qmin, qmax);
  const Tensor sf = scale.to(kFloat32).contiguous();
  Tensor x = self.contiguous();
  Tensor out = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  Tensor mask = empty(self.sizes(), TensorOptions(kBool).device(self.device()));
  if (out.is_meta() || out.numel() == 0) return {out, mask};
  const int64_t channels = self.size(d), inner = x.stride(d);
  const float* s = sf.data_ptr<float>();
  visit_fake_quant_dtype(self.dtype(), "fake_quantize_channel_cachemask_cpu_type_handling", [&]<class T>() {
    const T* xp = x.data_ptr<T>();
    T* op = out.data_ptr<T>();
    bool* mp = mask.data_ptr<bool>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t c = (i / inner) % channels;
      const float inv = 1.0f / s[c];
      using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const C xv = static_cast<C>(static_cast<float>(xp[i]));
      if (float_zp) {
        // PyTorch's float-zero-point kernel: the zero point is added before rounding.
        const float zpf = static_cast<float>(z[c]);
        const int64_t q = to_int64_x86(std::nearbyint(static_cast<float>(xv) * inv + zpf));
        // std::fmin / std::fmax of integers: the clamp and the dequantization are in double.
        const auto cl = static_cast<double>(std::min(std::max(q, qmin), qmax));
        op[i] = static_cast<T>((cl - static_cast<double>(zpf)) * static_cast<double>(s[c]));
        mp[i] = qmin <= q && q <= qmax;
      } else {
        C o;
        fake_quant_one<C>(xv, s[c], inv, static_cast<int64_t>(z[c]), qmin, qmax, o, mp[i]);
        op[i] = static_cast<T>(o);
      }
    }
  });
  return {out, mask};
}

Tensor fq_backward_impl(const Tensor& grad, const Tensor& mask) { return grad * mask.to(grad.dtype()); }

// ---- frontends ----
std::tuple<Tensor, Tensor> fq_cachemask_op(const Tensor& self, double scale, int64_t zp, int64_t qmin,
                                           int64_t qmax) {
  return dispatch::call<fq_cachemask_impl>(OpId::fake_quantize_per_tensor_affine_cachemask, self,
                                           scale, zp, qmin, qmax);
}
std::tuple<Tensor, Tensor> fq_cachemask_tq_op(const Tensor& self, const Tensor& scale,
                                              const Tensor& zero_point,
                                              const Tensor& fake_quant_enabled, int64_t qmin,
                                              int64_t qmax) {
  return dispatch::call<fq_cachemask_tq_impl>(
      OpId::_fake_quantize_per_tensor_affine_cachemask_tensor_qparams, self, scale, zero_point,
      fake_quant_enabled, qmin, qmax);
}
std::tuple<Tensor, Tensor> fq_per_channel_cachemask_op(const Tensor& self, const Tensor& scale,
                                                       const Tensor& zero_point, int64_t axis,
                                                       int64_t qmin, int64_t qmax) {
  return dispatch::call<fq_per_channel_cachemask_impl>(
      OpId::fake_quantize_per_channel_affine_cachemask, self, scale, zero_point, axis, qmin, qmax);
}
Tensor fq_backward_op(const Tensor& grad, const Tensor& mask) {
  return dispatch::call<fq_backward_impl>(OpId::fake_quantize_per_tensor_affine_cachemask_backward,
                                          grad, mask);
}
Tensor fq_per_channel_backward_op(const Tensor& grad, const Tensor& mask) {
  return dispatch::call<fq_backward_impl>(
      OpId::fake_quantize_per_channel_affine_cachemask_backward, grad, mask);
}

Tensor fq_impl(const Tensor& self, const double& scale, const int64_t& zp, const int64_t& qmin,
               const int64_t& qmax) {
  return std::get<0>(fq_cachemask_op(self, scale, zp, qmin, qmax));
}
Tensor fq_tq_impl(const Tensor& self, const Tensor& scale, const Tensor& zero_point,
                  const int64_t& qmin, const int64_t& qmax) {
  Tensor enabled = ones({1}, TensorOptions(kInt64).device(self.device()));
  return std::get<0>(fq_cachemask_tq_op(self, scale, zero_point, enabled, qmin, qmax));
}
Tensor fq_per_channel_impl(const Tensor& self, const Tensor& scale, const Tensor& zero_point,
                           const int64_t& axis, const int64_t& qmin, const int64_t& qmax) {
  return std::get<0>(fq_per_channel_cachemask_op(self, scale, zero_point, axis, qmin, qmax));
}

// ---- autograd: straight through inside the range ----
template <class Forward>
std::tuple<Tensor, Tensor> record_mask(const char* name, const Tensor& self, bool per_channel,
                                       Forward&& forward) {
  autograd::Recorder r(name, self);
  auto [out, mask] = r.forward(forward);
  if (!r) return {out, mask};
  const size_t mask_ = r.save(mask, "mask");
  r.finish(out, [=](autograd::OpNode& n, const autograd::tensor_list& g) {
    const Tensor m = n.saved(mask_);
    return autograd::tensor_list{per_channel ? fq_per_channel_backward_op(g[0], m)
                                             : fq_backward_op(g[0], m)};
  });
  return {out, mask};
}

std::tuple<Tensor, Tensor> fq_cachemask_autograd(const Tensor& self, const double& scale,
                                                 const int64_t& zp, const int64_t& qmin,
                                                 const int64_t& qmax) {
  return record_mask("FakeQuantizePerTensorAffineCachemaskBackward0", self, false, [&] {
    return dispatch::call<fq_cachemask_impl>(OpId::fake_quantize_per_tensor_affine_cachemask,
                                             self, scale, zp, qmin, qmax);
  });
}
std::tuple<Tensor, Tensor> fq_cachemask_tq_autograd(const Tensor& self, const Tensor& scale,
                                                    const Tensor& zero_point,
                                                    const Tensor& enabled, const int64_t& qmin,
                                                    const int64_t& qmax) {
  return record_mask("FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0", self, false, [&] {
    return dispatch::call<fq_cachemask_tq_impl>(
        OpId::_fake_quantize_per_tensor_affine_cachemask_tensor_qparams, self, scale, zero_point,
        enabled, qmin, qmax);
  });
}
std::tuple<Tensor, Tensor> fq_per_channel_cachemask_autograd(const Tensor& self,
                                                             const Tensor& scale,
                                                             const Tensor& zero_point,
                                                             const int64_t& axis,
                                                             const int64_t& qmin,
                                                             const int64_t& qmax) {
  return record_mask("FakeQuantizePerChannelAffineCachemaskBackward0", self, true, [&] {
    return dispatch::call<fq_per_channel_cachemask_impl>(
        OpId::fake_quantize_per_channel_affine_cachemask, self, scale, zero_point, axis, qmin, qmax);
  });
}

}  // namespace

Tensor fake_quantize_per_tensor_affine(const Tensor& self, double scale, int64_t zero_point,
                                       int64_t quant_min, int64_t quant_max) {
  return dispatch::call<fq_impl>(OpId::fake_quantize_per_tensor_affine, self, scale, zero_point,
                                 quant_min, quant_max);
}
Tensor fake_quantize_per_tensor_affine(const Tensor& self, const Tensor& scale,
                                       const Tensor& zero_point, int64_t quant_min,
                                       int64_t quant_max) {
  return dispatch::call<fq_tq_impl>(OpId::fake_quantize_per_tensor_affine_tensor_qparams, self,
                                    scale, zero_point, quant_min, quant_max);
}
Tensor fake_quantize_per_channel_affine(const Tensor& self, const Tensor& scale,
                                        const Tensor& zero_point, int64_t axis, int64_t quant_min,
                                        int64_t quant_max) {
  return dispatch::call<fq_per_channel_impl>(OpId::fake_quantize_per_channel_affine, self, scale,
                                             zero_point, axis, quant_min, quant_max);
}

EMBER_REGISTER_OP(fake_quantize_per_tensor_affine,
                  static_cast<Tensor (*)(const Tensor&, double, int64_t, int64_t, int64_t)>(
                      &fake_quantize_per_tensor_affine));
EMBER_REGISTER_OP(fake_quantize_per_tensor_affine_tensor_qparams,
                  static_cast<Tensor (*)(const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t)>(
                      &fake_quantize_per_tensor_affine));
EMBER_REGISTER_OP(fake_quantize_per_tensor_affine_cachemask, &fq_cachemask_op);
EMBER_REGISTER_OP(_fake_quantize_per_tensor_affine_cachemask_tensor_qparams, &fq_cachemask_tq_op);
EMBER_REGISTER_OP(fake_quantize_per_tensor_affine_cachemask_backward, &fq_backward_op);
EMBER_REGISTER_OP(fake_quantize_per_channel_affine, &fake_quantize_per_channel_affine);
EMBER_REGISTER_OP(fake_quantize_per_channel_affine_cachemask, &fq_per_channel_cachemask_op);
EMBER_REGISTER_OP(fake_quantize_per_channel_affine_cachemask_backward, &fq_per_channel_backward_op);
EMBER_REGISTER_AUTOGRAD(fake_quantize_per_tensor_affine_cachemask, &fq_cachemask_autograd);
EMBER_REGISTER_AUTOGRAD(_fake_quantize_per_tensor_affine_cachemask_tensor_qparams,
                        &fq_cachemask_tq_autograd);
EMBER_REGISTER_AUTOGRAD(fake_quantize_per_channel_affine_cachemask,
                        &fq_per_channel_cachemask_autograd);

}  // namespace ember
