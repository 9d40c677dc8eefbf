// torch.nn.LayerNorm: normalises over the trailing normalized_shape dims, then (with
// elementwise_affine) scales by weight (ones) and shifts by bias (zeros). torch.nn.GroupNorm:
// normalises each group of channels of every sample, then (with affine) a per-channel scale and
// shift. (BatchNorm is in batchnorm.h.)
//
//   ember::nn::LayerNorm ln(64);              // LayerNorm((64,), eps=1e-05, elementwise_affine=True)
//   ember::nn::LayerNorm ln2({8, 8}, 1e-6, false);
//   ember::nn::GroupNorm gn(4, 32);           // GroupNorm(4, 32, eps=1e-05, affine=True)
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

/// Input [N, C, *] with C = num_channels. weight and bias [num_channels] (ones and zeros), None
/// without affine. num_channels not divisible by num_groups: ValueError "num_channels must be
/// divisible by num_groups".
class GroupNorm : public Module {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true,
            TensorOptions options = {});
  void reset_parameters();
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "4, 32, eps=1e-05, affine=True".
  std::string extra_repr() const override;

  Tensor& weight() { return parameter("weight"); }
  Tensor& bias() { return parameter("bias"); }

  int64_t num_groups;
  int64_t num_channels;
  double eps;
  bool affine;
};

}  // namespace ember::nn
