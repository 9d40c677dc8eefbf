// Resampling beyond upsample.cpp's two kernels: the `.vec` overloads of upsample_nearest2d /
// upsample_bilinear2d (PyTorch's output-size rule), F.interpolate for every mode (nearest,
// nearest-exact, linear, bilinear, bicubic, trilinear, area) on 3-d, 4-d and 5-d inputs, and
// grid_sampler_2d / grid_sampler_3d (5-d input: trilinear, nearest) / affine_grid_generator. All
// are Composites over primitives, so their gradients come from index_select, gather and the
// arithmetic ops.
//
// Note [Separable resampling]
// Linear, cubic and nearest resampling factor over the spatial dims: the 2-d / 3-d result is the
// 1-d rule applied along each dim in turn. resample_axis computes PyTorch's source indices and
// weights on the host (area_pixel_compute_source_index, nearest_idx, the A = -0.75 cubic
// coefficients, in float for float inputs and double for float64, as PyTorch's kernels) and
// applies them with index_select and a weighted sum. The picked pixels and weights are
// PyTorch's; the sums run in another order than its fused 2-d / 3-d loops, so results agree to
// rounding (nearest and nearest-exact exactly).
//
// Note [Anti-aliased resampling]
// F.interpolate(antialias=True) (aten::_upsample_bilinear2d_aa / _upsample_bicubic2d_aa) is
// PIL's resampling, as PyTorch computes it: along each axis, output o gathers the inputs whose
// centres lie within `support` of its centre scale * (o + 0.5), weighted by the triangle (bilinear)
// or Keys cubic with a = -0.5 (bicubic) filter stretched by the scale when downsampling, and the
// weights renormalised to sum to one. Taps and weights are PyTorch's (same expressions, same
// precision); the axes are resampled width first, as its separable kernel does, and an axis
// whose size does not change is left alone. Outputs near the edge have fewer taps than the
// widest one; resample_axis pads them with weight-0 taps, so an inf or nan within the padded
// reach of an edge output turns it into nan where PyTorch's loop never reads that input.
#include <cmath>

#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/grid_sample3d.h"
#include "ember/autograd/autograd.h"
#include "ember/grad_mode.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/linalg.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/pooling.h"
#include "upsample_checks.h"

namespace ember {

using dispatch::OpId;

namespace {

// ---- upsample .vec ----
std::vector<int64_t> vec_output_size(const Tensor& input, std::optional<IntArrayRef> output_size,
                                     const std::optional<std::vector<double>>& scale_factors) {
  EMBER_CHECK(output_size.has_value() != scale_factors.has_value(),
              "Must specify exactly one of output_size and scale_factors");
  const int64_t spatial = input.dim() - 2;
  if (output_size) {
    EMBER_CHECK(static_cast<int64_t>(output_size->size()) == spatial, "It is expected output_size equals to ",
                spatial, ", but got size ", output_size->size());
    return output_size->vec();
  }
  EMBER_CHECK(static_cast<int64_t>(scale_factors->size()) == spatial, "It is expected scale_factors equals to ",
              spatial, ", but got size ", scale_factors->size());
  std::vector<int64_t> out;
  for (int64_t i = 0; i < spatial; ++i) {
    out.push_back(static_cast<int64_t>(
        std::floor(static_cast<double>(input.size(2 + i)) * (*scale_factors)[static_cast<size_t>(i)])));
  }
  return out;
}

std::optional<double> scale_at(const std::optional<std::vector<double>>& s, size_t i) {
  if (!s) return std::nullopt;
  return (*s)[i];
}

Tensor upsample_nearest2d_vec_impl(const Tensor& input, std::optional<IntArrayRef> output_size,
                                   std::optional<std::vector<double>> scale_factors) {
  EMBER_CHECK(input.dim() == 4, "Expected 4D input tensor for upsample_nearest2d, but got ",
              input.dim(), "D");
  const auto osize = vec_output_size(input, output_size, scale_factors);
  return upsample_nearest2d(input, osize, scale_at(scale_factors, 0), scale_at(scale_factors, 1));
}

Tensor upsample_bilinear2d_vec_impl(const Tensor& input, std::optional<IntArrayRef> output_size,
                                    bool align_corners, std::optional<std::vector<double>> scale_factors) {
  EMBER_CHECK(input.dim() == 4, "Expected 4D input tensor for upsample_bilinear2d, but got ",
              input.dim(), "D");
  const auto osize = vec_output_size(input, output_size, scale_factors);
  return upsample_bilinear2d(input, osize, align_corners, scale_at(scale_factors, 0),
                             scale_at(scale_factors, 1));
}

// ---- separable resampling (Note [Separable resampling]) ----
enum class Axis { Nearest, NearestExact, Linear, Cubic, LinearAA, CubicAA };

struct AxisTaps {
  std::vector<std::vector<int64_t>> idx;
  std::vector<std::vector<double>> w;  // empty: one tap of weight 1
};

template <class A>
A scale_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0 ? static_cast<A>(1.0 / *scale) : static_cast<A>(in) / static_cast<A>(out);
}

template <class A>
A area_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<A>(in - 1) / static_cast<A>(out - 1) : A(0);
  return scale_value<A>(scale, in, out);
}

template <class A>
A source_index(A scale, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<A>(o);
  const A src = scale * (static_cast<A>(o) + A(0.5)) - A(0.5);
  return (!cubic && src < 0) ? A(0) : src;
}

