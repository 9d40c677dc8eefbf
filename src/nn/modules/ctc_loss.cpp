// nn::CTCLoss and F::ctc_loss: the reduction string to PyTorch's enum, then the aten op.
#include "ember/nn/modules/ctc_loss.h"

#include "ember/error.h"
#include "ember/nn/functional.h"
#include "ember/ops/nnutils.h"
#include "module_util.h"

namespace ember::nn {

namespace functional {
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, const std::string& reduction,
                bool zero_infinity) {
  const auto r = static_cast<int64_t>(reduction_from_string(reduction));
  return ember::ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, r, zero_infinity);
}
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                IntArrayRef target_lengths, int64_t blank, const std::string& reduction,
                bool zero_infinity) {
  const auto r = static_cast<int64_t>(reduction_from_string(reduction));
  return ember::ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, r, zero_infinity);
}
}  // namespace functional

Value CTCLoss::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs,
                               {"log_probs", "targets", "input_lengths", "target_lengths"});
  const Tensor log_probs = inputs[0].to_tensor(), targets = inputs[1].to_tensor();
  if (inputs[2].is_tensor() && inputs[3].is_tensor()) {
    return forward(log_probs, targets, inputs[2].to_tensor(), inputs[3].to_tensor());
  }
  auto ints = [](const Value& v) -> std::vector<int64_t> {
    if (v.is_tensor()) {
      const Tensor t = v.to_tensor().to(kInt64).contiguous();
      return {t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel()};
    }
    if (v.is_int()) return {v.to_int()};
    return v.to_int_list();
  };
  return forward(log_probs, targets, ints(inputs[2]), ints(inputs[3]));
}

Tensor CTCLoss::forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                        const Tensor& target_lengths) {
  return functional::ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                              zero_infinity);
}

Tensor CTCLoss::forward(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                        IntArrayRef target_lengths) {
  return functional::ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                              zero_infinity);
}

Tensor CTCLoss::forward(const Tensor&, const Tensor&) {
  EMBER_FAIL_KIND(ErrorKind::Type,
                  "CTCLoss.forward() missing 2 required positional arguments: 'input_lengths' "
                  "and 'target_lengths'");
}

}  // namespace ember::nn
