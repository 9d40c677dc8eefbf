// The padding layers of torch.nn (issue 16): ZeroPad2d, ConstantPad1d / 2d / 3d,
// ReflectionPad1d / 2d / 3d and ReplicationPad1d / 2d / 3d, all F.pad with PyTorch's stored
// padding (an int expanded to 2 * spatial values) and reprs ("ReflectionPad1d((2, 2))",
// "ConstantPad1d(padding=(2, 2), value=3.5)").
//
//   ember::nn::ReflectionPad2d pad(1);
//   ember::nn::ConstantPad3d cpad({1, 1, 2, 2, 0, 0}, 0.5);
#pragma once

#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/modules/activation_more.h"
#include "ember/nn/modules/utils.h"

namespace ember::nn {

class PadNd : public Module {
 public:
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  std::string extra_repr() const override;
  /// (left, right, top, bottom, front, back), as F.pad takes it.
  std::vector<int64_t> padding;
  /// "constant", "reflect" or "replicate".
  std::string mode;
  Number value;

 protected:
  PadNd(std::string type_name, size_t spatial, const IntOrTuple& padding, std::string mode,
        Number value = 0);

 private:
  bool show_value_;  // ConstantPadNd prints "padding=..., value=..."; ZeroPad2d the tuple only
};

#define EMBER_PAD_LAYER(Name, spatial, mode)                                          \
  class Name : public PadNd {                                                         \
   public:                                                                            \
    explicit Name(const IntOrTuple& padding) : PadNd(#Name, spatial, padding, mode) {} \
  };
EMBER_PAD_LAYER(ReflectionPad1d, 1, "reflect")
EMBER_PAD_LAYER(ReflectionPad2d, 2, "reflect")
EMBER_PAD_LAYER(ReflectionPad3d, 3, "reflect")
EMBER_PAD_LAYER(ReplicationPad1d, 1, "replicate")
EMBER_PAD_LAYER(ReplicationPad2d, 2, "replicate")
EMBER_PAD_LAYER(ReplicationPad3d, 3, "replicate")
EMBER_PAD_LAYER(ZeroPad2d, 2, "constant")
#undef EMBER_PAD_LAYER

#define EMBER_CONSTANT_PAD_LAYER(Name, spatial)                                                   \
  class Name : public PadNd {                                                                     \
   public:                                                                                        \
    Name(const IntOrTuple& padding, Number value) : PadNd(#Name, spatial, padding, "constant", value) {} \
  };
EMBER_CONSTANT_PAD_LAYER(ConstantPad1d, 1)
EMBER_CONSTANT_PAD_LAYER(ConstantPad2d, 2)
EMBER_CONSTANT_PAD_LAYER(ConstantPad3d, 3)
#undef EMBER_CONSTANT_PAD_LAYER

}  // namespace ember::nn
