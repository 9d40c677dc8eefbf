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
#include "ember/nn/options.h"
#include "ember/tensor_options.h"

namespace ember::nn {

/// LayerNorm's arguments (libtorch's LayerNormOptions).
struct LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, elementwise_affine) = true;
  EMBER_ARG(TensorOptions, options) = {};
};

/// GroupNorm's arguments (libtorch's GroupNormOptions).
struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(int64_t, num_channels);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, affine) = true;
  EMBER_ARG(TensorOptions, options) = {};
};

class LayerNorm : public Module {
 public:
  LayerNorm(std::vector<int64_t> normalized_shape, double eps = 1e-5,
            bool elementwise_affine = true, TensorOptions options = {});
  /// normalized_shape = (n,), as PyTorch accepts an int.
  explicit LayerNorm(int64_t normalized_shape, double eps = 1e-5, bool elementwise_affine = true,
                     TensorOptions options = {})
      : LayerNorm(std::vector<int64_t>{normalized_shape}, eps, elementwise_affine, options) {}
  explicit LayerNorm(const LayerNormOptions& o)
      : LayerNorm(o.normalized_shape(), o.eps(), o.elementwise_affine(), o.options()) {}

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
  explicit GroupNorm(const GroupNormOptions& o)
      : GroupNorm(o.num_groups(), o.num_channels(), o.eps(), o.affine(), o.options()) {}
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
