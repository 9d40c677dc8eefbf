// Resampling: upsample_nearest2d and upsample_bilinear2d (Primitives with their backward ops, as
// PyTorch's); F.interpolate, over these and more modes, is in nn_sample.cpp. Source
// coordinates follow PyTorch's nearest_idx / area_pixel_compute_source_index, in float arithmetic for float inputs (double
// for float64), so the picked pixels and weights are PyTorch's. Kernels:
// src/backends/cpu/pad_kernels.cpp.
#include <cmath>

#include "../autograd/record.h"
#include "../backends/cpu/pad_kernels.h"
#include "../dispatch/boxing.h"
#include "ember/ops/pooling.h"
#include "elementwise.h"
#include "upsample_checks.h"

namespace ember {

using dispatch::OpId;

namespace {

// PyTorch's compute_scales_value: 1 / scale when given (and positive), else in / out.
template <class A>
A scale_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0 ? static_cast<A>(1.0 / *scale) : static_cast<A>(in) / static_cast<A>(out);
}

std::vector<int64_t> nearest_map(int64_t in, int64_t out, std::optional<double> scale) {
  std::vector<int64_t> m(static_cast<size_t>(out));
  const float s = scale_value<float>(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i;
    if (out == in) i = o;
    else if (out == 2 * in) i = o >> 1;
    else i = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
    m[static_cast<size_t>(o)] = i;
  }
  return m;
}

template <class A>
std::vector<cpu::LinearTap> linear_taps(int64_t in, int64_t out, bool align_corners,
                                        std::optional<double> scale) {
  const A s = align_corners ? (out > 1 ? static_cast<A>(in - 1) / static_cast<A>(out - 1) : A(0))
                            : scale_value<A>(scale, in, out);
  std::vector<cpu::LinearTap> t(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    A real = align_corners ? s * static_cast<A>(o) : s * (static_cast<A>(o) + A(0.5)) - A(0.5);
    if (!align_corners && real < 0) real = 0;
    const int64_t i0 = static_cast<int64_t>(real);
    const int64_t step = i0 < in - 1 ? 1 : 0;
    const A l1 = real - static_cast<A>(i0);
    t[static_cast<size_t>(o)] = {i0, i0 + step, static_cast<double>(A(1) - l1), static_cast<double>(l1)};
  }
  return t;
}

std::vector<cpu::LinearTap> taps_for(ScalarType dt, int64_t in, int64_t out, bool ac, std::optional<double> s) {
  return dt == kFloat64 ? linear_taps<double>(in, out, ac, s) : linear_taps<float>(in, out, ac, s);
}

Tensor upsample_nearest2d_impl(const Tensor& input, IntArrayRef output_size,
                               std::optional<double> scales_h, std::optional<double> scales_w) {
  detail::check_upsample_input("upsample_nearest2d_out_frame", input);
  const auto sizes = detail::upsample_sizes(input.sizes(), output_size);
  Tensor out = empty(sizes, TensorOptions(input.dtype()).device(input.device()));
  if (out.is_meta() || out.numel() == 0) return out;
  const int64_t P = sizes[0] * sizes[1];
  cpu::gather2d_kernel(out.view({P, sizes[2], sizes[3]}),
                       input.contiguous().view({P, input.size(2), input.size(3)}),
                       nearest_map(input.size(2), sizes[2], scales_h),
                       nearest_map(input.size(3), sizes[3], scales_w));
  return out;
}

Tensor upsample_nearest2d_backward_impl(const Tensor& grad_output, IntArrayRef output_size,
                                        IntArrayRef input_size, std::optional<double> scales_h,
                                        std::optional<double> scales_w) {
  const auto sizes = detail::upsample_sizes(input_size, output_size);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(sizes), "upsample_nearest2d_backward: expected ",
              "grad_output of size ", size_str(sizes), ", but got ", size_str(grad_output.sizes()));
  Tensor gi = empty(input_size, TensorOptions(grad_output.dtype()).device(grad_output.device()));
  if (gi.is_meta() || gi.numel() == 0) return gi;
  const int64_t P = sizes[0] * sizes[1];
  cpu::scatter_add2d_kernel(gi.view({P, input_size[2], input_size[3]}),
                            grad_output.contiguous().view({P, sizes[2], sizes[3]}),
                            nearest_map(input_size[2], sizes[2], scales_h),
                            nearest_map(input_size[3], sizes[3], scales_w));
  return gi;
}

