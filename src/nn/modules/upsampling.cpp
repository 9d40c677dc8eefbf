// nn::Upsample: PyTorch 1.13's attributes, F.interpolate forward and repr.
#include "ember/nn/modules/upsampling.h"

#include "ember/nn/functional.h"
#include "module_util.h"

namespace ember::nn {

Upsample::Upsample(std::optional<IntOrTuple> size_, std::optional<std::vector<double>> scale_factor_,
                   std::string mode_, std::optional<bool> align_corners_,
                   std::optional<bool> recompute_scale_factor_)
    : Module("Upsample"),
      size(std::move(size_)),
      scale_factor(std::move(scale_factor_)),
      mode(std::move(mode_)),
      align_corners(align_corners_),
      recompute_scale_factor(recompute_scale_factor_) {}

Upsample::Upsample(std::string type_name, std::optional<IntOrTuple> size_,
                   std::optional<std::vector<double>> scale_factor_, std::string mode_,
                   std::optional<bool> align_corners_)
    : Module(std::move(type_name)),
      size(std::move(size_)),
      scale_factor(std::move(scale_factor_)),
      mode(std::move(mode_)),
      align_corners(align_corners_) {}

Tensor Upsample::forward(const Tensor& input) {
  std::optional<std::vector<int64_t>> sizes;
  if (size) sizes = size->values();
  return functional::interpolate(input, sizes, scale_factor, mode, align_corners,
                                 recompute_scale_factor);
}

Value Upsample::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::string Upsample::extra_repr() const {
  std::string info;
  if (scale_factor) {
    // Python stores float(scale_factor) for one number, a tuple of floats for several.
    const auto& s = *scale_factor;
    if (s.size() == 1) {
      info = "scale_factor=" + detail::py_float(s[0]);
    } else {
      info = "scale_factor=(";
      for (size_t i = 0; i < s.size(); ++i) info += (i ? ", " : "") + detail::py_float(s[i]);
      info += ")";
    }
  } else {
    info = "size=" + (size ? size->repr() : std::string("None"));
  }
  return info + ", mode=" + mode;
}

}  // namespace ember::nn
