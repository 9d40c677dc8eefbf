// The loss modules of torch.nn: MSELoss, L1Loss, NLLLoss, CrossEntropyLoss, BCEWithLogitsLoss.
// They hold their options (public, as PyTorch's attributes); class weights are buffers,
// registered as None when not given, exactly as PyTorch registers them (so state_dict holds
// "weight" only when one was given). Every loss prints as "MSELoss()".
//
//   ember::nn::CrossEntropyLoss ce(std::nullopt, -100, "mean", /*label_smoothing=*/0.1);
//   ember::Tensor loss = ce(logits, labels);
//   loss.backward();
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

/// torch.nn.modules.loss._Loss: the reduction, and the two-input call.
class Loss : public Module {
 public:
  /// "none", "mean" or "sum"; checked when forward runs, as in PyTorch ("x is not a valid
  /// value for reduction", ValueError).
  std::string reduction;

  virtual Tensor forward(const Tensor& input, const Tensor& target) = 0;
  Value forward(const std::vector<Value>& inputs) override;
  using Module::operator();
  /// Runs hooks and forward, as Python's `loss(input, target)`.
  Tensor operator()(const Tensor& input, const Tensor& target) {
    return call({input, target}).to_tensor();
  }

 protected:
  Loss(std::string type_name, std::string reduction)
      : Module(std::move(type_name)), reduction(std::move(reduction)) {}
};

/// torch.nn.modules.loss._WeightedLoss: a "weight" buffer (None when not given).
class WeightedLoss : public Loss {
 public:
  /// The class weights, or an undefined tensor.
  Tensor& weight() { return buffer("weight"); }

 protected:
  WeightedLoss(std::string type_name, const std::optional<Tensor>& weight, std::string reduction);
};

/// mean((input - target)^2).
class MSELoss : public Loss {
 public:
  explicit MSELoss(std::string reduction = "mean") : Loss("MSELoss", std::move(reduction)) {}
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

/// mean(|input - target|).
class L1Loss : public Loss {
 public:
  explicit L1Loss(std::string reduction = "mean") : Loss("L1Loss", std::move(reduction)) {}
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

/// The negative log-likelihood of class indices, given log-probabilities.
class NLLLoss : public WeightedLoss {
 public:
  explicit NLLLoss(const std::optional<Tensor>& weight = std::nullopt, int64_t ignore_index = -100,
                   std::string reduction = "mean");
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  int64_t ignore_index;
};

/// log_softmax + NLLLoss, for class indices or class probabilities, with label smoothing.
class CrossEntropyLoss : public WeightedLoss {
 public:
  explicit CrossEntropyLoss(const std::optional<Tensor>& weight = std::nullopt,
                            int64_t ignore_index = -100, std::string reduction = "mean",
                            double label_smoothing = 0.0);
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  int64_t ignore_index;
  double label_smoothing;
};

/// Sigmoid + binary cross entropy, computed stably. Buffers "weight" and "pos_weight" (None
/// when not given).
class BCEWithLogitsLoss : public Loss {
 public:
  explicit BCEWithLogitsLoss(const std::optional<Tensor>& weight = std::nullopt,
                             std::string reduction = "mean",
                             const std::optional<Tensor>& pos_weight = std::nullopt);
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  Tensor& weight() { return buffer("weight"); }
  Tensor& pos_weight() { return buffer("pos_weight"); }
};

}  // namespace ember::nn
