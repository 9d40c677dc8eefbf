// torch.nn.Flatten: merges dims start_dim..end_dim (by default all but the batch dim).
//
//   ember::nn::Flatten flat;          // [N, C, H, W] -> [N, C*H*W]
#pragma once

#include <string>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1)
      : Module("Flatten"), start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "start_dim=1, end_dim=-1".
  std::string extra_repr() const override;
  int64_t start_dim;
  int64_t end_dim;
};

}  // namespace ember::nn