template <class A>
AxisTaps axis_taps(Axis mode, int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  AxisTaps t;
  const auto n = static_cast<size_t>(out);
  if (mode == Axis::Nearest || mode == Axis::NearestExact) {
    t.idx.assign(1, std::vector<int64_t>(n));
    const float s = scale_value<float>(scale, in, out);
    const float off = mode == Axis::NearestExact ? 0.5f : 0.0f;
    for (int64_t o = 0; o < out; ++o) {
      t.idx[0][static_cast<size_t>(o)] =
          std::min(static_cast<int64_t>(std::floor((static_cast<float>(o) + off) * s)), in - 1);
    }
    return t;
  }
  const A s = area_scale<A>(in, out, align_corners, scale);
  if (mode == Axis::Linear) {
    t.idx.assign(2, std::vector<int64_t>(n));
    t.w.assign(2, std::vector<double>(n));
    for (int64_t o = 0; o < out; ++o) {
      const A real = source_index<A>(s, o, align_corners, false);
      const int64_t i0 = static_cast<int64_t>(real);
      const A l1 = real - static_cast<A>(i0);
      const auto k = static_cast<size_t>(o);
      t.idx[0][k] = i0;
      t.idx[1][k] = i0 < in - 1 ? i0 + 1 : i0;
      t.w[0][k] = static_cast<double>(A(1) - l1);
      t.w[1][k] = static_cast<double>(l1);
    }
    return t;
  }
  // Cubic: taps at floor(real) - 1 .. + 2, clamped to the input (upsample_get_value_bounded).
  t.idx.assign(4, std::vector<int64_t>(n));
  t.w.assign(4, std::vector<double>(n));
  const A a = A(-0.75);
  auto conv1 = [a](A x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto conv2 = [a](A x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  for (int64_t o = 0; o < out; ++o) {
    const A real = source_index<A>(s, o, align_corners, true);
    const A f = std::floor(real);
    const A tt = real - f;
    const int64_t i = static_cast<int64_t>(f);
    const A c[4] = {conv2(tt + 1), conv1(tt), conv1(A(1) - tt), conv2(A(2) - tt)};
    const auto k = static_cast<size_t>(o);
    for (size_t j = 0; j < 4; ++j) {
      t.idx[j][k] = std::clamp<int64_t>(i - 1 + static_cast<int64_t>(j), 0, in - 1);
      t.w[j][k] = static_cast<double>(c[j]);
    }
  }
  return t;
}

// PIL's filters as PyTorch writes them: the triangle in A, Keys' cubic (a = -0.5) partly in
// double (its constants are double literals).
template <class A>
A aa_filter(A x, bool cubic) {
  if (x < 0) x = -x;
  if (!cubic) return x < 1 ? static_cast<A>(1.0 - static_cast<double>(x)) : A(0);
  const double a = -0.5, xd = static_cast<double>(x);
  if (x < 1) return static_cast<A>(((a + 2.0) * xd - (a + 3.0)) * xd * xd + 1);
  if (x < 2) return static_cast<A>(static_cast<double>(((x - 5) * x + 8) * x - 4) * a);
  return A(0);
}

// Note [Anti-aliased resampling]: the taps of one axis, padded to the widest output's count.
template <class A>
AxisTaps axis_taps_aa(bool cubic, int64_t in, int64_t out, bool align_corners,
                      std::optional<double> scale) {
  const A s = area_scale<A>(in, out, align_corners, scale);
  const double half_width = cubic ? 2.0 : 1.0;  // interp_size * 0.5
  const A support = s >= A(1) ? static_cast<A>(half_width * static_cast<double>(s)) : static_cast<A>(half_width);
  const A invscale = s >= A(1) ? static_cast<A>(1.0 / static_cast<double>(s)) : A(1);
  const auto max_taps = static_cast<size_t>(std::ceil(static_cast<double>(support)) * 2 + 1);
  AxisTaps t;
  t.idx.assign(max_taps, std::vector<int64_t>(static_cast<size_t>(out)));
  t.w.assign(max_taps, std::vector<double>(static_cast<size_t>(out), 0.0));
  size_t used = 1;
  std::vector<A> w(max_taps);
  for (int64_t o = 0; o < out; ++o) {
    const auto k = static_cast<size_t>(o);
    const A center = static_cast<A>(static_cast<double>(s) * (static_cast<double>(o) + 0.5));
    const int64_t xmin = std::max<int64_t>(
        static_cast<int64_t>(static_cast<double>(center) - static_cast<double>(support) + 0.5), 0);
    const int64_t xsize =
        std::min<int64_t>(static_cast<int64_t>(static_cast<double>(center) + static_cast<double>(support) + 0.5), in) -
        xmin;
    A total = 0;
    for (int64_t j = 0; j < xsize; ++j) {
      const A dist = static_cast<A>(j + xmin) - center;
      w[static_cast<size_t>(j)] = aa_filter<A>(
          static_cast<A>((static_cast<double>(dist) + 0.5) * static_cast<double>(invscale)), cubic);
      total += w[static_cast<size_t>(j)];
    }
    for (size_t j = 0; j < max_taps; ++j) {
      const bool real = static_cast<int64_t>(j) < xsize;
      t.idx[j][k] = real ? xmin + static_cast<int64_t>(j) : std::min(xmin, in - 1);
      t.w[j][k] = real ? static_cast<double>(total != 0 ? static_cast<A>(w[j] / total) : w[j]) : 0.0;
    }
    used = std::max(used, static_cast<size_t>(std::max<int64_t>(xsize, 1)));
  }
  t.idx.resize(used);
  t.w.resize(used);
  return t;
}

Tensor resample_axis(const Tensor& x, int64_t dim, int64_t out, Axis mode, bool align_corners,
                     std::optional<double> scale) {
  const int64_t in = x.size(dim);
  const bool f64 = x.dtype() == kFloat64;
  const bool aa = mode == Axis::LinearAA || mode == Axis::CubicAA;
  const bool cubic = mode == Axis::CubicAA;
  const AxisTaps t = aa ? (f64 ? axis_taps_aa<double>(cubic, in, out, align_corners, scale)
                               : axis_taps_aa<float>(cubic, in, out, align_corners, scale))
                        : (f64 ? axis_taps<double>(mode, in, out, align_corners, scale)
                               : axis_taps<float>(mode, in, out, align_corners, scale));
  const TensorOptions iopt = TensorOptions(kInt64).device(x.device());
  auto index = [&](size_t j) { return tensor(t.idx[j], iopt); };
  if (t.w.empty()) return x.index_select(dim, index(0));
  std::vector<int64_t> wshape(static_cast<size_t>(x.dim()), 1);
  wshape[static_cast<size_t>(dim)] = out;
  Tensor acc;
  for (size_t j = 0; j < t.idx.size(); ++j) {
    const Tensor w = tensor(t.w[j], TensorOptions(kFloat64).device(x.device()))
                         .to(x.dtype())
                         .view(wshape);
    const Tensor term = x.index_select(dim, index(j)) * w;
    acc = acc.defined() ? acc + term : term;
  }
  return acc;
}

// ---- anti-aliased upsampling (Note [Anti-aliased resampling]) ----
Tensor upsample_aa(const Tensor& input, IntArrayRef output_size, bool align_corners,
                   std::optional<double> scales_h, std::optional<double> scales_w, bool cubic) {
  const auto sizes = detail::upsample_sizes(input.sizes(), output_size);
  detail::check_upsample_nonempty_4d(input);
  EMBER_CHECK(input.dtype() == kFloat32 || input.dtype() == kFloat64,
              "\"compute_indices_weights_aa\" not implemented for '", scalar_type_name(input.dtype()), "'");
  if (input.is_meta() || input.numel() == 0) {
    return empty(sizes, TensorOptions(input.dtype()).device(input.device()));
  }
  const Axis mode = cubic ? Axis::CubicAA : Axis::LinearAA;
  Tensor out = input;
  if (sizes[3] != input.size(3)) out = resample_axis(out, 3, sizes[3], mode, align_corners, scales_w);
  if (sizes[2] != input.size(2)) out = resample_axis(out, 2, sizes[2], mode, align_corners, scales_h);
  // An unchanged shape still returns a new tensor, as PyTorch's op does.
  return out.is_same(input) ? input.clone() : out;
}

Tensor upsample_bilinear2d_aa_impl(const Tensor& input, IntArrayRef output_size, bool align_corners,
                                   std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample_aa(input, output_size, align_corners, scales_h, scales_w, false);
}
Tensor upsample_bicubic2d_aa_impl(const Tensor& input, IntArrayRef output_size, bool align_corners,
                                  std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample_aa(input, output_size, align_corners, scales_h, scales_w, true);
}
Tensor upsample_bilinear2d_aa_vec_impl(const Tensor& input, std::optional<IntArrayRef> output_size,
                                       bool align_corners, std::optional<std::vector<double>> scale_factors) {
  const auto osize = vec_output_size(input, output_size, scale_factors);
  return _upsample_bilinear2d_aa(input, osize, align_corners, scale_at(scale_factors, 0),
                                 scale_at(scale_factors, 1));
}
Tensor upsample_bicubic2d_aa_vec_impl(const Tensor& input, std::optional<IntArrayRef> output_size,
                                      bool align_corners, std::optional<std::vector<double>> scale_factors) {
  const auto osize = vec_output_size(input, output_size, scale_factors);
  return _upsample_bicubic2d_aa(input, osize, align_corners, scale_at(scale_factors, 0),
                                scale_at(scale_factors, 1));
}

// ---- grid sampling ----
// PyTorch's grid_sampler_unnormalize and reflect_coordinates, as tensor ops on the coordinates.
Tensor unnormalize(const Tensor& c, int64_t size, bool align_corners) {
  if (align_corners) return (c + 1) / 2 * static_cast<double>(size - 1);
  return ((c + 1) * static_cast<double>(size) - 1) / 2;
}

Tensor reflect(const Tensor& c, double twice_low, double twice_high) {
  if (twice_low == twice_high) return zeros_like(c);
  const double lo = twice_low / 2, span = (twice_high - twice_low) / 2;
  const Tensor in = abs(c - lo);
  const Tensor r = remainder(in, wrapped_scalar_tensor(2 * span));  // flips even: r < span
  return where(r < span, r + lo, (2 * span - r) + lo);
}

Tensor clip(const Tensor& c, int64_t size) {
  return clamp(c, Scalar(0.0), Scalar(static_cast<double>(size - 1)));
}

Tensor source_coords(const Tensor& c, int64_t size, int64_t padding_mode, bool align_corners) {
  Tensor x = unnormalize(c, size, align_corners);
  if (padding_mode == 1) return clip(x, size);
  if (padding_mode == 2) {
    x = align_corners ? reflect(x, 0, 2.0 * static_cast<double>(size - 1))
                      : reflect(x, -1, 2.0 * static_cast<double>(size) - 1);
    return clip(x, size);
  }
  return x;
}

Tensor floor_of(const Tensor& x) { return (x - remainder(x, wrapped_scalar_tensor(1.0))).detach(); }

// Values of input [N, C, H, W] at integer positions (iy, ix) [N, Ho, Wo] (float tensors holding
// integers): zero outside the image.
Tensor gather_at(const Tensor& input, const Tensor& iy, const Tensor& ix) {
  const int64_t N = input.size(0), C = input.size(1), H = input.size(2), W = input.size(3);
  const Tensor inside = logical_and(logical_and(ix >= 0, ix <= static_cast<double>(W - 1)),
                                    logical_and(iy >= 0, iy <= static_cast<double>(H - 1)));
  const Tensor flat = (clip(iy, H) * static_cast<double>(W) + clip(ix, W)).to(kInt64);
  const int64_t L = flat.size(1) * flat.size(2);
  const Tensor idx = flat.reshape({N, 1, L}).expand({N, C, L});
  const Tensor v = input.reshape({N, C, H * W}).gather(2, idx).view({N, C, flat.size(1), flat.size(2)});
  return v * inside.unsqueeze(1).to(input.dtype());
}

Tensor round_half_even(const Tensor& x) {
  const Tensor f = floor_of(x);
  const Tensor d = x.detach() - f;
  const Tensor odd = remainder(f, wrapped_scalar_tensor(2.0));
  return where(d > 0.5, f + 1, where(d < 0.5, f, f + odd));
}

Tensor grid_sampler_2d_impl(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                            int64_t padding_mode, bool align_corners) {
  EMBER_CHECK(input.dim() == 4 && grid.dim() == 4, "grid_sampler(): expected 4D input and grid with ",
              "same number of dimensions, but got input with sizes ", input.sizes(),
              " and grid with sizes ", grid.sizes());
  EMBER_CHECK(input.size(0) == grid.size(0), "grid_sampler(): expected grid and input to have same ",
              "batch size, but got input with sizes ", input.sizes(), " and grid with sizes ", grid.sizes());
  EMBER_CHECK(grid.size(-1) == 2, "grid_sampler(): expected grid to have size 2 in last dimension, ",
              "but got grid with sizes ", grid.sizes());
  EMBER_CHECK(input.dtype() == grid.dtype(), "grid_sampler(): expected input and grid to have same ",
              "dtype, but input has ", scalar_type_name(input.dtype()), " and grid has ",
              scalar_type_name(grid.dtype()));
  for (int64_t i = 2; i < 4; ++i) {
    EMBER_CHECK(input.size(i) > 0, "grid_sampler(): expected input to have non-empty spatial ",
                "dimensions, but input has sizes ", input.sizes(), " with dimension ", i, " being empty");
  }
  EMBER_CHECK(interpolation_mode >= 0 && interpolation_mode <= 2,
              "grid_sampler(): unknown interpolation_mode ", interpolation_mode);
  EMBER_CHECK(padding_mode >= 0 && padding_mode <= 2, "grid_sampler(): unknown padding_mode ", padding_mode);
  EMBER_CHECK(is_floating(input.dtype()), "\"grid_sampler_2d_cpu\" not implemented for '",
              scalar_type_name(input.dtype()), "'");
  const int64_t H = input.size(2), W = input.size(3);
  const Tensor gx = grid.select(-1, 0), gy = grid.select(-1, 1);
  if (interpolation_mode == 2) {
    // Bicubic: 4x4 taps around floor(x), each tap through the padding rule (PyTorch's
    // get_value_bounded); coefficients of the A = -0.75 cubic convolution.
    const Tensor x = unnormalize(gx, W, align_corners), y = unnormalize(gy, H, align_corners);
    const Tensor x0 = floor_of(x), y0 = floor_of(y);
    const Tensor tx = x - x0, ty = y - y0;
    const double a = -0.75;
    auto conv1 = [a](const Tensor& t) { return ((t * (a + 2) - (a + 3)) * t) * t + 1; };
    auto conv2 = [a](const Tensor& t) { return ((t * a - 5 * a) * t + 8 * a) * t - 4 * a; };
    const Tensor cx[4] = {conv2(tx + 1), conv1(tx), conv1(1 - tx), conv2(2 - tx)};
    const Tensor cy[4] = {conv2(ty + 1), conv1(ty), conv1(1 - ty), conv2(2 - ty)};
    auto bounded = [&](const Tensor& c, int64_t size) {
      if (padding_mode == 0) return c;
      Tensor r = c;
      if (padding_mode == 2) {
        r = align_corners ? reflect(r, 0, 2.0 * static_cast<double>(size - 1))
                          : reflect(r, -1, 2.0 * static_cast<double>(size) - 1);
      }
      return clip(r, size).detach();
    };
    Tensor acc;
    for (int i = 0; i < 4; ++i) {
      const Tensor iy = bounded(y0 - 1 + i, H);
      Tensor row;
      for (int j = 0; j < 4; ++j) {
        const Tensor ix = bounded(x0 - 1 + j, W);
        const Tensor term = gather_at(input, iy, ix) * cx[j].unsqueeze(1);
        row = row.defined() ? row + term : term;
      }
      const Tensor t = row * cy[i].unsqueeze(1);
      acc = acc.defined() ? acc + t : t;
    }
    return acc;
  }
  const Tensor x = source_coords(gx, W, padding_mode, align_corners);
  const Tensor y = source_coords(gy, H, padding_mode, align_corners);
  if (interpolation_mode == 1) return gather_at(input, round_half_even(y), round_half_even(x));
  const Tensor x0 = floor_of(x), y0 = floor_of(y);
  const Tensor wx1 = x - x0, wy1 = y - y0, wx0 = 1 - wx1, wy0 = 1 - wy1;
  return gather_at(input, y0, x0) * (wy0 * wx0).unsqueeze(1) +
         gather_at(input, y0, x0 + 1) * (wy0 * wx1).unsqueeze(1) +
         gather_at(input, y0 + 1, x0) * (wy1 * wx0).unsqueeze(1) +
         gather_at(input, y0 + 1, x0 + 1) * (wy1 * wx1).unsqueeze(1);
}

// Values of input [N, C, D, H, W] at integer positions (iz, iy, ix) [N, Do, Ho, Wo]: zero outside.
Tensor gather_at3(const Tensor& input, const Tensor& iz, const Tensor& iy, const Tensor& ix) {
  const int64_t N = input.size(0), C = input.size(1), D = input.size(2), H = input.size(3), W = input.size(4);
  const Tensor inside = logical_and(
      logical_and(logical_and(ix >= 0, ix <= static_cast<double>(W - 1)),
                  logical_and(iy >= 0, iy <= static_cast<double>(H - 1))),
      logical_and(iz >= 0, iz <= static_cast<double>(D - 1)));
  const Tensor flat = ((clip(iz, D) * static_cast<double>(H) + clip(iy, H)) * static_cast<double>(W) + clip(ix, W))
                          .to(kInt64);
  const int64_t L = flat.size(1) * flat.size(2) * flat.size(3);
  const Tensor idx = flat.reshape({N, 1, L}).expand({N, C, L});
  const Tensor v = input.reshape({N, C, D * H * W}).gather(2, idx).view(
      {N, C, flat.size(1), flat.size(2), flat.size(3)});
  return v * inside.unsqueeze(1).to(input.dtype());
}

// The volumetric sampler: trilinear (mode 0) or nearest (mode 1) over the 8 (1) neighbours.
Tensor grid_sampler_3d_impl(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                            int64_t padding_mode, bool align_corners) {
  EMBER_CHECK(input.dim() == 5 && grid.dim() == 5, "grid_sampler(): expected 5D input and grid with ",
              "same number of dimensions, but got input with sizes ", input.sizes(),
              " and grid with sizes ", grid.sizes());
  EMBER_CHECK(input.size(0) == grid.size(0), "grid_sampler(): expected grid and input to have same ",
              "batch size, but got input with sizes ", input.sizes(), " and grid with sizes ", grid.sizes());
  EMBER_CHECK(grid.size(-1) == 3, "grid_sampler(): expected grid to have size 3 in last dimension, ",
              "but got grid with sizes ", grid.sizes());
  EMBER_CHECK(input.dtype() == grid.dtype(), "grid_sampler(): expected input and grid to have same ",
              "dtype, but input has ", scalar_type_name(input.dtype()), " and grid has ",
              scalar_type_name(grid.dtype()));
  for (int64_t i = 2; i < 5; ++i) {
    EMBER_CHECK(input.size(i) > 0, "grid_sampler(): expected input to have non-empty spatial ",
                "dimensions, but input has sizes ", input.sizes(), " with dimension ", i, " being empty");
  }
  EMBER_CHECK(interpolation_mode != 2, "grid_sampler(): bicubic interpolation only supports 4D input");
  EMBER_CHECK(interpolation_mode >= 0 && interpolation_mode <= 1,
              "grid_sampler(): unknown interpolation_mode ", interpolation_mode);
  EMBER_CHECK(padding_mode >= 0 && padding_mode <= 2, "grid_sampler(): unknown padding_mode ", padding_mode);
  EMBER_CHECK(is_floating(input.dtype()), "\"grid_sampler_3d_cpu\" not implemented for '",
              scalar_type_name(input.dtype()), "'");
  const int64_t D = input.size(2), H = input.size(3), W = input.size(4);
  const Tensor x = source_coords(grid.select(-1, 0), W, padding_mode, align_corners);
  const Tensor y = source_coords(grid.select(-1, 1), H, padding_mode, align_corners);
  const Tensor z = source_coords(grid.select(-1, 2), D, padding_mode, align_corners);
  if (interpolation_mode == 1) {
    return gather_at3(input, round_half_even(z), round_half_even(y), round_half_even(x));
  }
  const Tensor x0 = floor_of(x), y0 = floor_of(y), z0 = floor_of(z);
  const Tensor wx[2] = {1 - (x - x0), x - x0}, wy[2] = {1 - (y - y0), y - y0}, wz[2] = {1 - (z - z0), z - z0};
  Tensor acc;
  for (int c = 0; c < 8; ++c) {
    const int dz = c >> 2, dy = (c >> 1) & 1, dx = c & 1;
    const Tensor term = gather_at3(input, z0 + dz, y0 + dy, x0 + dx) * (wz[dz] * wy[dy] * wx[dx]).unsqueeze(1);
    acc = acc.defined() ? acc + term : term;
  }
  return acc;
}

// Note [grid_sampler_3d's backward]: the sampler's forward is written with differentiable ops
// (gathers and weights), and its backward row differentiates exactly that graph: it re-runs the
// forward on detached copies with autograd on and takes their gradients. The numbers are those of
// the gathers' and weights' own rules (ember's gradients before the row existed).
std::tuple<Tensor, Tensor> grid_sampler_3d_backward_impl(const Tensor& grad_output, const Tensor& input,
                                                         const Tensor& grid, int64_t interpolation_mode,
                                                         int64_t padding_mode, bool align_corners,
                                                         IntArrayRef output_mask) {
  EMBER_CHECK(output_mask.size() == 2, "grid_sampler_3d_backward(): expected output_mask of 2 values, but got ",
              output_mask.size());
  const bool want_input = output_mask[0] != 0, want_grid = output_mask[1] != 0;
  if (input.is_meta() || grid.is_meta() || grad_output.is_meta()) {
    return {want_input ? empty_like(input) : Tensor(), want_grid ? empty_like(grid) : Tensor()};
  }
  // autograd is back on for the inner graph (the caller may run below it)
  dispatch::LocalState& st = dispatch::local_state();
  const KeySet prev = st.excluded;
  st.excluded = prev - KeySet(DispatchKey::Autograd);
  struct Restore {
    dispatch::LocalState& st;
    KeySet prev;
    ~Restore() { st.excluded = prev; }
  } restore{st, prev};
  AutoGradMode on(true);
  const Tensor x = input.detach().requires_grad_(want_input);
  const Tensor g = grid.detach().requires_grad_(want_grid);
  const Tensor out = grid_sampler_3d_impl(x, g, interpolation_mode, padding_mode, align_corners);
  autograd::tensor_list wrt;
  if (want_input) wrt.push_back(x);
  if (want_grid) wrt.push_back(g);
  if (wrt.empty()) return {Tensor(), Tensor()};
  const autograd::tensor_list grads = autograd::grad({out}, wrt, {grad_output.detach()}, false, false, true);
  Tensor gi = want_input ? grads[0] : Tensor(), gg = want_grid ? grads[want_input ? 1 : 0] : Tensor();
  if (want_input && !gi.defined()) gi = zeros_like(input);
  if (want_grid && !gg.defined()) gg = zeros_like(grid);
  return {gi, gg};
}

Tensor grid_sampler_impl(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                         int64_t padding_mode, bool align_corners) {
  if (input.dim() == 5) return grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners);
  return grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners);
}

