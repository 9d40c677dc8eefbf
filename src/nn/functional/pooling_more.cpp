// nn::functional's 1-d / 3-d pooling (thin calls to src/ops/nn_pool3d.cpp), power-average
// pooling (F.lp_pool1d / lp_pool2d's composite of avg_pool) and max unpooling (a scatter of the
// values to their flat indices, so its gradient is a gather).
#include <cmath>

#include "ember/nn/functional.h"
#include "ember/ops/factory.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/pointwise.h"
#include "../../dispatch/autocast_region.h"

namespace ember::nn::functional {

Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad) {
  return ember::avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad);
}
Tensor avg_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  return ember::avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                           divisor_override);
}
Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return ember::max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode);
}
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return ember::max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode);
}
Tensor max_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return ember::max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode);
}
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return ember::max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode);
}

namespace {
// Python's _triple for an adaptive output size: one int means (n, n, n).
std::vector<int64_t> triple_size(IntArrayRef output_size) {
  if (output_size.size() == 1) return {output_size[0], output_size[0], output_size[0]};
  return output_size.vec();
}
}  // namespace

Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size) {
  return ember::adaptive_avg_pool1d(input, output_size);
}
Tensor adaptive_avg_pool3d(const Tensor& input, IntArrayRef output_size) {
  return ember::adaptive_avg_pool3d(input, triple_size(output_size));
}
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            IntArrayRef output_size) {
  return ember::adaptive_max_pool1d(input, output_size);
}
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                            IntArrayRef output_size) {
  return ember::adaptive_max_pool3d(input, triple_size(output_size));
}

namespace {
Tensor lp_finish(const Tensor& out, int64_t window) {
  return (ember::sign(out) * ember::relu(ember::abs(out))) * static_cast<double>(window);
}
}  // namespace

// (sign(s) relu(|s|) * window)^(1 / p) with s the window mean of x^p (PyTorch's formula).
Tensor lp_pool1d(const Tensor& input, double norm_type, IntArrayRef kernel_size,
                 IntArrayRef stride, bool ceil_mode) {
  const Tensor out = ember::avg_pool1d(input.pow(norm_type), kernel_size, stride, {0}, ceil_mode);
  return lp_finish(out, kernel_size[0]).pow(1.0 / norm_type);
}
Tensor lp_pool2d(const Tensor& input, double norm_type, IntArrayRef kernel_size,
                 IntArrayRef stride, bool ceil_mode) {
  const int64_t kw = kernel_size[0], kh = kernel_size.size() > 1 ? kernel_size[1] : kernel_size[0];
  const Tensor out = ember::avg_pool2d(input.pow(norm_type), kernel_size, stride, {0}, ceil_mode);
  return lp_finish(out, kw * kh).pow(1.0 / norm_type);
}

// PyTorch's _unpool_output_size and max_unpool{1,2,3}d.
// On PyTorch's CPU autocast fp32 list (max_unpool2d / 3d; 1d runs 2d).
Tensor max_unpool(const Tensor& input_, const Tensor& indices, IntArrayRef kernel_size,
                  IntArrayRef stride, IntArrayRef padding,
                  const std::optional<std::vector<int64_t>>& output_size, size_t spatial) {
  autocast::Fp32Region fp32;
  const Tensor input = fp32.cast(input_);
  const auto n = static_cast<int64_t>(spatial);
  EMBER_CHECK(input.dim() == n + 1 || input.dim() == n + 2, "max_unpool", spatial, "d: Expected ",
              n + 1, "D or ", n + 2, "D input, but got input of size: ", input.sizes());
  EMBER_CHECK(indices.dtype() == kInt64, "elements in indices should be type int64 but got: ",
              scalar_type_name(indices.dtype()));
  EMBER_CHECK(input.sizes() == indices.sizes(), "Expected shape of indices to be same as that of the ",
              "input tensor (", input.sizes(), ") but got indices tensor with shape: ", indices.sizes());
  std::vector<int64_t> def;
  for (int64_t d = 0; d < n; ++d) {
    def.push_back((input.size(input.dim() - n + d) - 1) * stride[d] + kernel_size[d] - 2 * padding[d]);
  }
  std::vector<int64_t> out = def;
  if (output_size) {
    std::vector<int64_t> o = *output_size;
    if (static_cast<int64_t>(o.size()) == n + 2) o.erase(o.begin(), o.begin() + 2);
    EMBER_CHECK_VALUE(static_cast<int64_t>(o.size()) == n, "output_size should be a sequence containing ",
                      n, " or ", n + 2, " elements, but it has a length of '", output_size->size(), "'");
    for (int64_t d = 0; d < n; ++d) {
      const int64_t lo = def[d] - stride[d], hi = def[d] + stride[d];
      if (!(lo < o[d] && o[d] < hi)) {
        EMBER_FAIL_KIND(ErrorKind::Value, "invalid output_size \"", IntArrayRef(*output_size), "\" (dim ",
                        d, " must be between ", lo, " and ", hi, ")");
      }
    }
    out = o;
  }
  int64_t plane = 1;
  for (int64_t s : out) plane *= s;
  std::vector<int64_t> lead(input.sizes().begin(), input.sizes().end() - n);
  int64_t planes = 1;
  for (int64_t s : lead) planes *= s;
  const Tensor idx = indices.reshape({planes, -1});
  if (!idx.is_meta() && idx.numel() != 0) {
    const int64_t lo = idx.min().item().to_int(), hi = idx.max().item().to_int();
    EMBER_CHECK(lo >= 0 && hi < plane, "Found an invalid max index: ", lo < 0 ? lo : hi,
                " (output volumes are of size ", out[0], n > 1 ? "x" + std::to_string(out[1]) : "",
                n > 2 ? "x" + std::to_string(out[2]) : "", ")");
  }
  std::vector<int64_t> shape = lead;
  shape.insert(shape.end(), out.begin(), out.end());
  return zeros({planes, plane}, TensorOptions(input.dtype()).device(input.device()))
      .scatter(1, idx, input.reshape({planes, -1}))
      .view(shape);
}

}  // namespace ember::nn::functional
