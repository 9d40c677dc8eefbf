// Padding: constant_pad_nd, reflection_pad1d/2d, replication_pad1d/2d (Primitives with their
// backward ops, as in PyTorch) and aten::pad (Composite: F.pad's mode switch). Reflection and
// replication are index maps (src/backends/cpu/pad_kernels.cpp); constant padding copies the
// input into a filled output (negative pads crop); circular padding is slices and copies
// (pad_circular, as PyTorch's composite).
#include "../autograd/record.h"
#include "../backends/cpu/layout.h"
#include "../backends/cpu/pad_kernels.h"
#include "../dispatch/boxing.h"
#include "ember/ops/copy.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/pooling.h"
#include "elementwise.h"

namespace ember {

using dispatch::OpId;

namespace {

Tensor constant_pad_nd_impl(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  EMBER_CHECK(pad.size() % 2 == 0, "Length of pad must be even but instead it equals ", pad.size());
  const int64_t nd = self.dim();
  EMBER_CHECK(static_cast<int64_t>(pad.size()) <= 2 * nd,
              "Length of pad should be no more than twice the number of dimensions of the input. ",
              "Pad length is ", pad.size(), "while the input has ", nd, "dimensions.");
  std::vector<int64_t> sizes = self.sizes().vec();
  const int64_t np = static_cast<int64_t>(pad.size()) / 2;
  for (int64_t i = 0; i < np; ++i) {
    const int64_t d = nd - 1 - i;
    const int64_t l = pad[static_cast<size_t>(2 * i)], r = pad[static_cast<size_t>(2 * i + 1)];
    const int64_t s = sizes[static_cast<size_t>(d)] + l + r;
    EMBER_CHECK(s >= 0, "The input size ", sizes[static_cast<size_t>(d)], ", plus negative padding ",
                l, " and ", r, " resulted in a negative output size, which is invalid. Check dimension ",
                d, " of your input.");
    sizes[static_cast<size_t>(d)] = s;
  }
  Tensor out = cpu::empty_like_layout(sizes, self, self.dtype());
  if (out.is_meta() || out.numel() == 0) return out;
  out.fill_(value);
  // The overlap of input and output: crop the input by negative pads, the output by positive.
  Tensor src = self, dst = out;
  for (int64_t i = 0; i < np; ++i) {
    const int64_t d = nd - 1 - i;
    const int64_t l = pad[static_cast<size_t>(2 * i)], r = pad[static_cast<size_t>(2 * i + 1)];
    const int64_t in = self.size(d);
    const int64_t lo = std::max<int64_t>(-l, 0), hi = in - std::max<int64_t>(-r, 0);
    if (hi <= lo) return out;
    src = src.narrow(d, lo, hi - lo);
    dst = dst.narrow(d, std::max<int64_t>(l, 0), hi - lo);
  }
  dst.copy_(src);
  return out;
}

// Index maps of reflection / replication along one dim (PyTorch's formulas, negative pads too).
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

struct PadPlan {
  std::vector<int64_t> out_sizes, map_h, map_w;
  int64_t planes, h, w, oh, ow;
};

// Validation (PyTorch's texts) and the maps of reflection / replication over the last 1 or 2 dims.
PadPlan pad_plan(const char* op, const Tensor& self, IntArrayRef padding, int spatial, bool reflect) {
  const int64_t nd = self.dim();
  EMBER_CHECK(padding.size() == static_cast<size_t>(2 * spatial), op, ": expected padding of ",
              2 * spatial, " elements, but got ", padding.size());
  const bool dims_ok = nd == spatial + 1 || nd == spatial + 2;
  bool nonempty = dims_ok;
  for (int64_t d = nd == spatial + 2 ? 1 : 0; dims_ok && d < nd; ++d) nonempty = nonempty && self.size(d) != 0;
  if (reflect) {
    EMBER_CHECK(nonempty, spatial + 1, "D or ", spatial + 2, "D (batch mode) tensor expected for input, but got: ",
                self.sizes());
  } else {
    EMBER_CHECK(nonempty, "Expected ", spatial + 1, "D or ", spatial + 2,
                "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: ",
                self.sizes());
  }
  // Complex too (the padding is a gather; torch.stft pads complex signals).
  EMBER_CHECK(is_floating(self.dtype()) || is_complex(self.dtype()), "\"", op, reflect ? "" : "_cpu", "\" not implemented for '",
              scalar_type_name(self.dtype()), "'");
  const int64_t pl = padding[0], pr = padding[1];
  const int64_t pt = spatial == 2 ? padding[2] : 0, pb = spatial == 2 ? padding[3] : 0;
  const int64_t W = self.size(-1), H = spatial == 2 ? self.size(-2) : 1;
  if (reflect) {
    // PyTorch 1.13 prints the input's sizes for 1-d padding, its rank for 2-d.
    const std::string input_str = spatial == 1 ? detail::str_cat(self.sizes()) : std::to_string(nd);
    EMBER_CHECK(pl < W && pr < W, "Argument #4: Padding size should be less than the corresponding ",
                "input dimension, but got: padding (", pl, ", ", pr, ") at dimension ", nd - 1,
                " of input ", input_str);
    EMBER_CHECK(spatial == 1 || (pt < H && pb < H), "Argument #6: Padding size should be less than the ",
                "corresponding input dimension, but got: padding (", pt, ", ", pb, ") at dimension ",
                nd - 2, " of input ", nd);
  }
  const int64_t OW = W + pl + pr, OH = H + pt + pb;
  if (spatial == 2) {
    EMBER_CHECK(OW >= 1 && OH >= 1, "input (H: ", H, ", W: ", W, ") is too small. Calculated output H: ",
                OH, " W: ", OW);
  } else {
    EMBER_CHECK(OW >= 1, "input (W: ", W, ") is too small. Calculated output W: ", OW);
  }
  PadPlan p;
  p.out_sizes = self.sizes().vec();
  p.out_sizes.back() = OW;
  if (spatial == 2) p.out_sizes[p.out_sizes.size() - 2] = OH;
  p.map_w = pad_map(W, pl, pr, reflect);
  p.map_h = spatial == 2 ? pad_map(H, pt, pb, reflect) : std::vector<int64_t>{0};
  p.h = H;
  p.w = W;
  p.oh = OH;
  p.ow = OW;
  p.planes = self.numel() / std::max<int64_t>(H * W, 1);
  return p;
}

Tensor pad_forward(const char* op, const Tensor& self, IntArrayRef padding, int spatial, bool reflect) {
  const PadPlan p = pad_plan(op, self, padding, spatial, reflect);
  Tensor out = empty(p.out_sizes, TensorOptions(self.dtype()).device(self.device()));
  if (out.is_meta() || out.numel() == 0) return out;
  cpu::gather2d_kernel(out.view({p.planes, p.oh, p.ow}), self.contiguous().view({p.planes, p.h, p.w}),
                       p.map_h, p.map_w);
  return out;
}

Tensor pad_backward(const char* op, const Tensor& grad_output, const Tensor& self, IntArrayRef padding,
                    int spatial, bool reflect) {
  const PadPlan p = pad_plan(op, self, padding, spatial, reflect);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(p.out_sizes), op, "_backward: expected grad_output of size ",
              size_str(p.out_sizes), ", but got ", size_str(grad_output.sizes()));
  Tensor gi = empty(self.sizes(), TensorOptions(grad_output.dtype()).device(self.device()));
  if (gi.is_meta() || gi.numel() == 0) return gi;
  cpu::scatter_add2d_kernel(gi.view({p.planes, p.h, p.w}),
                            grad_output.contiguous().view({p.planes, p.oh, p.ow}), p.map_h, p.map_w);
  return gi;
}

Tensor reflection_pad1d_impl(const Tensor& s, IntArrayRef p) { return pad_forward("reflection_pad1d", s, p, 1, true); }
Tensor reflection_pad2d_impl(const Tensor& s, IntArrayRef p) { return pad_forward("reflection_pad2d", s, p, 2, true); }
Tensor replication_pad1d_impl(const Tensor& s, IntArrayRef p) { return pad_forward("replication_pad1d", s, p, 1, false); }
Tensor replication_pad2d_impl(const Tensor& s, IntArrayRef p) { return pad_forward("replication_pad2d", s, p, 2, false); }
Tensor reflection_pad1d_backward_impl(const Tensor& g, const Tensor& s, IntArrayRef p) {
  return pad_backward("reflection_pad1d", g, s, p, 1, true);
}
Tensor reflection_pad2d_backward_impl(const Tensor& g, const Tensor& s, IntArrayRef p) {
  return pad_backward("reflection_pad2d", g, s, p, 2, true);
}
Tensor replication_pad1d_backward_impl(const Tensor& g, const Tensor& s, IntArrayRef p) {
  return pad_backward("replication_pad1d", g, s, p, 1, false);
}
Tensor replication_pad2d_backward_impl(const Tensor& g, const Tensor& s, IntArrayRef p) {
  return pad_backward("replication_pad2d", g, s, p, 2, false);
}

// aten::_pad_circular (PyTorch 1.13's composite, PadNd.cpp): the last pad.size() / 2 dims wrap
// around. The kept part of the input goes to the middle of the output; then, dim by dim, the
// left pad copies from the output's right end and the right pad from its left end (so a
// negative pad on one side crops before the other side wraps, and corners are written twice).
// Slices and copy_, so autograd and the override layers see ordinary ops.
Tensor pad_circular(const Tensor& self, IntArrayRef pad) {
  const int64_t nd = self.dim();
  const int64_t padded = static_cast<int64_t>(pad.size()) / 2;
  EMBER_CHECK(static_cast<int64_t>(pad.size()) == 2 * (nd - 2), "Invalid padding size, expected ",
              2 * (nd - 2), " but got ", pad.size());
  std::vector<int64_t> out_sizes = self.sizes().vec();
  auto left = [&](int64_t i) { return pad[static_cast<size_t>(2 * (padded - 1 - i))]; };
  auto right = [&](int64_t i) { return pad[static_cast<size_t>(2 * (padded - 1 - i) + 1)]; };
  for (int64_t i = 0; i < padded; ++i) {
    const int64_t d = nd - padded + i, in = self.size(d);
    EMBER_CHECK(left(i) <= in && right(i) <= in, "Padding value causes wrapping around more than once.");
    out_sizes[static_cast<size_t>(d)] = in + left(i) + right(i);
    EMBER_CHECK(out_sizes[static_cast<size_t>(d)] >= 0,
                "Negative padding value is resulting in an empty dimension");
  }
  Tensor out = empty(out_sizes, TensorOptions(self.dtype()).device(self.device()));
  Tensor out_mid = out, in_mid = self;
  for (int64_t i = 0; i < padded; ++i) {
    const int64_t d = nd - padded + i, o = out_sizes[static_cast<size_t>(d)], in = self.size(d);
    out_mid = out_mid.slice(d, std::max<int64_t>(left(i), 0), o - std::max<int64_t>(right(i), 0));
    in_mid = in_mid.slice(d, std::max<int64_t>(-left(i), 0), in - std::max<int64_t>(-right(i), 0));
  }
  out_mid.copy_(in_mid);
  for (int64_t i = 0; i < padded; ++i) {
    const int64_t d = nd - padded + i, o = out_sizes[static_cast<size_t>(d)];
    const int64_t l = left(i), r = right(i);
    if (l > 0) out.slice(d, 0, l).copy_(out.slice(d, o - l - std::max<int64_t>(r, 0), o - std::max<int64_t>(r, 0)));
    if (r > 0) out.slice(d, o - r, o).copy_(out.slice(d, std::max<int64_t>(l, 0), std::max<int64_t>(l, 0) + r));
  }
  return out;
}

// aten::pad (F.pad): PyTorch 1.13's checks and mode switch.
Tensor pad_impl(const Tensor& self, IntArrayRef pad, const std::string& mode, std::optional<double> value) {
  EMBER_CHECK(pad.size() % 2 == 0, "Padding length must be divisible by 2");
  EMBER_CHECK(static_cast<int64_t>(pad.size()) <= 2 * self.dim(), "Padding length too large");
  EMBER_CHECK_NOT_IMPLEMENTED(mode == "constant" || mode == "reflect" || mode == "replicate" ||
                                  mode == "circular",
                              "Unrecognised padding mode ", mode);
  if (mode == "constant") return constant_pad_nd(self, pad, value.value_or(0.0));
  EMBER_CHECK(!value || *value == 0, "Padding mode \"", mode, "\" doesn't take in value argument");
  // ATen's switch: the pad length and the input's rank pick the op.
  const int64_t nd = self.dim(), n = static_cast<int64_t>(pad.size());
  const bool fits = (n == 2 && (nd == 2 || nd == 3)) || (n == 4 && (nd == 3 || nd == 4)) ||
                    (n == 6 && (nd == 4 || nd == 5));
  EMBER_CHECK_NOT_IMPLEMENTED(fits, "Only 2D, 3D, 4D, 5D padding with non-constant padding are "
                              "supported for now");
  if (mode == "circular") return pad_circular(self, pad);
  const bool reflect = mode == "reflect";
  if (n == 2) return reflect ? reflection_pad1d(self, pad) : replication_pad1d(self, pad);
  if (n == 4) return reflect ? reflection_pad2d(self, pad) : replication_pad2d(self, pad);
  return reflect ? reflection_pad3d(self, pad) : replication_pad3d(self, pad);
}

}  // namespace