// PyTorch's affine_grid_generator: base grid [.., D?, H, W, 1 + spatial] times theta^T.
Tensor linspace_from_neg_one(const Tensor& theta, int64_t steps, bool align_corners) {
  if (steps <= 1) return zeros({steps}, TensorOptions(theta.dtype()).device(theta.device()));
  Tensor r = linspace(-1, 1, steps, TensorOptions(theta.dtype()).device(theta.device()));
  if (!align_corners) r = r * (static_cast<double>(steps - 1) / static_cast<double>(steps));
  return r;
}

Tensor affine_grid_generator_impl(const Tensor& theta, IntArrayRef size, bool align_corners) {
  EMBER_CHECK(size.size() == 4 || size.size() == 5, "AffineGridGenerator needs 4d (spatial) or 5d ",
              "(volumetric) inputs.");
  const TensorOptions opt = TensorOptions(theta.dtype()).device(theta.device());
  const int64_t N = size[0];
  if (size.size() == 4) {
    const int64_t H = size[2], W = size[3];
    Tensor base = empty({1, H, W, 3}, opt);
    base.select(-1, 0).copy_(linspace_from_neg_one(theta, W, align_corners));
    base.select(-1, 1).copy_(linspace_from_neg_one(theta, H, align_corners).unsqueeze(-1));
    base.select(-1, 2).fill_(1);
    return matmul(base.view({1, H * W, 3}), theta.transpose(1, 2)).view({N, H, W, 2});
  }
  const int64_t D = size[2], H = size[3], W = size[4];
  Tensor base = empty({1, D, H, W, 4}, opt);
  base.select(-1, 0).copy_(linspace_from_neg_one(theta, W, align_corners));
  base.select(-1, 1).copy_(linspace_from_neg_one(theta, H, align_corners).unsqueeze(-1));
  base.select(-1, 2).copy_(linspace_from_neg_one(theta, D, align_corners).unsqueeze(-1).unsqueeze(-1));
  base.select(-1, 3).fill_(1);
  return matmul(base.view({1, D * H * W, 4}), theta.transpose(1, 2)).view({N, D, H, W, 3});
}

}  // namespace

