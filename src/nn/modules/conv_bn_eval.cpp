// Note [Eval-mode conv-bn-activation fusion]
// In eval mode a BatchNorm2d after a Conv2d is an affine map per output channel, so
// bn(conv(x)) = conv'(x) with the folded weight and bias of fuse_conv_bn_weights (quantization
// spec § 4.2; the same math as fuse_conv_bn_eval). A following ReLU / ReLU6 / Hardtanh, and a
// residual sum before it, become oneDNN post-ops of that convolution. One pass over the
// output instead of three: on MobileNetV2 batch 1 the separate BN and ReLU6 passes were a
// quarter of the time (the activations don't fit in L2, so each pass is a trip to memory).
//
// The modules stay as they are (names, parameters, state_dict, repr, train/eval), and the
// fusion only runs where it cannot be observed beyond float rounding:
//   - conv is exactly a Conv2d with padding_mode "zeros" and numeric padding, bn exactly a
//     BatchNorm2d in eval mode with running statistics, act exactly ReLU / ReLU6 / Hardtanh
//     (subclasses, such as Python classes deriving from them, may change forward);
//   - none of them has a forward hook;
//   - every tensor involved is a plain CPU float32 tensor: no subclass, no active mode (they
//     must see the ops), not quantized, and no gradient is being recorded for any of them.
// The folded weight and bias are cached on the Conv2d and rebuilt when any of the six source
// tensors is replaced or written (version counters) or eps changes, so load_state_dict,
// optimizer steps and in-place edits are seen. Rounding differs from the unfused modules by a
// few float32 ulps (as PyTorch's frozen TorchScript models, which fold the same way).
#include "conv_bn_eval.h"

#include <array>
#include <typeinfo>

#include "../../dispatch/dispatcher.h"
#include "../../ops/conv_fused.h"
#include "ember/grad_mode.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/utils/fusion.h"

namespace ember::nn {

// The folded parameters and what they were folded from.
struct ConvBnFoldCache {
  std::array<Tensor, 6> sources;  // conv weight, conv bias, bn weight, bn bias, mean, var
  std::array<uint32_t, 6> versions{};
  double eps = 0;
  Tensor weight, bias;

  bool matches(const std::array<Tensor, 6>& now, double now_eps) const {
    if (eps != now_eps || !weight.defined()) return false;
    for (size_t i = 0; i < now.size(); ++i) {
      if (sources[i].impl() != now[i].impl()) return false;
      if (now[i].defined() && versions[i] != now[i].version()) return false;
    }
    return true;
  }
};

namespace detail {
namespace {

// A tensor the fused kernel may read in place of the modules' ops: plain CPU float32, seen by
// no override layer nor autocast, not recording a gradient. Undefined (an absent bias) is fine.
bool plain_operand(const Tensor& t) {
  if (!t.defined()) return true;
  if (!t.is_cpu() || t.dtype() != kFloat32) return false;
  const KeySet keys = t.impl()->keys() | dispatch::local_state().included;
  if (keys.has(DispatchKey::FunctionOverride) || keys.has(DispatchKey::DispatchOverride) ||
      keys.has(DispatchKey::QuantizedCPU) || keys.has(dispatch::kAutocastKey)) {
    return false;
  }
  return !(t.requires_grad() && GradMode::is_enabled());
}

bool exact(const Module& m, const std::type_info& type) { return typeid(m) == type; }

}  // namespace

bool is_fusable_activation(const Module& m) {
  return exact(m, typeid(ReLU)) || exact(m, typeid(ReLU6)) || exact(m, typeid(Hardtanh));
}

std::optional<Tensor> conv_bn_act_eval(Module& conv_m, Module& bn_m, const Module* act,
                                       const Tensor& x, const Tensor& residual) {
  if (!exact(conv_m, typeid(Conv2d)) || !exact(bn_m, typeid(BatchNorm2d))) return std::nullopt;
  if (act && !is_fusable_activation(*act)) return std::nullopt;
  auto& conv = static_cast<Conv2d&>(conv_m);
  auto& bn = static_cast<BatchNorm2d&>(bn_m);
  if (bn.is_training() || !bn.track_running_stats || conv.padding_mode != "zeros" ||
      conv.padding_string == "same" || conv.has_forward_hooks() || bn.has_forward_hooks() ||
      (act && act->has_forward_hooks())) {
    return std::nullopt;
  }
  const std::array<Tensor, 6> sources{conv.weight(), conv.bias(), bn.weight(), bn.bias(),
                                      bn.running_mean(), bn.running_var()};
  if (!sources[4].defined() || !sources[5].defined() || x.dim() != 4) return std::nullopt;
  for (const Tensor& t : sources) {
    if (!plain_operand(t)) return std::nullopt;
  }
  if (!plain_operand(x) || !plain_operand(residual)) return std::nullopt;
  // Shapes the modules would reject: let them, with their messages.
  if (x.size(1) != conv.in_channels || bn.num_features != conv.out_channels) return std::nullopt;

  auto& cache = conv._bn_fold_cache;
  if (!cache) cache = std::make_shared<ConvBnFoldCache>();
  if (!cache->matches(sources, bn.eps)) {
    NoGradGuard no_grad;
    auto opt = [](const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; };
    auto [w, b] = utils::fuse_conv_bn_weights(sources[0], opt(sources[1]), sources[4], sources[5],
                                              bn.eps, opt(sources[2]), opt(sources[3]));
    cache->weight = w.detach();
    cache->bias = b.detach();
    cache->sources = sources;
    for (size_t i = 0; i < sources.size(); ++i) {
      cache->versions[i] = sources[i].defined() ? sources[i].version() : 0;
    }
    cache->eps = bn.eps;
  }

  cpu::ConvEpilogue ep;
  if (act && exact(*act, typeid(ReLU))) {
    ep.activation = cpu::ConvEpilogue::Activation::ReLU;
  } else if (act) {
    const auto& h = static_cast<const Hardtanh&>(*act);
    ep.activation = cpu::ConvEpilogue::Activation::Clip;
    ep.clip_min = static_cast<float>(h.min_val);
    ep.clip_max = static_cast<float>(h.max_val);
  }
  Tensor out = ops::detail::conv2d_fused_inference(x, cache->weight, cache->bias, conv.stride,
                                                   conv.padding, conv.dilation, conv.groups, ep,
                                                   residual);
  if (!out.defined()) return std::nullopt;
  return out;
}

}  // namespace detail
}  // namespace ember::nn