Tensor upsample_bilinear2d_impl(const Tensor& input, IntArrayRef output_size, bool align_corners,
                                std::optional<double> scales_h, std::optional<double> scales_w) {
  detail::check_upsample_input("upsample_bilinear2d_channels_last", input);
  const auto sizes = detail::upsample_sizes(input.sizes(), output_size);
  Tensor out = empty(sizes, TensorOptions(input.dtype()).device(input.device()));
  if (out.is_meta() || out.numel() == 0) return out;
  const int64_t P = sizes[0] * sizes[1];
  cpu::bilinear2d_kernel(out.view({P, sizes[2], sizes[3]}),
                         input.contiguous().view({P, input.size(2), input.size(3)}),
                         taps_for(input.dtype(), input.size(2), sizes[2], align_corners, scales_h),
                         taps_for(input.dtype(), input.size(3), sizes[3], align_corners, scales_w));
  return out;
}

Tensor upsample_bilinear2d_backward_impl(const Tensor& grad_output, IntArrayRef output_size,
                                         IntArrayRef input_size, bool align_corners,
                                         std::optional<double> scales_h, std::optional<double> scales_w) {
  const auto sizes = detail::upsample_sizes(input_size, output_size);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(sizes), "upsample_bilinear2d_backward: expected ",
              "grad_output of size ", size_str(sizes), ", but got ", size_str(grad_output.sizes()));
  Tensor gi = empty(input_size, TensorOptions(grad_output.dtype()).device(grad_output.device()));
  if (gi.is_meta() || gi.numel() == 0) return gi;
  const int64_t P = sizes[0] * sizes[1];
  const ScalarType dt = grad_output.dtype();
  cpu::bilinear2d_backward_kernel(gi.view({P, input_size[2], input_size[3]}),
                                  grad_output.contiguous().view({P, sizes[2], sizes[3]}),
                                  taps_for(dt, input_size[2], sizes[2], align_corners, scales_h),
                                  taps_for(dt, input_size[3], sizes[3], align_corners, scales_w));
  return gi;
}

}  // namespace