// ---- autograd ----
namespace {
using autograd::OpNode;
using autograd::tensor_list;

Tensor constant_pad_nd_autograd(const Tensor& self, const IntArrayRef& pad, const Scalar& value) {
  autograd::Recorder r("ConstantPadNdBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<constant_pad_nd_impl>(OpId::constant_pad_nd, self, pad, value); });
  if (!r) return out;
  r.values("pad", pad);
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    std::vector<int64_t> neg;
    for (int64_t p : n.value(0).to_int_list()) neg.push_back(-p);
    return tensor_list{constant_pad_nd(g[0], neg, 0)};
  });
}

// Forward and backward rules of the index-map pads: the forward's gradient is its backward op,
// the backward's gradient (w.r.t. grad_output) is the forward op, both linear.
template <auto Impl, OpId Id, auto Backward, const char* Name>
Tensor map_pad_autograd(const Tensor& self, const IntArrayRef& padding) {
  autograd::Recorder r(Name, self);
  Tensor out = r.forward([&] { return dispatch::call<Impl>(Id, self, padding); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self");
  r.values("padding", padding);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{Backward(g[0], n.saved(self_), n.value(0).to_int_list())};
  });
}
template <auto Impl, OpId Id, auto Forward, const char* Name>
Tensor map_pad_backward_autograd(const Tensor& grad_output, const Tensor& self, const IntArrayRef& padding) {
  autograd::Recorder r(Name, grad_output, self);
  Tensor out = r.forward([&] { return dispatch::call<Impl>(Id, grad_output, self, padding); });
  if (!r) return out;
  r.values("padding", padding);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{n.needs(0) ? Forward(g[0], n.value(0).to_int_list()) : Tensor(), Tensor()};
  });
}

