// nn::BatchNorm1d/2d/3d: PyTorch 1.13's _NormBase / _BatchNorm — state, reset, version-2
// loading, the momentum (None: cumulative average) and train/eval logic, and repr.
#include "ember/nn/modules/batchnorm.h"

#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/ops/factory.h"
#include "module_util.h"

namespace ember::nn {

BatchNormBase::BatchNormBase(std::string type_name, int64_t num_features_, double eps_,
                             std::optional<double> momentum_, bool affine_,
                             bool track_running_stats_, TensorOptions options)
    : Module(std::move(type_name)),
      num_features(num_features_),
      eps(eps_),
      momentum(momentum_),
      affine(affine_),
      track_running_stats(track_running_stats_) {
  register_parameter("weight", affine ? empty({num_features}, options) : Tensor());
  register_parameter("bias", affine ? empty({num_features}, options) : Tensor());
  if (track_running_stats) {
    register_buffer("running_mean", zeros({num_features}, options));
    register_buffer("running_var", ones({num_features}, options));
    // int64 whatever the options' dtype (PyTorch drops the dtype from the factory kwargs).
    register_buffer("num_batches_tracked",
                    zeros({}, TensorOptions(kInt64).device(options.device_)));
  } else {
    register_buffer("running_mean", Tensor());
    register_buffer("running_var", Tensor());
    register_buffer("num_batches_tracked", Tensor());
  }
  reset_parameters();
}

void BatchNormBase::reset_running_stats() {
  if (!track_running_stats) return;
  running_mean().zero_();
  running_var().fill_(1);
  num_batches_tracked().zero_();
}

void BatchNormBase::reset_parameters() {
  reset_running_stats();
  if (!affine) return;
  init::ones_(weight());
  init::zeros_(bias());
}

Tensor BatchNormBase::forward(const Tensor& input) {
  check_input_dim(input);
  double factor = momentum.value_or(0.0);
  if (is_training() && track_running_stats && num_batches_tracked().defined()) {
    num_batches_tracked().add_(1);
    if (!momentum) factor = 1.0 / static_cast<double>(num_batches_tracked().item<int64_t>());
  }
  // Batch statistics while training, and in eval when there are no running ones to use.
  const bool bn_training =
      is_training() || (!running_mean().defined() && !running_var().defined());
  // The buffers go in when they are to be updated (training and tracked) or used (eval).
  const bool pass_stats = !is_training() || track_running_stats;
  return functional::batch_norm(
      input, pass_stats ? detail::optional_tensor(running_mean()) : std::nullopt,
      pass_stats ? detail::optional_tensor(running_var()) : std::nullopt,
      detail::optional_tensor(weight()), detail::optional_tensor(bias()), bn_training, factor,
      eps);
}

Value BatchNormBase::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::string BatchNormBase::extra_repr() const {
  return std::to_string(num_features) + ", eps=" + detail::py_float(eps) +
         ", momentum=" + (momentum ? detail::py_float(*momentum) : std::string("None")) +
         ", affine=" + detail::py_bool(affine) +
         ", track_running_stats=" + detail::py_bool(track_running_stats);
}

void BatchNormBase::_load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                                          LocalMetadata& local_metadata, bool strict,
                                          std::vector<std::string>& missing_keys,
                                          std::vector<std::string>& unexpected_keys,
                                          std::vector<std::string>& error_msgs) {
  auto it = local_metadata.find("version");
  const bool old = it == local_metadata.end() || !it->second.is_int() || it->second.to_int() < 2;
  if (old && track_running_stats) {
    const std::string key = prefix + "num_batches_tracked";
    if (!state_dict.contains(key)) state_dict.insert(key, Value(zeros({}, kInt64)));
  }
  Module::_load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                unexpected_keys, error_msgs);
}

void BatchNorm1d::check_input_dim(const Tensor& input) const {
  EMBER_CHECK_VALUE(input.dim() == 2 || input.dim() == 3, "expected 2D or 3D input (got ",
                    input.dim(), "D input)");
}

void BatchNorm2d::check_input_dim(const Tensor& input) const {
  EMBER_CHECK_VALUE(input.dim() == 4, "expected 4D input (got ", input.dim(), "D input)");
}

void BatchNorm3d::check_input_dim(const Tensor& input) const {
  EMBER_CHECK_VALUE(input.dim() == 5, "expected 5D input (got ", input.dim(), "D input)");
}

}  // namespace ember::nn
