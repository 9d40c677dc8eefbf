// nn::functional::dropout: F.dropout's check, then aten::dropout (src/ops/random.cpp);
// dropout2d: F.dropout2d's checks and warnings, then feature dropout written with ember ops.
#include <cmath>

#include "dropout_common.h"
#include "ember/nn/functional.h"
#include "ember/ops/factory.h"
#include "ember/ops/random.h"
#include "ember/warning.h"

namespace ember::nn::functional {

Tensor dropout(const Tensor& input, double p, bool training, bool inplace) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0,
                    "dropout probability has to be between 0 and 1, but got ", p);
  Tensor out = ember::dropout(input, p, training);
  if (!inplace || out.is_same(input)) return out;
  // F.dropout(inplace=True): the input itself holds the result.
  Tensor self = input;
  self.copy_(out);
  return self;
}

}  // namespace ember::nn::functional

namespace ember::nn::functional {

// aten::feature_dropout as _dropout_impl<feature_dropout=true> writes it: one Bernoulli draw per
// (sample, channel), broadcast over the remaining dims, so whole feature maps drop together.
Tensor dropout2d(const Tensor& input, double p, bool training, bool inplace) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0,
                    "dropout probability has to be between 0 and 1, but got ", p);
  const int64_t dim = input.dim();
  if (dim != 3 && dim != 4)
    warn("dropout2d: Received a " + std::to_string(dim) +
         "-D input to dropout2d, which is deprecated and will result in an error in a future "
         "release. To retain the behavior and silence this warning, please use dropout instead. "
         "Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
         "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
         "inputs).");
  if (dim == 3)
    warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
         "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel "
         "dim. This behavior will change in a future release to interpret the input as one "
         "without a batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
         "dropout behavior, please switch to using dropout1d instead.");
  return detail::dropout_impl(input, p, training, inplace, /*feature=*/true, /*alpha=*/false);
}

// PyTorch's _dropout_impl<feature_dropout, alpha_dropout, inplace>.
Tensor detail::dropout_impl(const Tensor& input, double p, bool training, bool inplace, bool feature,
                            bool alpha) {
  if (p == 0.0 || !training || input.numel() == 0) return input;
  EMBER_CHECK(!feature || input.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
  Tensor self = input;
  if (p == 1.0) {
    Tensor zero = zeros({}, TensorOptions(input.dtype()).device(input.device()));
    return inplace ? self.mul_(zero) : input * zero;
  }
  std::vector<int64_t> noise_sizes = input.sizes().vec();
  if (feature) {
    for (size_t d = 2; d < noise_sizes.size(); ++d) noise_sizes[d] = 1;
  }
  Tensor noise = empty(noise_sizes, TensorOptions(input.dtype()).device(input.device()));
  noise.bernoulli_(1.0 - p);
  if (!alpha) {
    noise.div_(1.0 - p);
    return inplace ? self.mul_(noise) : input * noise;
  }
  // SELU's fixed point: the dropped units take -alpha * scale, then an affine map keeps the
  // mean and variance (alpha = 1.7580993408473766 = SELU's alpha * scale).
  constexpr double kAlpha = 1.7580993408473766;
  const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  const Tensor b = (noise - 1) * (kAlpha * a) + kAlpha * a * p;
  noise.mul_(wrapped_scalar_tensor(a));
  return inplace ? self.mul_(noise).add_(b) : input * noise + b;
}

}  // namespace ember::nn::functional
