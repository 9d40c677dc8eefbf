// torch.ao.nn.quantized.LayerNorm, GroupNorm, InstanceNorm1d / 2d / 3d, BatchNorm3d and
// torch.ao.nn.intrinsic.quantized.BNReLU3d: the float modules' state (the weight and bias given
// are installed as the parameters, as PyTorch assigns them) plus "scale" (0-dim float32) and
// "zero_point" (0-dim int64) buffers for the output, running quantized::layer_norm, group_norm,
// instance_norm, batch_norm3d(_relu).
//
//   ember::nn::quantized::LayerNorm ln({64}, weight, bias, /*scale=*/0.05, /*zero_point=*/128);
//   ember::Tensor y = ln(qx);   // QuantizedLayerNorm((64,), eps=1e-05, elementwise_affine=True)
#pragma once

#include <optional>
#include <vector>

#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/normalization.h"

namespace ember::nn::quantized {

class LayerNorm : public nn::LayerNorm {
 public:
  LayerNorm(std::vector<int64_t> normalized_shape, const std::optional<Tensor>& weight,
            const std::optional<Tensor>& bias, double scale, int64_t zero_point,
            double eps = 1e-5, bool elementwise_affine = true, TensorOptions options = {});
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<LayerNorm> from_float(Module& observed);
};

class GroupNorm : public nn::GroupNorm {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, const std::optional<Tensor>& weight,
            const std::optional<Tensor>& bias, double scale, int64_t zero_point,
            double eps = 1e-5, bool affine = true, TensorOptions options = {});
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<GroupNorm> from_float(Module& observed);
};

/// PyTorch's _InstanceNorm state (a _NormBase: version 2, running statistics when tracked);
/// the weight and bias are parameters whatever `affine` says.
class InstanceNorm : public BatchNormBase {
 public:
  InstanceNorm(int spatial_dims, int64_t num_features, const std::optional<Tensor>& weight,
               const std::optional<Tensor>& bias, double scale, int64_t zero_point,
               double eps = 1e-5, double momentum = 0.1, bool affine = false,
               bool track_running_stats = false, TensorOptions options = {});
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;

 protected:
  void check_input_dim(const Tensor& input) const override;
};

#define EMBER_QINSTANCE_NORM(N)                                                               \
  class InstanceNorm##N##d : public InstanceNorm {                                            \
   public:                                                                                    \
    InstanceNorm##N##d(int64_t num_features, const std::optional<Tensor>& weight,             \
                       const std::optional<Tensor>& bias, double scale, int64_t zero_point,   \
                       double eps = 1e-5, double momentum = 0.1, bool affine = false,         \
                       bool track_running_stats = false, TensorOptions options = {})          \
        : InstanceNorm(N, num_features, weight, bias, scale, zero_point, eps, momentum,       \
                       affine, track_running_stats, options) {}                               \
    /** torch's from_float: the quantized twin of an observed float module. */               \
    static std::shared_ptr<InstanceNorm##N##d> from_float(Module& observed);                  \
  };
EMBER_QINSTANCE_NORM(1)
EMBER_QINSTANCE_NORM(2)
EMBER_QINSTANCE_NORM(3)
#undef EMBER_QINSTANCE_NORM

class BatchNorm3d : public nn::BatchNorm3d {
 public:
  explicit BatchNorm3d(int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                       TensorOptions options = {});
  virtual Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<BatchNorm3d> from_float(Module& observed);

 protected:
  BatchNorm3d(std::string type_name, int64_t num_features, double eps, double momentum,
              TensorOptions options);
  double output_scale();
  int64_t output_zero_point();
};

/// BatchNorm3d then ReLU ("QuantizedBNReLU3d"); 5-d inputs only (ValueError otherwise).
class BNReLU3d : public BatchNorm3d {
 public:
  explicit BNReLU3d(int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                    TensorOptions options = {});
  Tensor forward(const Tensor& input) override;
  using BatchNorm3d::forward;
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<BNReLU3d> from_float(Module& observed);
};

}  // namespace ember::nn::quantized
