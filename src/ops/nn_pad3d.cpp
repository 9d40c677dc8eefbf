// 3-d reflection / replication padding (Primitives with backward ops, index maps over the last
// three dims as the 1-d / 2-d pads of pad.cpp), im2col / col2im (each the other's gradient, as
// in PyTorch) and the shuffles pixel_shuffle, pixel_unshuffle, channel_shuffle (Composites of
// views and a permute). Kernels: src/backends/cpu/pool3d_kernels.cpp.
#include <algorithm>

#include "../autograd/record.h"
#include "../backends/cpu/pool3d_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/nn_ops.h"

namespace ember {

using dispatch::OpId;

namespace {

// PyTorch's index map of reflection / replication along one dim (negative pads crop).
std::vector<int64_t> pad_map(int64_t in, int64_t l, int64_t r, bool reflect) {
  std::vector<int64_t> m(static_cast<size_t>(std::max<int64_t>(in + l + r, 0)));
  for (size_t o = 0; o < m.size(); ++o) {
    int64_t i = static_cast<int64_t>(o) - l;
    if (reflect) {
      if (i < 0) i = -i;
      if (i >= in) i = 2 * (in - 1) - i;
    } else {
      i = std::clamp<int64_t>(i, 0, in - 1);
    }
    m[o] = i;
  }
  return m;
}

struct Pad3dPlan {
  std::vector<int64_t> out_sizes, map_d, map_h, map_w;
};

Pad3dPlan pad3d_plan(const char* op, const Tensor& self, IntArrayRef padding, bool reflect) {
  EMBER_CHECK(padding.size() == 6, "padding size is expected to be 6");
  EMBER_CHECK((self.dim() == 4 || self.dim() == 5) &&
                  std::all_of(self.sizes().begin() + 1, self.sizes().end(), [](int64_t s) { return s != 0; }),
              "Expected 4D or 5D (batch mode) tensor with possibly 0 batch size and other non-zero ",
              "dimensions for input, but got: ", self.sizes());
  EMBER_CHECK(is_floating(self.dtype()), "\"", op, "_cpu\" not implemented for '",
              scalar_type_name(self.dtype()), "'");
  const int64_t nd = self.dim();
  const int64_t D = self.size(-3), H = self.size(-2), W = self.size(-1);
  if (reflect) {
    const int64_t in[3] = {W, H, D};
    for (int i = 0; i < 3; ++i) {
      const int64_t l = padding[2 * i], r = padding[2 * i + 1];
      EMBER_CHECK(l < in[i] && r < in[i], "Argument #", 4 + 2 * i, ": Padding size should be less ",
                  "than the corresponding input dimension, but got: padding (", l, ", ", r,
                  ") at dimension ", nd - 1 - i, " of input ", self.sizes());
    }
  }
  Pad3dPlan p;
  p.out_sizes = self.sizes().vec();
  p.out_sizes[nd - 1] = W + padding[0] + padding[1];
  p.out_sizes[nd - 2] = H + padding[2] + padding[3];
  p.out_sizes[nd - 3] = D + padding[4] + padding[5];
  for (int64_t s : p.out_sizes) {
    EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", IntArrayRef(p.out_sizes));
  }
  EMBER_CHECK(p.out_sizes[nd - 1] >= 1 && p.out_sizes[nd - 2] >= 1 && p.out_sizes[nd - 3] >= 1,
              "input (D: ", D, " H: ", H, ", W: ", W, ") is too small. Calculated output D: ",
              p.out_sizes[nd - 3], " H: ", p.out_sizes[nd - 2], " W: ", p.out_sizes[nd - 1]);
  p.map_w = pad_map(W, padding[0], padding[1], reflect);
  p.map_h = pad_map(H, padding[2], padding[3], reflect);
  p.map_d = pad_map(D, padding[4], padding[5], reflect);
  return p;
}

Tensor planes(const Tensor& t) { return t.view({-1, t.size(-3), t.size(-2), t.size(-1)}); }

Tensor pad3d_forward(const char* op, const Tensor& self, IntArrayRef padding, bool reflect) {
  ops::check_not_quantized(op, {self});
  const Pad3dPlan p = pad3d_plan(op, self, padding, reflect);
  Tensor out = empty(p.out_sizes, TensorOptions(self.dtype()).device(self.device()));
  if (!out.is_meta() && out.numel() != 0)
    cpu::gather3d_kernel(planes(out), planes(self.contiguous()), p.map_d, p.map_h, p.map_w);
  return out;
}

Tensor pad3d_backward(const char* op, const Tensor& grad_output, const Tensor& self,
                      IntArrayRef padding, bool reflect) {
  const Pad3dPlan p = pad3d_plan(op, self, padding, reflect);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(p.out_sizes), op, "_backward: expected grad_output of size ",
              size_str(p.out_sizes), ", but got ", size_str(grad_output.sizes()));
  Tensor gi = empty(self.sizes(), TensorOptions(grad_output.dtype()).device(self.device()));
  if (!gi.is_meta() && gi.numel() != 0)
    cpu::scatter_add3d_kernel(planes(gi), planes(grad_output.contiguous()), p.map_d, p.map_h, p.map_w);
  return gi;
}

Tensor reflection_pad3d_impl(const Tensor& s, IntArrayRef p) {
  return pad3d_forward("reflection_pad3d", s, p, true);
}
Tensor replication_pad3d_impl(const Tensor& s, IntArrayRef p) {
  return pad3d_forward("replication_pad3d", s, p, false);
}
Tensor reflection_pad3d_backward_impl(const Tensor& g, const Tensor& s, IntArrayRef p) {
  return pad3d_backward("reflection_pad3d", g, s, p, true);
}
Tensor replication_pad3d_backward_impl(const Tensor& g, const Tensor& s, IntArrayRef p) {
  return pad3d_backward("replication_pad3d", g, s, p, false);
}

// ---- im2col / col2im ----
std::pair<int64_t, int64_t> two(IntArrayRef v, const char* what) {
  EMBER_CHECK(v.size() == 2, "It is expected ", what, " equals to 2, but got size ", v.size());
  return {v[0], v[1]};
}

cpu::Im2ColParams im2col_params(IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                                IntArrayRef stride) {
  cpu::Im2ColParams p{};
  std::tie(p.kh, p.kw) = two(kernel_size, "kernel_size");
  std::tie(p.dh, p.dw) = two(dilation, "dilation");
  std::tie(p.ph, p.pw) = two(padding, "padding");
  std::tie(p.sh, p.sw) = two(stride, "stride");
  EMBER_CHECK(p.kh > 0 && p.kw > 0, "kernel size should be greater than zero, but got kernel_height: ",
              p.kh, " kernel_width: ", p.kw);
  EMBER_CHECK(p.dh > 0 && p.dw > 0, "dilation should be greater than zero, but got dilation_height: ",
              p.dh, " dilation_width: ", p.dw);
  EMBER_CHECK(p.ph >= 0 && p.pw >= 0, "padding should be non-negative, but got pad_height: ", p.ph,
              " pad_width: ", p.pw);
  EMBER_CHECK(p.sh > 0 && p.sw > 0, "stride should be greater than zero, but got stride_height: ", p.sh,
              " stride_width: ", p.sw);
  return p;
}

void set_blocks(cpu::Im2ColParams& p) {
  p.oh = (p.h + 2 * p.ph - (p.dh * (p.kh - 1) + 1)) / p.sh + 1;
  p.ow = (p.w + 2 * p.pw - (p.dw * (p.kw - 1) + 1)) / p.sw + 1;
}

Tensor im2col_impl(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation,
                   IntArrayRef padding, IntArrayRef stride) {
  ops::check_not_quantized("im2col", {self});
  cpu::Im2ColParams p = im2col_params(kernel_size, dilation, padding, stride);
  EMBER_CHECK((self.dim() == 3 || self.dim() == 4) && self.size(-1) != 0 && self.size(-2) != 0 &&
                  self.size(-3) != 0,
              "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero ",
              "dimensions for input, but got: ", self.sizes());
  EMBER_CHECK(is_floating(self.dtype()), "\"im2col_out_cpu\" not implemented for '",
              scalar_type_name(self.dtype()), "'");
  p.h = self.size(-2);
  p.w = self.size(-1);
  set_blocks(p);
  // (PyTorch's message prints the input height twice.)
  EMBER_CHECK(p.oh >= 1 && p.ow >= 1, "Given input with spatial size (", p.h, ", ", p.h,
              "), kernel_size=(", p.kh, ", ", p.kw, "), dilation=(", p.dh, ", ", p.dw,
              "), padding=(", p.ph, ", ", p.pw, "), calculated shape of the array of sliding blocks ",
              "as (", p.oh, ", ", p.ow, "), but its components must be at least one.");
  const bool batched = self.dim() == 4;
  const Tensor x = batched ? self.contiguous() : self.unsqueeze(0).contiguous();
  const int64_t N = x.size(0), C = x.size(1);
  Tensor cols = empty({N, C * p.kh * p.kw, p.oh * p.ow}, TensorOptions(self.dtype()).device(self.device()));
  if (!cols.is_meta() && cols.numel() != 0) cpu::im2col_kernel(cols, x, p);
  return batched ? cols : cols.squeeze(0);
}

Tensor col2im_impl(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size,
                   IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  ops::check_not_quantized("col2im", {self});
  cpu::Im2ColParams p = im2col_params(kernel_size, dilation, padding, stride);
  std::tie(p.h, p.w) = two(output_size, "output_size");
  EMBER_CHECK(p.h > 0 && p.w > 0, "output should be greater than zero, but got output_height: ", p.h,
              " output_width: ", p.w);
  EMBER_CHECK((self.dim() == 2 || self.dim() == 3) && self.size(-1) != 0 && self.size(-2) != 0,
              "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and non-zero ",
              "dimensions for input, but got: ", self.sizes());
  EMBER_CHECK(is_floating(self.dtype()), "\"col2im_out_cpu\" not implemented for '",
              scalar_type_name(self.dtype()), "'");
  const int64_t n_in = self.size(-2);
  EMBER_CHECK(n_in % (p.kh * p.kw) == 0, "Expected size of input's dimension 1 to be divisible by the ",
              "product of kernel_size, but got input.size(1)=", n_in, " and kernel_size=(", p.kh, ", ",
              p.kw, ").");
  set_blocks(p);
  EMBER_CHECK(self.size(-1) == p.oh * p.ow, "Given output_size=(", p.h, ", ", p.w, "), kernel_size=(",
              p.kh, ", ", p.kw, "), dilation=(", p.dh, ", ", p.dw, "), padding=(", p.ph, ", ", p.pw,
              "), stride=(", p.sh, ", ", p.sw, "), expected size of input's dimension 2 to match the ",
              "calculated number of sliding blocks ", p.oh, " * ", p.ow, " = ", p.oh * p.ow,
              ", but got input.size(2)=", self.size(-1), ".");
  EMBER_CHECK(p.oh >= 1 && p.ow >= 1, "Given output_size=(", p.h, ", ", p.w, "), kernel_size=(", p.kh,
              ", ", p.kw, "), dilation=(", p.dh, ", ", p.dw, "), padding=(", p.ph, ", ", p.pw,
              "), stride=(", p.sh, ", ", p.sw, "), calculated shape of the array of sliding blocks as (",
              p.oh, ", ", p.ow, "), which is too small (non-positive)");
  const bool batched = self.dim() == 3;
  const Tensor cols = batched ? self.contiguous() : self.unsqueeze(0).contiguous();
  const int64_t N = cols.size(0), C = n_in / (p.kh * p.kw);
  Tensor image = empty({N, C, p.h, p.w}, TensorOptions(self.dtype()).device(self.device()));
  if (!image.is_meta() && image.numel() != 0) cpu::col2im_kernel(image, cols, p);
  return batched ? image : image.squeeze(0);
}

// ---- shuffles (PyTorch's composites) ----
Tensor pixel_shuffle_impl(const Tensor& self, int64_t r) {
  EMBER_CHECK(self.dim() >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got ",
              "input with ", self.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  const int64_t c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK(c % (r * r) == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible ",
              "by the square of upscale_factor, but input.size(-3)=", c, " is not divisible by ", r * r);
  std::vector<int64_t> batch(self.sizes().begin(), self.sizes().end() - 3);
  const int64_t nb = static_cast<int64_t>(batch.size());
  std::vector<int64_t> s = batch;
  s.insert(s.end(), {c / (r * r), r, r, h, w});
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  perm.insert(perm.end(), {nb, nb + 3, nb + 1, nb + 4, nb + 2});
  std::vector<int64_t> out = batch;
  out.insert(out.end(), {c / (r * r), h * r, w * r});
  return self.reshape(s).permute(perm).reshape(out);
}

Tensor pixel_unshuffle_impl(const Tensor& self, int64_t r) {
  EMBER_CHECK(self.dim() >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got ",
              "input with ", self.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const int64_t c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but ",
              "input.size(-2)=", h, " is not divisible by ", r);
  EMBER_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but ",
              "input.size(-1)=", w, " is not divisible by ", r);
  std::vector<int64_t> batch(self.sizes().begin(), self.sizes().end() - 3);
  const int64_t nb = static_cast<int64_t>(batch.size());
  std::vector<int64_t> s = batch;
  s.insert(s.end(), {c, h / r, r, w / r, r});
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  perm.insert(perm.end(), {nb, nb + 2, nb + 4, nb + 1, nb + 3});
  std::vector<int64_t> out = batch;
  out.insert(out.end(), {c * r * r, h / r, w / r});
  return self.reshape(s).permute(perm).reshape(out);
}

Tensor channel_shuffle_impl(const Tensor& self, int64_t groups) {
  EMBER_CHECK(self.dim() > 2, "channel_shuffle expects input to have at least 3 dimensions, but got ",
              "input with ", self.dim(), " dims");
  EMBER_CHECK(groups > 0, "Number of groups to divide channels in must be positive. Value of groups:",
              groups);
  const int64_t c = self.size(1);
  EMBER_CHECK(c % groups == 0, "Number of channels must be divisible by groups. Got ", c,
              " channels and ", groups, " groups.");
  std::vector<int64_t> s{self.size(0), groups, c / groups};
  s.insert(s.end(), self.sizes().begin() + 2, self.sizes().end());
  return self.reshape(s).transpose(1, 2).reshape(self.sizes()).contiguous();
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

template <auto Impl, OpId Id, bool Reflect>
Tensor pad3d_autograd(const Tensor& self, const IntArrayRef& padding) {
  autograd::Recorder r(Reflect ? "ReflectionPad3DBackward0" : "ReplicationPad3DBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<Impl>(Id, self, padding); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self");
  r.values("padding", padding);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const auto& pv = n.value(0).to_int_list();
    return tensor_list{Reflect ? reflection_pad3d_backward(g[0], n.saved(self_), pv)
                               : replication_pad3d_backward(g[0], n.saved(self_), pv)};
  });
}

