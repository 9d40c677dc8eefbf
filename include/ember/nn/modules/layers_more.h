// More layers of torch.nn (issue 16): InstanceNorm1d / 2d / 3d, LocalResponseNorm, Unflatten,
// PixelShuffle, PixelUnshuffle, ChannelShuffle, Fold, Unfold, UpsamplingNearest2d /
// UpsamplingBilinear2d, CosineSimilarity, PairwiseDistance, Dropout1d / 3d, AlphaDropout,
// FeatureAlphaDropout. PyTorch's constructor arguments, attributes, state_dict keys and reprs.
//
//   ember::nn::InstanceNorm2d norm(16, 1e-5, 0.1, /*affine=*/true);
//   ember::nn::PixelShuffle up(2);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/modules/activation_more.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/upsampling.h"
#include "ember/nn/modules/utils.h"
#include "ember/tensor_options.h"

namespace ember::nn {

/// PyTorch's _InstanceNorm: _NormBase's parameters and buffers (affine and
/// track_running_stats default to false), F.instance_norm in forward.
class InstanceNormBase : public BatchNormBase {
 public:
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;

 protected:
  InstanceNormBase(std::string type_name, size_t no_batch_dim, int64_t num_features, double eps,
                   std::optional<double> momentum, bool affine, bool track_running_stats,
                   TensorOptions options);
  void check_input_dim(const Tensor& input) const override;
  Tensor apply(const Tensor& input);
  size_t no_batch_dim_;
};

/// InstanceNorm1d / 2d / 3d's arguments (libtorch's InstanceNormOptions).
struct InstanceNormOptions {
  InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(bool, affine) = false;
  EMBER_ARG(bool, track_running_stats) = false;
  EMBER_ARG(TensorOptions, options) = {};
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

#define EMBER_INSTANCE_NORM(Name, no_batch)                                                    \
  class Name : public InstanceNormBase {                                                       \
   public:                                                                                     \
    explicit Name(int64_t num_features, double eps = 1e-5,                                     \
                  std::optional<double> momentum = 0.1, bool affine = false,                   \
                  bool track_running_stats = false, TensorOptions options = {})                \
        : InstanceNormBase(#Name, no_batch, num_features, eps, momentum, affine,               \
                           track_running_stats, options) {}                                    \
    explicit Name(const InstanceNormOptions& o)                                                \
        : Name(o.num_features(), o.eps(), o.momentum(), o.affine(), o.track_running_stats(),   \
               o.options()) {}                                                                 \
  };
EMBER_INSTANCE_NORM(InstanceNorm1d, 2)
EMBER_INSTANCE_NORM(InstanceNorm2d, 3)
EMBER_INSTANCE_NORM(InstanceNorm3d, 4)
#undef EMBER_INSTANCE_NORM

class LocalResponseNorm : public Module {
 public:
  explicit LocalResponseNorm(int64_t size, Number alpha = 1e-4, Number beta = 0.75, Number k = 1.0)
      : Module("LocalResponseNorm"), size(size), alpha(alpha), beta(beta), k(k) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "2, alpha=0.0001, beta=0.75, k=1.0".
  std::string extra_repr() const override;
  int64_t size;
  Number alpha, beta, k;
};

class Unflatten : public Module {
 public:
  Unflatten(int64_t dim, std::vector<int64_t> unflattened_size)
      : Module("Unflatten"), dim(dim), unflattened_size(std::move(unflattened_size)) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "dim=1, unflattened_size=(2, 3)".
  std::string extra_repr() const override;
  int64_t dim;
  std::vector<int64_t> unflattened_size;
};

/// PixelShuffle, PixelUnshuffle and ChannelShuffle: one int factor.
class ShuffleLayer : public Module {
 public:
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  std::string extra_repr() const override;
  int64_t factor;

