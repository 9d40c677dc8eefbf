// nn::CTCLoss and its functional form nn::functional::ctc_loss (torch.nn.CTCLoss), over the
// aten ops ctc_loss.IntList / ctc_loss.Tensor (ember/ops/nnutils.h).
//
//   nn::CTCLoss ctc(/*blank=*/0, "mean", /*zero_infinity=*/true);
//   Tensor loss = ctc(log_probs.log_softmax(2), targets, input_lengths, target_lengths);
#pragma once

#include <string>
#include <vector>

#include "ember/nn/modules/loss.h"

namespace ember::nn {

namespace functional {
/// reduction: "none", "mean" (each loss divided by its target length, then averaged) or "sum".
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank = 0,
                const std::string& reduction = "mean", bool zero_infinity = false);
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                IntArrayRef target_lengths, int64_t blank = 0,
                const std::string& reduction = "mean", bool zero_infinity = false);
}  // namespace functional

class CTCLoss : public Loss {
 public:
  explicit CTCLoss(int64_t blank = 0, std::string reduction = "mean", bool zero_infinity = false)
      : Loss("CTCLoss", std::move(reduction)), blank(blank), zero_infinity(zero_infinity) {}
  /// Lengths as tensors or (boxed) int lists, as PyTorch's forward takes either.
  Value forward(const std::vector<Value>& inputs) override;
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths);
  Tensor forward(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                 IntArrayRef target_lengths);
  Tensor operator()(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                    const Tensor& target_lengths) {
    return call({log_probs, targets, input_lengths, target_lengths}).to_tensor();
  }
  int64_t blank;
  bool zero_infinity;

 private:
  // Loss's two-input form: CTCLoss takes four.
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

}  // namespace ember::nn