template <auto Impl, OpId Id, bool Reflect>
Tensor pad3d_backward_autograd(const Tensor& grad_output, const Tensor& self, const IntArrayRef& padding) {
  autograd::Recorder r(Reflect ? "ReflectionPad3DBackwardBackward0" : "ReplicationPad3DBackwardBackward0",
                       grad_output, self);
  Tensor out = r.forward([&] { return dispatch::call<Impl>(Id, grad_output, self, padding); });
  if (!r) return out;
  r.values("padding", padding);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    if (!n.needs(0)) return tensor_list{Tensor(), Tensor()};
    const auto& pv = n.value(0).to_int_list();
    return tensor_list{Reflect ? reflection_pad3d(g[0], pv) : replication_pad3d(g[0], pv), Tensor()};
  });
}

Tensor im2col_autograd(const Tensor& self, const IntArrayRef& k, const IntArrayRef& d,
                       const IntArrayRef& p, const IntArrayRef& s) {
  autograd::Recorder r("Im2ColBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<im2col_impl>(OpId::im2col, self, k, d, p, s); });
  if (!r) return out;
  const std::vector<int64_t> hw{self.size(-2), self.size(-1)}, kv = k.vec(), dv = d.vec(),
                             pv = p.vec(), sv = s.vec();
  r.save(self, "self");  // as PyTorch (the rule reads only its spatial size)
  r.values("dilation", d, "kernel_size", k, "padding", p, "stride", s);
  return r.finish(out, [=](OpNode&, const tensor_list& g) {
    return tensor_list{col2im(g[0], hw, kv, dv, pv, sv)};
  });
}

Tensor col2im_autograd(const Tensor& self, const IntArrayRef& o, const IntArrayRef& k,
                       const IntArrayRef& d, const IntArrayRef& p, const IntArrayRef& s) {
  autograd::Recorder r("Col2ImBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<col2im_impl>(OpId::col2im, self, o, k, d, p, s); });
  if (!r) return out;
  const std::vector<int64_t> kv = k.vec(), dv = d.vec(), pv = p.vec(), sv = s.vec();
  r.values("dilation", d, "kernel_size", k, "padding", p, "stride", s);
  return r.finish(out, [=](OpNode&, const tensor_list& g) {
    return tensor_list{im2col(g[0], kv, dv, pv, sv)};
  });
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(reflection_pad3d, (&pad3d_autograd<reflection_pad3d_impl, OpId::reflection_pad3d, true>));
EMBER_REGISTER_AUTOGRAD(replication_pad3d, (&pad3d_autograd<replication_pad3d_impl, OpId::replication_pad3d, false>));
EMBER_REGISTER_AUTOGRAD(reflection_pad3d_backward,
                        (&pad3d_backward_autograd<reflection_pad3d_backward_impl, OpId::reflection_pad3d_backward, true>));
EMBER_REGISTER_AUTOGRAD(replication_pad3d_backward,
                        (&pad3d_backward_autograd<replication_pad3d_backward_impl, OpId::replication_pad3d_backward, false>));
EMBER_REGISTER_AUTOGRAD(im2col, &im2col_autograd);
EMBER_REGISTER_AUTOGRAD(col2im, &col2im_autograd);

Tensor reflection_pad3d(const Tensor& self, IntArrayRef padding) {
  return dispatch::call<reflection_pad3d_impl>(OpId::reflection_pad3d, self, padding);
}
Tensor reflection_pad3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return dispatch::call<reflection_pad3d_backward_impl>(OpId::reflection_pad3d_backward, grad_output,
                                                        self, padding);
}
Tensor replication_pad3d(const Tensor& self, IntArrayRef padding) {
  return dispatch::call<replication_pad3d_impl>(OpId::replication_pad3d, self, padding);
}
Tensor replication_pad3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return dispatch::call<replication_pad3d_backward_impl>(OpId::replication_pad3d_backward,
                                                         grad_output, self, padding);
}
Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride) {
  return dispatch::call<im2col_impl>(OpId::im2col, self, kernel_size, dilation, padding, stride);
}
Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size,
              IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  return dispatch::call<col2im_impl>(OpId::col2im, self, output_size, kernel_size, dilation,
                                     padding, stride);
}
Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  return dispatch::call<pixel_shuffle_impl>(OpId::pixel_shuffle, self, upscale_factor);
}
Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  return dispatch::call<pixel_unshuffle_impl>(OpId::pixel_unshuffle, self, downscale_factor);
}
Tensor channel_shuffle(const Tensor& self, int64_t groups) {
  return dispatch::call<channel_shuffle_impl>(OpId::channel_shuffle, self, groups);
}

EMBER_REGISTER_OP(reflection_pad3d, &reflection_pad3d);
EMBER_REGISTER_OP(reflection_pad3d_backward, &reflection_pad3d_backward);
EMBER_REGISTER_OP(replication_pad3d, &replication_pad3d);
EMBER_REGISTER_OP(replication_pad3d_backward, &replication_pad3d_backward);
EMBER_REGISTER_OP(im2col, &im2col);
EMBER_REGISTER_OP(col2im, &col2im);
EMBER_REGISTER_OP(pixel_shuffle, &pixel_shuffle);
EMBER_REGISTER_OP(pixel_unshuffle, &pixel_unshuffle);
EMBER_REGISTER_OP(channel_shuffle, &channel_shuffle);

}  // namespace ember