Tensor upsample_nearest2d(const Tensor& input, std::optional<IntArrayRef> output_size,
                          std::optional<std::vector<double>> scale_factors) {
  return dispatch::call<upsample_nearest2d_vec_impl>(OpId::upsample_nearest2d_vec, input,
                                                     output_size, scale_factors);
}
Tensor upsample_bilinear2d(const Tensor& input, std::optional<IntArrayRef> output_size,
                           bool align_corners, std::optional<std::vector<double>> scale_factors) {
  return dispatch::call<upsample_bilinear2d_vec_impl>(OpId::upsample_bilinear2d_vec, input,
                                                      output_size, align_corners, scale_factors);
}
Tensor _upsample_bilinear2d_aa(const Tensor& input, IntArrayRef output_size, bool align_corners,
                               std::optional<double> scales_h, std::optional<double> scales_w) {
  return dispatch::call<upsample_bilinear2d_aa_impl>(OpId::_upsample_bilinear2d_aa, input, output_size,
                                                     align_corners, scales_h, scales_w);
}
Tensor _upsample_bicubic2d_aa(const Tensor& input, IntArrayRef output_size, bool align_corners,
                              std::optional<double> scales_h, std::optional<double> scales_w) {
  return dispatch::call<upsample_bicubic2d_aa_impl>(OpId::_upsample_bicubic2d_aa, input, output_size,
                                                    align_corners, scales_h, scales_w);
}
Tensor _upsample_bilinear2d_aa(const Tensor& input, std::optional<IntArrayRef> output_size,
                               bool align_corners, std::optional<std::vector<double>> scale_factors) {
  return dispatch::call<upsample_bilinear2d_aa_vec_impl>(OpId::_upsample_bilinear2d_aa_vec, input,
                                                         output_size, align_corners, scale_factors);
}
Tensor _upsample_bicubic2d_aa(const Tensor& input, std::optional<IntArrayRef> output_size,
                              bool align_corners, std::optional<std::vector<double>> scale_factors) {
  return dispatch::call<upsample_bicubic2d_aa_vec_impl>(OpId::_upsample_bicubic2d_aa_vec, input,
                                                        output_size, align_corners, scale_factors);
}
Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                    int64_t padding_mode, bool align_corners) {
  return dispatch::call<grid_sampler_impl>(OpId::grid_sampler, input, grid, interpolation_mode,
                                           padding_mode, align_corners);
}
Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                       int64_t padding_mode, bool align_corners) {
  return dispatch::call<grid_sampler_2d_impl>(OpId::grid_sampler_2d, input, grid,
                                              interpolation_mode, padding_mode, align_corners);
}
Tensor grid_sampler_3d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                       int64_t padding_mode, bool align_corners) {
  return dispatch::call<grid_sampler_3d_impl>(OpId::grid_sampler_3d, input, grid, interpolation_mode, padding_mode,
                                              align_corners);
}
std::tuple<Tensor, Tensor> grid_sampler_3d_backward(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                                    int64_t interpolation_mode, int64_t padding_mode,
                                                    bool align_corners, IntArrayRef output_mask) {
  return dispatch::call<grid_sampler_3d_backward_impl>(OpId::grid_sampler_3d_backward, grad_output, input, grid,
                                                       interpolation_mode, padding_mode, align_corners, output_mask);
}
Tensor affine_grid_generator(const Tensor& theta, IntArrayRef size, bool align_corners) {
  return dispatch::call<affine_grid_generator_impl>(OpId::affine_grid_generator, theta, size,
                                                    align_corners);
}