constexpr char kRefl1[] = "ReflectionPad1DBackward0", kRefl2[] = "ReflectionPad2DBackward0";
constexpr char kRepl1[] = "ReplicationPad1DBackward0", kRepl2[] = "ReplicationPad2DBackward0";
constexpr char kRefl1b[] = "ReflectionPad1DBackwardBackward0", kRefl2b[] = "ReflectionPad2DBackwardBackward0";
constexpr char kRepl1b[] = "ReplicationPad1DBackwardBackward0", kRepl2b[] = "ReplicationPad2DBackwardBackward0";
Tensor refl1_bw(const Tensor& g, const Tensor& s, IntArrayRef p) { return reflection_pad1d_backward(g, s, p); }
Tensor refl2_bw(const Tensor& g, const Tensor& s, IntArrayRef p) { return reflection_pad2d_backward(g, s, p); }
Tensor repl1_bw(const Tensor& g, const Tensor& s, IntArrayRef p) { return replication_pad1d_backward(g, s, p); }
Tensor repl2_bw(const Tensor& g, const Tensor& s, IntArrayRef p) { return replication_pad2d_backward(g, s, p); }
Tensor refl1_fw(const Tensor& g, IntArrayRef p) { return reflection_pad1d(g, p); }
Tensor refl2_fw(const Tensor& g, IntArrayRef p) { return reflection_pad2d(g, p); }
Tensor repl1_fw(const Tensor& g, IntArrayRef p) { return replication_pad1d(g, p); }
Tensor repl2_fw(const Tensor& g, IntArrayRef p) { return replication_pad2d(g, p); }
}  // namespace

