// nn loss modules: buffers as PyTorch registers them, then nn::functional with the reduction.
#include "ember/nn/modules/loss.h"

#include "ember/nn/functional.h"
#include "module_util.h"

namespace ember::nn {

namespace F = functional;

Value Loss::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input", "target"});
  return forward(inputs[0].to_tensor(), inputs[1].to_tensor());
}

// PyTorch's register_buffer('weight', weight) with weight possibly None: registered as absent,
// so state_dict skips it and a checkpoint key "weight" is reported as unexpected.
WeightedLoss::WeightedLoss(std::string type_name, const std::optional<Tensor>& weight,
                           std::string reduction)
    : Loss(std::move(type_name), std::move(reduction)) {
  register_buffer("weight", weight.value_or(Tensor()));
}

Tensor MSELoss::forward(const Tensor& input, const Tensor& target) {
  return F::mse_loss(input, target, F::reduction_from_string(reduction));
}

Tensor L1Loss::forward(const Tensor& input, const Tensor& target) {
  return F::l1_loss(input, target, F::reduction_from_string(reduction));
}

NLLLoss::NLLLoss(const std::optional<Tensor>& weight, int64_t ignore_index_, std::string reduction)
    : WeightedLoss("NLLLoss", weight, std::move(reduction)), ignore_index(ignore_index_) {}

Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) {
  return F::nll_loss(input, target, detail::optional_tensor(weight()), ignore_index,
                     F::reduction_from_string(reduction));
}

CrossEntropyLoss::CrossEntropyLoss(const std::optional<Tensor>& weight, int64_t ignore_index_,
                                   std::string reduction, double label_smoothing_)
    : WeightedLoss("CrossEntropyLoss", weight, std::move(reduction)),
      ignore_index(ignore_index_),
      label_smoothing(label_smoothing_) {}

Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) {
  return F::cross_entropy(input, target, detail::optional_tensor(weight()), ignore_index,
                          F::reduction_from_string(reduction), label_smoothing);
}

BCEWithLogitsLoss::BCEWithLogitsLoss(const std::optional<Tensor>& weight, std::string reduction,
                                     const std::optional<Tensor>& pos_weight)
    : Loss("BCEWithLogitsLoss", std::move(reduction)) {
  register_buffer("weight", weight.value_or(Tensor()));
  register_buffer("pos_weight", pos_weight.value_or(Tensor()));
}

Tensor BCEWithLogitsLoss::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy_with_logits(input, target, detail::optional_tensor(weight()),
                                             F::reduction_from_string(reduction),
                                             detail::optional_tensor(pos_weight()));
}

}  // namespace ember::nn
