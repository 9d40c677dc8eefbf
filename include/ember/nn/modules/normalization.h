// torch.nn.LayerNorm: normalises over the trailing normalized_shape dims, then (with
// elementwise_affine) scales by weight (ones) and shifts by bias (zeros).
//
//   ember::nn::LayerNorm ln(64);              // LayerNorm((64,), eps=1e-05, elementwise_affine=True)
//   ember::nn::LayerNorm ln2({8, 8}, 1e-6, false);
#pragma once

#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/tensor_options.h"

namespace ember::nn {

class LayerNorm : public Module {
 public:
  LayerNorm(std::vector<int64_t> normalized_shape, double eps = 1e-5,
            bool elementwise_affine = true, TensorOptions options = {});
  /// normalized_shape = (n,), as PyTorch accepts an int.
  explicit LayerNorm(int64_t normalized_shape, double eps = 1e-5, bool elementwise_affine = true,
                     TensorOptions options = {})
      : LayerNorm(std::vector<int64_t>{normalized_shape}, eps, elementwise_affine, options) {}

  /// weight to ones, bias to zeros (nothing happens to meta tensors).
  void reset_parameters();
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "(10,), eps=1e-05, elementwise_affine=True".
  std::string extra_repr() const override;

  /// Undefined (None) without elementwise_affine.
  Tensor& weight() { return parameter("weight"); }
  Tensor& bias() { return parameter("bias"); }

  std::vector<int64_t> normalized_shape;
  double eps;
  bool elementwise_affine;
};

}  // namespace ember::nn