EMBER_REGISTER_AUTOGRAD(constant_pad_nd, &constant_pad_nd_autograd);
EMBER_REGISTER_AUTOGRAD(reflection_pad1d, (&map_pad_autograd<reflection_pad1d_impl, OpId::reflection_pad1d, refl1_bw, kRefl1>));
EMBER_REGISTER_AUTOGRAD(reflection_pad2d, (&map_pad_autograd<reflection_pad2d_impl, OpId::reflection_pad2d, refl2_bw, kRefl2>));
EMBER_REGISTER_AUTOGRAD(replication_pad1d, (&map_pad_autograd<replication_pad1d_impl, OpId::replication_pad1d, repl1_bw, kRepl1>));
EMBER_REGISTER_AUTOGRAD(replication_pad2d, (&map_pad_autograd<replication_pad2d_impl, OpId::replication_pad2d, repl2_bw, kRepl2>));
EMBER_REGISTER_AUTOGRAD(reflection_pad1d_backward,
                        (&map_pad_backward_autograd<reflection_pad1d_backward_impl, OpId::reflection_pad1d_backward, refl1_fw, kRefl1b>));
EMBER_REGISTER_AUTOGRAD(reflection_pad2d_backward,
                        (&map_pad_backward_autograd<reflection_pad2d_backward_impl, OpId::reflection_pad2d_backward, refl2_fw, kRefl2b>));
