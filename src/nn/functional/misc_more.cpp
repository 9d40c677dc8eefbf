// nn::functional's normalisation, distance, shape, sampling, convolution and dropout entries of
// issue 16: F's Python checks and steps (PyTorch 1.13's torch/nn/functional.py) over the ops of
// ember/ops/nn_ops.h.
#include <algorithm>
#include <sstream>

#include "dropout_common.h"
#include "ember/nn/functional.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/warning.h"

namespace ember::nn::functional {

namespace {
std::string tuple_str(IntArrayRef v) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  if (v.size() == 1) os << ",";
  os << ")";
  return os.str();
}
std::vector<int64_t> pair(IntArrayRef v) {
  return v.size() == 1 ? std::vector<int64_t>{v[0], v[0]} : v.vec();
}
}  // namespace

Tensor instance_norm(const Tensor& input, const std::optional<Tensor>& running_mean,
                     const std::optional<Tensor>& running_var, const std::optional<Tensor>& weight,
                     const std::optional<Tensor>& bias, bool use_input_stats, double momentum,
                     double eps) {
  if (use_input_stats) {
    int64_t prod = 1;
    for (int64_t d = 2; d < input.dim(); ++d) prod *= input.size(d);
    EMBER_CHECK_VALUE(prod != 1, "Expected more than 1 spatial element when training, got input size ",
                      size_str(input.sizes()));
  }
  return ember::instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                              momentum, eps, false);
}

// F.local_response_norm: the squared input averaged over `size` neighbouring channels.
Tensor local_response_norm(const Tensor& input, int64_t size, double alpha, double beta, double k) {
  const int64_t dim = input.dim();
  EMBER_CHECK_VALUE(dim >= 3, "Expected 3D or higher dimensionality input (got ", dim, " dimensions)");
  if (input.numel() == 0) return input;
  Tensor div = (input * input).unsqueeze(1);
  if (dim == 3) {
    div = ember::pad(div, {0, 0, size / 2, (size - 1) / 2});
    div = ember::avg_pool2d(div, {size, 1}, {1}).squeeze(1);
  } else {
    const auto sizes = input.sizes().vec();
    div = div.view({sizes[0], 1, sizes[1], sizes[2], -1});
    div = ember::pad(div, {0, 0, 0, 0, size / 2, (size - 1) / 2});
    div = ember::avg_pool3d(div, {size, 1, 1}, {1}).squeeze(1);
    div = div.view(sizes);
  }
  div = (div * alpha + k).pow(beta);
  return input / div;
}

Tensor normalize(const Tensor& input, double p, int64_t dim, double eps) {
  const Tensor denom = clamp(ember::norm(input, Scalar(p), std::vector<int64_t>{dim}, true),
                             Scalar(eps), std::nullopt)
                           .expand_as(input);
  return input / denom;
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  return ember::cosine_similarity(x1, x2, dim, eps);
}
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  return ember::pairwise_distance(x1, x2, p, eps, keepdim);
}
Tensor pdist(const Tensor& input, double p) { return ember::pdist(input, p); }
Tensor one_hot(const Tensor& tensor, int64_t num_classes) { return ember::one_hot(tensor, num_classes); }
Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor) {
  return ember::pixel_shuffle(input, upscale_factor);
}
Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor) {
  return ember::pixel_unshuffle(input, downscale_factor);
}
Tensor channel_shuffle(const Tensor& input, int64_t groups) {
  return ember::channel_shuffle(input, groups);
}

Tensor unfold(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride) {
  return ember::im2col(input, pair(kernel_size), pair(dilation), pair(padding), pair(stride));
}
Tensor fold(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size,
            IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  return ember::col2im(input, pair(output_size), pair(kernel_size), pair(dilation), pair(padding),
                       pair(stride));
}

namespace {
bool align_or_warn(std::optional<bool> align_corners) {
  if (align_corners) return *align_corners;
  warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
       "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
       "documentation of grid_sample for details.");
  return false;
}
}  // namespace