namespace {
Tensor upsample_nearest2d_vec_op(const Tensor& input, std::optional<IntArrayRef> output_size,
                                 std::optional<std::vector<double>> scale_factors) {
  return upsample_nearest2d(input, output_size, std::move(scale_factors));
}
Tensor upsample_bilinear2d_vec_op(const Tensor& input, std::optional<IntArrayRef> output_size,
                                  bool align_corners, std::optional<std::vector<double>> scale_factors) {
  return upsample_bilinear2d(input, output_size, align_corners, std::move(scale_factors));
}
}  // namespace

EMBER_REGISTER_OP(upsample_nearest2d_vec, &upsample_nearest2d_vec_op);
EMBER_REGISTER_OP(upsample_bilinear2d_vec, &upsample_bilinear2d_vec_op);
EMBER_REGISTER_OP(_upsample_bilinear2d_aa, &upsample_bilinear2d_aa_impl);
EMBER_REGISTER_OP(_upsample_bicubic2d_aa, &upsample_bicubic2d_aa_impl);
EMBER_REGISTER_OP(_upsample_bilinear2d_aa_vec, &upsample_bilinear2d_aa_vec_impl);
EMBER_REGISTER_OP(_upsample_bicubic2d_aa_vec, &upsample_bicubic2d_aa_vec_impl);
EMBER_REGISTER_OP(grid_sampler, &grid_sampler);
EMBER_REGISTER_OP(grid_sampler_2d, &grid_sampler_2d);
EMBER_REGISTER_OP(affine_grid_generator, &affine_grid_generator);