// ---- autograd ----
namespace {
using autograd::OpNode;
using autograd::tensor_list;
using OptD = std::optional<double>;
OptD opt_double(const Value& v) { return v.is_none() ? OptD() : OptD(v.to_double()); }

Tensor upsample_nearest2d_autograd(const Tensor& self, const IntArrayRef& os, const OptD& sh, const OptD& sw) {
  autograd::Recorder r("UpsampleNearest2DBackward0", self);
  Tensor out = r.forward([&] {
    return dispatch::call<upsample_nearest2d_impl>(OpId::upsample_nearest2d, self, os, sh, sw);
  });
  if (!r) return out;
  r.values("output_size", os, "scales_h", sh, "scales_w", sw, "self_sym_sizes", self.sizes());
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{upsample_nearest2d_backward(g[0], n.value(0).to_int_list(), n.value(3).to_int_list(),
                                                   opt_double(n.value(1)), opt_double(n.value(2)))};
  });
}
Tensor upsample_nearest2d_backward_autograd(const Tensor& grad_output, const IntArrayRef& os,
                                            const IntArrayRef& is, const OptD& sh, const OptD& sw) {
  autograd::Recorder r("UpsampleNearest2DBackwardBackward0", grad_output);
  Tensor out = r.forward([&] {
    return dispatch::call<upsample_nearest2d_backward_impl>(OpId::upsample_nearest2d_backward, grad_output,
                                                            os, is, sh, sw);
  });
  if (!r) return out;
  r.values("output_size", os, "scales_h", sh, "scales_w", sw);
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{upsample_nearest2d(g[0], n.value(0).to_int_list(), opt_double(n.value(1)),
                                          opt_double(n.value(2)))};
  });
}
Tensor upsample_bilinear2d_autograd(const Tensor& self, const IntArrayRef& os, const bool& ac,
                                    const OptD& sh, const OptD& sw) {
  autograd::Recorder r("UpsampleBilinear2DBackward0", self);
  Tensor out = r.forward([&] {
    return dispatch::call<upsample_bilinear2d_impl>(OpId::upsample_bilinear2d, self, os, ac, sh, sw);
  });
  if (!r) return out;
  r.values("align_corners", ac, "output_size", os, "scales_h", sh, "scales_w", sw, "self_sym_sizes", self.sizes());
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{upsample_bilinear2d_backward(g[0], n.value(1).to_int_list(), n.value(4).to_int_list(),
                                                    n.value(0).to_bool(), opt_double(n.value(2)),
                                                    opt_double(n.value(3)))};
  });
}
Tensor upsample_bilinear2d_backward_autograd(const Tensor& grad_output, const IntArrayRef& os,
                                             const IntArrayRef& is, const bool& ac, const OptD& sh,
                                             const OptD& sw) {
  autograd::Recorder r("UpsampleBilinear2DBackwardBackward0", grad_output);
  Tensor out = r.forward([&] {
    return dispatch::call<upsample_bilinear2d_backward_impl>(OpId::upsample_bilinear2d_backward,
                                                             grad_output, os, is, ac, sh, sw);
  });
  if (!r) return out;
  r.values("align_corners", ac, "output_size", os, "scales_h", sh, "scales_w", sw);
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{upsample_bilinear2d(g[0], n.value(1).to_int_list(), n.value(0).to_bool(),
                                           opt_double(n.value(2)), opt_double(n.value(3)))};
  });
}
}  // namespace

EMBER_REGISTER_AUTOGRAD(upsample_nearest2d, &upsample_nearest2d_autograd);
EMBER_REGISTER_AUTOGRAD(upsample_nearest2d_backward, &upsample_nearest2d_backward_autograd);
EMBER_REGISTER_AUTOGRAD(upsample_bilinear2d, &upsample_bilinear2d_autograd);
EMBER_REGISTER_AUTOGRAD(upsample_bilinear2d_backward, &upsample_bilinear2d_backward_autograd);

Tensor upsample_nearest2d(const Tensor& input, IntArrayRef output_size, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  return dispatch::call<upsample_nearest2d_impl>(OpId::upsample_nearest2d, input, output_size, scales_h, scales_w);
}
Tensor upsample_nearest2d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                   std::optional<double> scales_h, std::optional<double> scales_w) {
  return dispatch::call<upsample_nearest2d_backward_impl>(OpId::upsample_nearest2d_backward, grad_output,
                                                          output_size, input_size, scales_h, scales_w);
}
Tensor upsample_bilinear2d(const Tensor& input, IntArrayRef output_size, bool align_corners,
                           std::optional<double> scales_h, std::optional<double> scales_w) {
  return dispatch::call<upsample_bilinear2d_impl>(OpId::upsample_bilinear2d, input, output_size,
                                                  align_corners, scales_h, scales_w);
}
Tensor upsample_bilinear2d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                    bool align_corners, std::optional<double> scales_h,
                                    std::optional<double> scales_w) {
  return dispatch::call<upsample_bilinear2d_backward_impl>(OpId::upsample_bilinear2d_backward, grad_output,
                                                           output_size, input_size, align_corners,
                                                           scales_h, scales_w);
}

EMBER_REGISTER_OP(upsample_nearest2d, &upsample_nearest2d);
EMBER_REGISTER_OP(upsample_nearest2d_backward, &upsample_nearest2d_backward);
EMBER_REGISTER_OP(upsample_bilinear2d, &upsample_bilinear2d);
EMBER_REGISTER_OP(upsample_bilinear2d_backward, &upsample_bilinear2d_backward);

// F.interpolate: src/ops/nn_sample.cpp (every mode).

}  // namespace ember
