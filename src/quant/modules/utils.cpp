// quantize_weight (PyTorch's _quantize_weight + _clamp_weights), qscheme_repr, and the
// registration of the quantized modules with clone() (Note [Cloning modules]).
#include "ember/nn/quantized/utils.h"

#include "ember/nn/module_clone.h"
#include "ember/nn/quantized/conv.h"
#include "ember/nn/quantized/linear.h"
#include "ember/nn/quantized/modules.h"
#include "ember/ops/pointwise.h"
#include "ember/quantized/conv_linear.h"

namespace ember::nn::quantized {

std::string qscheme_repr(QScheme qscheme) { return std::string("ember.") + qscheme_name(qscheme); }

Tensor quantize_weight(const Tensor& w, const Tensor& scale, const Tensor& zero_point,
                       QScheme qscheme, int64_t ch_axis, int64_t quant_min, int64_t quant_max) {
  const bool per_tensor =
      qscheme == QScheme::PerTensorAffine || qscheme == QScheme::PerTensorSymmetric;
  const bool per_channel =
      qscheme == QScheme::PerChannelAffine || qscheme == QScheme::PerChannelSymmetric;
  EMBER_CHECK_VALUE(per_tensor || per_channel, "Unexpected qscheme ", qscheme_repr(qscheme));
  const Tensor wf = w.to(kFloat32);
  Tensor qw = per_tensor
                  ? quantize_per_tensor(wf, scale.item().to<double>(),
                                        zero_point.item().to<int64_t>(), kQInt8)
                  : quantize_per_channel(wf, scale.to(kFloat64), zero_point.to(kInt64), ch_axis,
                                         kQInt8);
  // _clamp_weights: only when the observer's range is narrower than int8's.
  if (quant_min <= -128 && quant_max >= 127) return qw;
  Tensor codes = ember::clamp(int_repr(qw), Scalar(quant_min), Scalar(quant_max));
  if (per_tensor) {
    return _make_per_tensor_quantized_tensor(codes, scale.item().to<double>(),
                                             zero_point.item().to<int64_t>());
  }
  return _make_per_channel_quantized_tensor(codes, scale, zero_point, ch_axis);
}

namespace {

// A copy packs again from the weight and bias the original packed (PyTorch's __deepcopy__ of
// the conv modules, __setstate__ of the packed params): the copy has its own packed object,
// made for the current engine.
template <class T>
void repack(Module& copy, CloneMemo& /*memo*/) {
  auto& m = static_cast<T&>(copy);
  auto [w, b] = m._weight_bias();
  m.set_weight_bias(w, b);
}

const bool registered = [] {
  register_cloneable<Conv1d>();
  register_cloneable<Conv2d>();
  register_cloneable<ConvReLU1d>();
  register_cloneable<ConvReLU2d>();
  register_cloneable<LinearPackedParams>();
  register_cloneable<Linear>();
  register_cloneable<LinearReLU>();
  register_cloneable<dynamic::Linear>();
  register_cloneable<Quantize>();
  register_cloneable<DeQuantize>();
  register_cloneable<ReLU6>();
  register_cloneable<Hardswish>();
  register_cloneable<Dropout>();
  register_cloneable<BatchNorm2d>();
  register_cloneable<BNReLU2d>();
  register_cloneable<FloatFunctional>();
  register_cloneable<FXFloatFunctional>();
  register_cloneable<QFunctional>();
  detail::register_fixup(typeid(Conv1d), repack<ConvNd>);
  detail::register_fixup(typeid(Conv2d), repack<ConvNd>);
  detail::register_fixup(typeid(ConvReLU1d), repack<ConvNd>);
  detail::register_fixup(typeid(ConvReLU2d), repack<ConvNd>);
  detail::register_fixup(typeid(LinearPackedParams), repack<LinearPackedParams>);
  return true;
}();

}  // namespace

}  // namespace ember::nn::quantized