// ---- F.interpolate (every mode) ----
Tensor interpolate(const Tensor& input, std::optional<std::vector<int64_t>> size,
                   std::optional<std::vector<double>> scale_factor, const std::string& mode,
                   std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor,
                   bool antialias) {
  const bool interpolating = mode == "linear" || mode == "bilinear" || mode == "bicubic" || mode == "trilinear";
  if (!interpolating) {
    EMBER_CHECK_VALUE(!align_corners, "align_corners option can only be set with the interpolating ",
                      "modes: linear | bilinear | bicubic | trilinear");
  }
  const bool ac = align_corners.value_or(false);
  const int64_t dim = input.dim() - 2;
  std::vector<int64_t> spatial;
  for (int64_t i = 2; i < input.dim(); ++i) spatial.push_back(input.size(i));
  EMBER_CHECK_VALUE(!(size && scale_factor), "only one of size or scale_factor should be defined");
  std::vector<int64_t> out_size;
  std::vector<std::optional<double>> scales(static_cast<size_t>(std::max<int64_t>(dim, 0)));
  if (size) {
    std::vector<int64_t> s = *size;
    if (s.size() == 1 && dim > 1) s.assign(static_cast<size_t>(dim), s[0]);
    EMBER_CHECK_VALUE(static_cast<int64_t>(s.size()) == dim, "Input and output must have the same number ",
                      "of spatial dimensions, but got input with spatial dimensions of ", IntArrayRef(spatial),
                      " and output size of ", IntArrayRef(*size), ". Please provide input tensor in (N, C, ",
                      "d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.");
    EMBER_CHECK_VALUE(!recompute_scale_factor.value_or(false),
                      "recompute_scale_factor is not meaningful with an explicit size.");
    out_size = s;
  } else {
    EMBER_CHECK_VALUE(scale_factor.has_value(), "either size or scale_factor should be defined");
    std::vector<double> f = *scale_factor;
    if (f.size() == 1 && dim > 1) f.assign(static_cast<size_t>(dim), f[0]);
    EMBER_CHECK_VALUE(static_cast<int64_t>(f.size()) == dim, "Input and scale_factor must have the same ",
                      "number of spatial dimensions, but got input with spatial dimensions of ",
                      IntArrayRef(spatial), " and scale_factor of shape ", scale_factor->size(),
                      ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor ",
                      "in (s1, s2, ...,sK) format.");
    for (int64_t i = 0; i < dim; ++i) {
      const auto k = static_cast<size_t>(i);
      out_size.push_back(static_cast<int64_t>(std::floor(static_cast<double>(spatial[k]) * f[k])));
      if (!recompute_scale_factor.value_or(false)) scales[k] = f[k];
    }
  }
  auto need = [&](int64_t want) {
    EMBER_CHECK_NOT_IMPLEMENTED(input.dim() == want, "Got ", input.dim(), "D input, but ", mode,
                                " mode needs ", want, "D input");
  };
  const bool known = mode == "nearest" || mode == "nearest-exact" || mode == "area" || interpolating;
  EMBER_CHECK_NOT_IMPLEMENTED(known && input.dim() >= 3 && input.dim() <= 5,
                              "Input Error: Only 3D, 4D and 5D input Tensors supported (got ", input.dim(),
                              "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | ",
                              "nearest-exact (got ", mode, ")");
  EMBER_CHECK_VALUE(!antialias || ((mode == "bilinear" || mode == "bicubic") && input.dim() == 4),
                    "Anti-alias option is only supported for bilinear and bicubic modes");
  if (antialias) {
    return mode == "bilinear" ? _upsample_bilinear2d_aa(input, out_size, ac, scales[0], scales[1])
                              : _upsample_bicubic2d_aa(input, out_size, ac, scales[0], scales[1]);
  }
  if (mode == "linear") need(3);
  if (mode == "bilinear") need(4);
  if (mode == "bicubic") need(4);
  if (mode == "trilinear") need(5);
  if (mode == "area") {
    if (dim == 1) return adaptive_avg_pool1d(input, out_size);
    if (dim == 2) return adaptive_avg_pool2d(input, out_size);
    return adaptive_avg_pool3d(input, out_size);
  }
  if (mode == "nearest" && dim == 2) return upsample_nearest2d(input, out_size, scales[0], scales[1]);
  if (mode == "bilinear") return upsample_bilinear2d(input, out_size, ac, scales[0], scales[1]);
  const Axis axis = mode == "nearest" ? Axis::Nearest
                    : mode == "nearest-exact" ? Axis::NearestExact
                    : mode == "bicubic" ? Axis::Cubic
                                        : Axis::Linear;
  EMBER_CHECK(is_floating(input.dtype()) || axis == Axis::Nearest || axis == Axis::NearestExact,
              "\"upsample_", mode, "\" not implemented for '", scalar_type_name(input.dtype()), "'");
  Tensor out = input;
  for (int64_t i = 0; i < dim; ++i) {
    out = resample_axis(out, 2 + i, out_size[static_cast<size_t>(i)], axis, ac, scales[static_cast<size_t>(i)]);
  }
  return out;
}

