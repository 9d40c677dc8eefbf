// nn::functional convolutions: F.conv1d / conv2d / conv_transpose2d are the aten composites
// themselves (ember/ops/conv.h); they are forwarded here so that layers and user code can
// spell everything torch.nn.functional-style.
#include "ember/nn/functional.h"

namespace ember::nn::functional {

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return ember::conv1d(input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const std::string& padding, IntArrayRef dilation,
              int64_t groups) {
  return ember::conv1d(input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return ember::conv2d(input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const std::string& padding, IntArrayRef dilation,
              int64_t groups) {
  return ember::conv2d(input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return ember::conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups,
                                 dilation);
}

}  // namespace ember::nn::functional
