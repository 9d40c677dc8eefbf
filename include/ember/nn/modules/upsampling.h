// torch.nn.Upsample: F.interpolate with the module's size or scale_factor, mode and
// align_corners. repr as PyTorch's: "Upsample(scale_factor=2.0, mode=nearest)",
// "Upsample(size=(4, 5), mode=bilinear)".
//
//   ember::nn::Upsample up(std::nullopt, std::vector<double>{2.0});        // x2, nearest
//   ember::nn::Upsample to(ember::nn::IntOrTuple{32, 32}, std::nullopt, "bilinear", false);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/modules/utils.h"

namespace ember::nn {

class Upsample : public Module {
 public:
  /// scale_factor: one value (printed as a float, "2.0") or one per spatial dim (a tuple).
  explicit Upsample(std::optional<IntOrTuple> size = std::nullopt,
                    std::optional<std::vector<double>> scale_factor = std::nullopt,
                    std::string mode = "nearest", std::optional<bool> align_corners = std::nullopt,
                    std::optional<bool> recompute_scale_factor = std::nullopt);
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "scale_factor=2.0, mode=nearest" or "size=4, mode=nearest".
  std::string extra_repr() const override;

  std::optional<IntOrTuple> size;
  std::optional<std::vector<double>> scale_factor;
  std::string mode;
  std::optional<bool> align_corners;
  std::optional<bool> recompute_scale_factor;

 protected:
  /// UpsamplingNearest2d / UpsamplingBilinear2d (layers_more.h) under their own names.
  Upsample(std::string type_name, std::optional<IntOrTuple> size,
           std::optional<std::vector<double>> scale_factor, std::string mode,
           std::optional<bool> align_corners);
};

}  // namespace ember::nn