 protected:
  ShuffleLayer(std::string type_name, int64_t factor) : Module(std::move(type_name)), factor(factor) {}
};
class PixelShuffle : public ShuffleLayer {
 public:
  explicit PixelShuffle(int64_t upscale_factor) : ShuffleLayer("PixelShuffle", upscale_factor) {}
};
class PixelUnshuffle : public ShuffleLayer {
 public:
  explicit PixelUnshuffle(int64_t downscale_factor) : ShuffleLayer("PixelUnshuffle", downscale_factor) {}
};
class ChannelShuffle : public ShuffleLayer {
 public:
  explicit ChannelShuffle(int64_t groups) : ShuffleLayer("ChannelShuffle", groups) {}
};

/// Fold (col2im) and Unfold (im2col).
class Fold : public Module {
 public:
  Fold(IntOrTuple output_size, IntOrTuple kernel_size, IntOrTuple dilation = 1,
       IntOrTuple padding = 0, IntOrTuple stride = 1)
      : Module("Fold"), output_size(std::move(output_size)), kernel_size(std::move(kernel_size)),
        dilation(std::move(dilation)), padding(std::move(padding)), stride(std::move(stride)) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  std::string extra_repr() const override;
  IntOrTuple output_size, kernel_size, dilation, padding, stride;
};

class Unfold : public Module {
 public:
  Unfold(IntOrTuple kernel_size, IntOrTuple dilation = 1, IntOrTuple padding = 0, IntOrTuple stride = 1)
      : Module("Unfold"), kernel_size(std::move(kernel_size)), dilation(std::move(dilation)),
        padding(std::move(padding)), stride(std::move(stride)) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  std::string extra_repr() const override;
  IntOrTuple kernel_size, dilation, padding, stride;
};

class UpsamplingNearest2d : public Upsample {
 public:
  explicit UpsamplingNearest2d(std::optional<IntOrTuple> size = std::nullopt,
                               std::optional<std::vector<double>> scale_factor = std::nullopt);
};
class UpsamplingBilinear2d : public Upsample {
 public:
  explicit UpsamplingBilinear2d(std::optional<IntOrTuple> size = std::nullopt,
                                std::optional<std::vector<double>> scale_factor = std::nullopt);
};

/// Two-input layers.
class CosineSimilarity : public Module {
 public:
  explicit CosineSimilarity(int64_t dim = 1, double eps = 1e-8) : Module("CosineSimilarity"), dim(dim), eps(eps) {}
  Tensor forward(const Tensor& x1, const Tensor& x2);
  Value forward(const std::vector<Value>& inputs) override;
  int64_t dim;
  double eps;
};

class PairwiseDistance : public Module {
 public:
  explicit PairwiseDistance(double p = 2.0, double eps = 1e-6, bool keepdim = false)
      : Module("PairwiseDistance"), norm(p), eps(eps), keepdim(keepdim) {}
  Tensor forward(const Tensor& x1, const Tensor& x2);
  Value forward(const std::vector<Value>& inputs) override;
  double norm;
  double eps;
  bool keepdim;
};

/// Dropout1d, Dropout3d, AlphaDropout, FeatureAlphaDropout ("p=0.5, inplace=False").
class DropoutNd : public Module {
 public:
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  std::string extra_repr() const override;
  double p;
  bool inplace;

 protected:
  DropoutNd(std::string type_name, double p, bool inplace);
};
#define EMBER_DROPOUT_LAYER(Name)                                                          \
  class Name : public DropoutNd {                                                          \
   public:                                                                                 \
    explicit Name(double p = 0.5, bool inplace = false) : DropoutNd(#Name, p, inplace) {} \
  };
EMBER_DROPOUT_LAYER(Dropout1d)
EMBER_DROPOUT_LAYER(Dropout3d)
EMBER_DROPOUT_LAYER(AlphaDropout)
EMBER_DROPOUT_LAYER(FeatureAlphaDropout)
#undef EMBER_DROPOUT_LAYER

}  // namespace ember::nn
