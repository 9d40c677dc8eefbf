// torch.nn.utils.fusion: conv-bn and linear-bn folding (quantization-spec § 4.2). The tensor
// expressions keep PyTorch's association order, which makes the float32 results bit-identical.
#include "ember/nn/utils/fusion.h"

#include "ember/error.h"
#include "ember/nn/module.h"
#include "ember/nn/module_clone.h"
#include "ember/ops/factory.h"

namespace ember::nn::utils {
namespace {

// copy.deepcopy(m), as PyTorch's fusion starts from: the same class, hyperparameters, mode
// and C++ hooks (so the folded conv of a hooked one runs its pre-hooks too, quantization-spec
// § 4.1). The caller replaces weight and bias.
template <class T>
std::shared_ptr<T> deep_copy_of(T& m) {
  std::shared_ptr<T> out = std::dynamic_pointer_cast<T>(m.clone());
  EMBER_ASSERT(out != nullptr, "clone of a ", m.type_name(), " changed its class");
  return out;
}

std::optional<Tensor> defined_or_none(const Tensor& t) {
  return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
}

void check_eval(const Module& m, BatchNormBase& bn) {
  EMBER_CHECK(!(m.is_training() || bn.is_training()), "Fusion only for eval!");
  // PyTorch would fail inside the arithmetic on None; say what is missing instead.
  EMBER_CHECK(bn.running_mean().defined() && bn.running_var().defined(),
              "fusion needs the running statistics of ", bn.type_name(),
              " (it was built with track_running_stats=False)");
}

}  // namespace

std::pair<Tensor, Tensor> fuse_conv_bn_weights(const Tensor& conv_w,
                                               const std::optional<Tensor>& conv_b,
                                               const Tensor& bn_rm, const Tensor& bn_rv,
                                               double bn_eps, const std::optional<Tensor>& bn_w,
                                               const std::optional<Tensor>& bn_b,
                                               bool transpose) {
  const Tensor b = conv_b ? *conv_b : zeros_like(bn_rm);
  const Tensor gamma = bn_w ? *bn_w : ones_like(bn_rm);
  const Tensor beta = bn_b ? *bn_b : zeros_like(bn_rm);
  const Tensor var_rsqrt = (bn_rv + bn_eps).rsqrt();
  std::vector<int64_t> shape(static_cast<size_t>(conv_w.dim()), 1);
  shape[transpose ? 1 : 0] = -1;
  const Tensor w = conv_w * (gamma * var_rsqrt).reshape(shape);
  const Tensor fused_b = (b - bn_rm) * var_rsqrt * gamma + beta;
  return {Parameter(w), Parameter(fused_b)};
}

std::pair<Tensor, Tensor> fuse_linear_bn_weights(const Tensor& linear_w,
                                                 const std::optional<Tensor>& linear_b,
                                                 const Tensor& bn_rm, const Tensor& bn_rv,
                                                 double bn_eps, const Tensor& bn_w,
                                                 const Tensor& bn_b) {
  const Tensor b = linear_b ? *linear_b : zeros_like(bn_rm);
  const Tensor scale = bn_w * (bn_rv + bn_eps).rsqrt();
  const Tensor w = linear_w * scale.unsqueeze(-1);
  const Tensor fused_b = (b - bn_rm) * scale + bn_b;
  return {Parameter(w), Parameter(fused_b)};
}

std::shared_ptr<ConvNd> fuse_conv_bn_eval(ConvNd& conv, BatchNormBase& bn, bool transpose) {
  check_eval(conv, bn);
  std::shared_ptr<ConvNd> fused = deep_copy_of(conv);
  auto [w, b] = fuse_conv_bn_weights(conv.weight(), defined_or_none(conv.bias()), bn.running_mean(),
                                     bn.running_var(), bn.eps, defined_or_none(bn.weight()),
                                     defined_or_none(bn.bias()), transpose);
  fused->weight() = w;
  fused->bias() = b;
  return fused;
}

std::shared_ptr<Linear> fuse_linear_bn_eval(Linear& linear, BatchNormBase& bn) {
  check_eval(linear, bn);
  EMBER_CHECK(bn.affine, "fuse_linear_bn_eval needs an affine ", bn.type_name(),
              " (PyTorch fails on its None weight)");
  Linear& l = linear;
  std::shared_ptr<Linear> fused = deep_copy_of(linear);
  auto [w, b] = fuse_linear_bn_weights(l.weight(), defined_or_none(l.bias()), bn.running_mean(),
                                       bn.running_var(), bn.eps, bn.weight(), bn.bias());
  fused->weight() = w;
  fused->bias() = b;
  return fused;
}

}  // namespace ember::nn::utils
