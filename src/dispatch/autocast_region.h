// The fp32 policy of CPU autocast for the few ops of PyTorch 1.13's list that ember implements
// as functions rather than rows of its op table (max_unpool{1,2,3}d, multi_margin_loss,
// multilabel_margin_loss): the function applies it itself (Note [Autocast layer] in
// autocast.cpp).
//
//   Tensor multilabel_margin_loss(const Tensor& input_, ...) {
//     autocast::Fp32Region fp32;               // autocast off from here on, if it was on
//     const Tensor input = fp32.cast(input_);  // float32 if it was on and input_ is eligible
#pragma once

#include <optional>

#include "ember/autocast.h"

namespace ember::autocast {

class Fp32Region {
 public:
  Fp32Region() : on_(is_cpu_enabled()) { set_cpu_enabled(false); }
  ~Fp32Region() { set_cpu_enabled(on_); }
  Fp32Region(const Fp32Region&) = delete;
  Fp32Region& operator=(const Fp32Region&) = delete;

  Tensor cast(const Tensor& t) const { return on_ ? cached_cast(kFloat32, t) : t; }
  std::optional<Tensor> cast(const std::optional<Tensor>& t) const {
    return t ? std::optional<Tensor>(cast(*t)) : std::nullopt;
  }

 private:
  bool on_;
};

}  // namespace ember::autocast
