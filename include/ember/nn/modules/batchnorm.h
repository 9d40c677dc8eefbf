// torch.nn.BatchNorm1d / 2d / 3d: per-channel normalisation with batch statistics while
// training and running statistics in eval. Parameters weight (ones) and bias (zeros) when
// affine; buffers running_mean (zeros), running_var (ones) and num_batches_tracked (int64 0-d)
// when track_running_stats, else all three registered as None — PyTorch's names and order, so
// state_dicts move between the two by key.
//
//   ember::nn::BatchNorm2d bn(16);          // BatchNorm2d(16, eps=1e-05, momentum=0.1, ...)
//   ember::nn::BatchNorm1d cma(8, 1e-5, std::nullopt);   // momentum None: cumulative average
//   bn.eval();                              // now bn(x) uses the running statistics
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/options.h"
#include "ember/tensor_options.h"

namespace ember::nn {

/// PyTorch's _NormBase + _BatchNorm: the state, its reset and loading, and the forward.
class BatchNormBase : public Module {
 public:
  /// running_mean to 0, running_var to 1, num_batches_tracked to 0 (when tracked).
  void reset_running_stats();
  /// reset_running_stats, then weight to ones and bias to zeros (when affine).
  void reset_parameters();
  /// Training: normalises with the batch's statistics and, when tracking, counts the batch and
  /// updates the running statistics with momentum (None: 1 / num_batches_tracked, the
  /// cumulative moving average). Eval: the running statistics, or the batch's when they are
  /// not tracked.
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "16, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True".
  std::string extra_repr() const override;
  /// _NormBase._version: 2 (the version that added num_batches_tracked).
  int64_t version() const override { return 2; }
  /// A checkpoint of version < 2 (or without metadata) lacking num_batches_tracked gets 0 for
  /// it, as PyTorch does, so that old state_dicts load strictly.
  void _load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                             LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;

  /// Undefined (None) without affine.
  Tensor& weight() { return parameter("weight"); }
  Tensor& bias() { return parameter("bias"); }
  /// Undefined (None) without track_running_stats.
  Tensor& running_mean() { return buffer("running_mean"); }
  Tensor& running_var() { return buffer("running_var"); }
  Tensor& num_batches_tracked() { return buffer("num_batches_tracked"); }

  int64_t num_features;
  double eps;
  /// nullopt: the cumulative moving average (PyTorch's momentum=None).
  std::optional<double> momentum;
  bool affine;
  bool track_running_stats;

 protected:
  BatchNormBase(std::string type_name, int64_t num_features, double eps,
                std::optional<double> momentum, bool affine, bool track_running_stats,
                TensorOptions options);
  /// ValueError "expected 4D input (got 3D input)" and the like.
  virtual void check_input_dim(const Tensor& input) const = 0;
};

/// BatchNorm1d / 2d / 3d's arguments (libtorch's BatchNormOptions; momentum nullopt is
/// PyTorch's momentum=None, a cumulative average).
struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(bool, affine) = true;
  EMBER_ARG(bool, track_running_stats) = true;
  EMBER_ARG(TensorOptions, options) = {};
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

/// Input [N, C] or [N, C, L].
class BatchNorm1d : public BatchNormBase {
 public:
  explicit BatchNorm1d(int64_t num_features, double eps = 1e-5,
                       std::optional<double> momentum = 0.1, bool affine = true,
                       bool track_running_stats = true, TensorOptions options = {})
      : BatchNormBase("BatchNorm1d", num_features, eps, momentum, affine, track_running_stats,
                      options) {}
  explicit BatchNorm1d(const BatchNormOptions& o)
      : BatchNorm1d(o.num_features(), o.eps(), o.momentum(), o.affine(), o.track_running_stats(),
                    o.options()) {}

 protected:
  void check_input_dim(const Tensor& input) const override;
};

/// Input [N, C, H, W].
class BatchNorm2d : public BatchNormBase {
 public:
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-5,
                       std::optional<double> momentum = 0.1, bool affine = true,
                       bool track_running_stats = true, TensorOptions options = {})
      : BatchNormBase("BatchNorm2d", num_features, eps, momentum, affine, track_running_stats,
                      options) {}
  explicit BatchNorm2d(const BatchNormOptions& o)
      : BatchNorm2d(o.num_features(), o.eps(), o.momentum(), o.affine(), o.track_running_stats(),
                    o.options()) {}

 protected:
  void check_input_dim(const Tensor& input) const override;
};

/// Input [N, C, D, H, W].
class BatchNorm3d : public BatchNormBase {
 public:
  explicit BatchNorm3d(int64_t num_features, double eps = 1e-5,
                       std::optional<double> momentum = 0.1, bool affine = true,
                       bool track_running_stats = true, TensorOptions options = {})
      : BatchNormBase("BatchNorm3d", num_features, eps, momentum, affine, track_running_stats,
                      options) {}
  explicit BatchNorm3d(const BatchNormOptions& o)
      : BatchNorm3d(o.num_features(), o.eps(), o.momentum(), o.affine(), o.track_running_stats(),
                    o.options()) {}

 protected:
  void check_input_dim(const Tensor& input) const override;
};

}  // namespace ember::nn