EMBER_REGISTER_AUTOGRAD(replication_pad1d_backward,
                        (&map_pad_backward_autograd<replication_pad1d_backward_impl, OpId::replication_pad1d_backward, repl1_fw, kRepl1b>));
EMBER_REGISTER_AUTOGRAD(replication_pad2d_backward,
                        (&map_pad_backward_autograd<replication_pad2d_backward_impl, OpId::replication_pad2d_backward, repl2_fw, kRepl2b>));

Tensor pad(const Tensor& input, IntArrayRef pad, const std::string& mode, std::optional<double> value) {
  return dispatch::call<pad_impl>(OpId::pad, input, pad, mode, value);
}
Tensor constant_pad_nd(const Tensor& input, IntArrayRef pad, const Scalar& value) {
  return dispatch::call<constant_pad_nd_impl>(OpId::constant_pad_nd, input, pad, value);
}
#define EMBER_MAP_PAD(name)                                                                    \
  Tensor name(const Tensor& input, IntArrayRef padding) {                                      \
    return dispatch::call<name##_impl>(OpId::name, input, padding);                            \
  }                                                                                            \
  Tensor name##_backward(const Tensor& grad_output, const Tensor& input, IntArrayRef padding) { \
    return dispatch::call<name##_backward_impl>(OpId::name##_backward, grad_output, input, padding); \
  }                                                                                            \
  EMBER_REGISTER_OP(name, &name);                                                              \
  EMBER_REGISTER_OP(name##_backward, &name##_backward)
EMBER_MAP_PAD(reflection_pad1d);
EMBER_MAP_PAD(reflection_pad2d);
EMBER_MAP_PAD(replication_pad1d);
EMBER_MAP_PAD(replication_pad2d);
#undef EMBER_MAP_PAD

EMBER_REGISTER_OP(pad, &pad);
EMBER_REGISTER_OP(constant_pad_nd, &constant_pad_nd);

}  // namespace ember
