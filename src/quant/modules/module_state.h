// What the quantized modules' _save_to_state_dict / _load_from_state_dict share: reading an
// entry as PyTorch's `state_dict.pop(key)` (KeyError naming the key when absent), and writing
// scale / zero_point as PyTorch's torch.tensor(self.scale) / torch.tensor(self.zero_point).
#pragma once

#include <optional>
#include <string>

#include "ember/nn/state_dict.h"
#include "ember/tensor.h"

namespace ember::nn::quantized {

/// The entry `key`, removed (KeyError "'key'" when absent).
Value pop_entry(StateDict& sd, const std::string& key);
/// A tensor entry (TypeError naming the key for another kind of value).
Tensor pop_tensor(StateDict& sd, const std::string& key);
/// A tensor or None.
std::optional<Tensor> pop_optional_tensor(StateDict& sd, const std::string& key);
/// float(entry): a one-element tensor or a number.
double pop_scale(StateDict& sd, const std::string& key);
/// int(entry): a one-element tensor or an int.
int64_t pop_zero_point(StateDict& sd, const std::string& key);
/// "<prefix>scale" = 0-dim float32, "<prefix>zero_point" = 0-dim int64.
void save_qparams(StateDict& sd, const std::string& prefix, double scale, int64_t zero_point);

}  // namespace ember::nn::quantized