Tensor grid_sample(const Tensor& input, const Tensor& grid, const std::string& mode,
                   const std::string& padding_mode, std::optional<bool> align_corners) {
  EMBER_CHECK_VALUE(mode == "bilinear" || mode == "nearest" || mode == "bicubic",
                    "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or ",
                    "'bicubic', but got: '", mode, "'");
  EMBER_CHECK_VALUE(padding_mode == "zeros" || padding_mode == "border" || padding_mode == "reflection",
                    "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or ",
                    "'reflection', but got: '", padding_mode, "'");
  const int64_t m = mode == "bilinear" ? 0 : mode == "nearest" ? 1 : 2;
  const int64_t pm = padding_mode == "zeros" ? 0 : padding_mode == "border" ? 1 : 2;
  return ember::grid_sampler(input, grid, m, pm, align_or_warn(align_corners));
}

Tensor affine_grid(const Tensor& theta, IntArrayRef size, std::optional<bool> align_corners) {
  const bool ac = align_or_warn(align_corners);
  EMBER_CHECK_VALUE(is_floating(theta.dtype()), "Expected theta to have floating point type, but got ",
                    "ember.", scalar_type_name(theta.dtype()));
  std::vector<int64_t> spatial;
  if (size.size() == 4) {
    EMBER_CHECK_VALUE(theta.dim() == 3 && theta.size(-2) == 2 && theta.size(-1) == 3,
                      "Expected a batch of 2D affine matrices of shape Nx2x3 for size ", tuple_str(size),
                      ". Got ", size_str(theta.sizes()), ".");
    spatial = {size[2], size[3]};
  } else if (size.size() == 5) {
    EMBER_CHECK_VALUE(theta.dim() == 3 && theta.size(-2) == 3 && theta.size(-1) == 4,
                      "Expected a batch of 3D affine matrices of shape Nx3x4 for size ", tuple_str(size),
                      ". Got ", size_str(theta.sizes()), ".");
    spatial = {size[2], size[3], size[4]};
  } else {
    EMBER_CHECK_NOT_IMPLEMENTED(false, "affine_grid only supports 4D and 5D sizes, for 2D and 3D ",
                                "affine transforms, respectively. Got size ", tuple_str(size), ".");
  }
  if (ac && *std::min_element(spatial.begin(), spatial.end()) == 1) {
    warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
         "align_corners=True. This is not an issue for standard, non-unit-size grids.");
  } else {
    EMBER_CHECK_VALUE(*std::min_element(size.begin(), size.end()) > 0,
                      "Expected non-zero, positive output size. Got ", tuple_str(size));
  }
  return ember::affine_grid_generator(theta, size, ac);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return ember::conv3d(input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  return ember::conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation);
}
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  return ember::conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation);
}

// ---- dropouts ----
namespace {
void check_p(double p) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0, "dropout probability has to be between 0 and 1, but got ", p);
}
// An unbatched input gains the batch dim for the draw (in place when inplace, as F's unsqueeze_).
Tensor batched_feature_dropout(const Tensor& input, double p, bool training, bool inplace, bool batched) {
  if (batched) return detail::dropout_impl(input, p, training, inplace, true, false);
  Tensor x = input.unsqueeze(0);
  Tensor out = detail::dropout_impl(x, p, training, inplace, true, false).squeeze(0);
  if (inplace) return input;
  return out;
}
}  // namespace

Tensor dropout1d(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  const int64_t d = input.dim();
  EMBER_CHECK(d == 2 || d == 3, "dropout1d: Expected 2D or 3D input, but received a ", d, "D input. ",
              "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial ",
              "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
  return batched_feature_dropout(input, p, training, inplace, d == 3);
}

Tensor dropout3d(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  const int64_t d = input.dim();
  if (d != 4 && d != 5) {
    warn("dropout3d: Received a " + std::to_string(d) +
         "-D input to dropout3d, which is deprecated and will result in an error in a future "
         "release. To retain the behavior and silence this warning, please use dropout instead. "
         "Note that dropout3d exists to provide channel-wise dropout on inputs with 3 spatial "
         "dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).");
  }
  return batched_feature_dropout(input, p, training, inplace, d == 5);
}

Tensor alpha_dropout(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  return detail::dropout_impl(input, p, training, inplace, false, true);
}

Tensor feature_alpha_dropout(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  return detail::dropout_impl(input, p, training, inplace, true, true);
}

}  // namespace ember::nn::functional