// ---- grid_sampler_3d's autograd ----

namespace {

Tensor grid_sampler_3d_autograd(const Tensor& input, const Tensor& grid, const int64_t& interpolation_mode,
                                const int64_t& padding_mode, const bool& align_corners) {
  autograd::Recorder r("GridSampler3DBackward0", input, grid);
  Tensor out = r.forward([&] {
    return dispatch::call<grid_sampler_3d_impl>(OpId::grid_sampler_3d, input, grid, interpolation_mode,
                                                padding_mode, align_corners);
  });
  if (!r) return out;
  const size_t input_ = r.save(input, "input"), grid_ = r.save(grid, "grid");
  r.values("align_corners", align_corners, "interpolation_mode", interpolation_mode, "padding_mode",
           padding_mode);
  return r.finish(out, [=](autograd::OpNode& n, const autograd::tensor_list& g) {
    const std::vector<int64_t> mask{n.needs(0) ? 1 : 0, n.needs(1) ? 1 : 0};
    auto [gi, gg] = grid_sampler_3d_backward(g[0], n.saved(input_), n.saved(grid_), interpolation_mode,
                                             padding_mode, align_corners, mask);
    return autograd::tensor_list{gi, gg};
  });
}

// PyTorch defines no derivative for the backward: its NotImplemented node.
std::tuple<Tensor, Tensor> grid_sampler_3d_backward_autograd(const Tensor& grad_output, const Tensor& input,
                                                             const Tensor& grid, const int64_t& interpolation_mode,
                                                             const int64_t& padding_mode, const bool& align_corners,
                                                             const IntArrayRef& output_mask) {
  autograd::Recorder r("NotImplemented", grad_output, input, grid);
  auto outs = r.forward([&] {
    return dispatch::call<grid_sampler_3d_backward_impl>(OpId::grid_sampler_3d_backward, grad_output, input, grid,
                                                         interpolation_mode, padding_mode, align_corners,
                                                         output_mask);
  });
  if (!r) return outs;
  return r.finish(outs, [](autograd::OpNode&, const autograd::tensor_list&) -> autograd::tensor_list {
    EMBER_FAIL("derivative for aten::grid_sampler_3d_backward is not implemented");
  });
}

}  // namespace

EMBER_REGISTER_OP(grid_sampler_3d, &grid_sampler_3d);
EMBER_REGISTER_OP(grid_sampler_3d_backward, &grid_sampler_3d_backward);
EMBER_REGISTER_AUTOGRAD(grid_sampler_3d, &grid_sampler_3d_autograd);
EMBER_REGISTER_AUTOGRAD(grid_sampler_3d_backward, &grid_sampler_3d_backward_autograd);

}  // namespace ember
