// nn::functional pooling, padding and resampling: thin forwards to ember/ops/pooling.h, plus
// what Python's F adds (an int output_size stands for both dims of the adaptive pools;
// F.adaptive_max_pool2d without return_indices gives the values only).
#include "ember/nn/functional.h"

namespace ember::nn::functional {
namespace {

// Python's _pair for an adaptive output size: one int means (n, n).
std::vector<int64_t> pair_size(IntArrayRef output_size) {
  if (output_size.size() == 1) return {output_size[0], output_size[0]};
  return output_size.vec();
}

}  // namespace

Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return ember::max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode);
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return ember::max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode);
}

Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  return ember::avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                           divisor_override);
}

Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size) {
  return ember::adaptive_avg_pool2d(input, pair_size(output_size));
}

Tensor adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size) {
  return std::get<0>(ember::adaptive_max_pool2d(input, pair_size(output_size)));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            IntArrayRef output_size) {
  return ember::adaptive_max_pool2d(input, pair_size(output_size));
}

Tensor pad(const Tensor& input, IntArrayRef pad, const std::string& mode,
           std::optional<double> value) {
  return ember::pad(input, pad, mode, value);
}

Tensor interpolate(const Tensor& input, std::optional<std::vector<int64_t>> size,
                   std::optional<std::vector<double>> scale_factor, const std::string& mode,
                   std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor,
                   bool antialias) {
  return ember::interpolate(input, std::move(size), std::move(scale_factor), mode, align_corners,
                            recompute_scale_factor, antialias);
}

}  // namespace ember::nn::functional
