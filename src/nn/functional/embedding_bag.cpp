// nn::functional::embedding_bag: torch 1.13's F.embedding_bag (its argument checks and texts)
// over aten::embedding_bag.padding_idx.
#include "ember/nn/functional_embedding_bag.h"

#include "ember/ops/factory.h"
#include "ember/ops/view.h"
#include "ember/warning.h"

namespace ember::nn::functional {

Tensor embedding_bag(const Tensor& input_in, const Tensor& weight_in,
                     const std::optional<Tensor>& offsets_in, std::optional<double> max_norm,
                     double norm_type, bool scale_grad_by_freq, const std::string& mode,
                     bool sparse, const std::optional<Tensor>& psw_in, bool include_last_offset,
                     std::optional<int64_t> padding_idx) {
  Tensor input = input_in, weight = weight_in;
  if (weight.dtype() == kInt64 && is_floating(input.dtype())) {
    warn("Argument order of nn.functional.embedding_bag was changed. Usage "
         "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
         "`embedding_bag(input, weight, ...)`.");
    std::swap(input, weight);
  }
  std::optional<Tensor> psw = psw_in, offsets = offsets_in;
  if (psw) {
    EMBER_CHECK_VALUE(input.sizes() == psw->sizes(), "embedding_bag: If per_sample_weights (",
                      size_str(psw->sizes()), ") is not None, then it must have the same shape "
                      "as the input (", size_str(input.sizes()), ")");
  }
  if (input.dim() == 2) {
    EMBER_CHECK_VALUE(!offsets, "if input is 2D, then offsets has to be None, as input is "
                      "treated is a mini-batch of fixed length sequences. However, found "
                      "offsets of type <class 'ember.Tensor'>");
    offsets = arange(0, input.numel(), input.size(1),
                     TensorOptions(input.dtype()).device(input.device()));
    input = input.reshape({-1});
    if (psw) psw = psw->reshape({-1});
  } else if (input.dim() == 1) {
    EMBER_CHECK_VALUE(offsets.has_value(), "offsets has to be a 1D Tensor but got None");
    EMBER_CHECK_VALUE(offsets->dim() == 1, "offsets has to be a 1D Tensor");
  } else {
    EMBER_CHECK_VALUE(false, "input has to be 1D or 2D Tensor, but got Tensor of dimension ",
                      input.dim());
  }
  int64_t mode_enum = 0;
  if (mode == "sum") {
    mode_enum = 0;
  } else if (mode == "mean") {
    mode_enum = 1;
  } else if (mode == "max") {
    mode_enum = 2;
    EMBER_CHECK_VALUE(!scale_grad_by_freq,
                      "max mode does not support scaling the gradient by the frequency");
    EMBER_CHECK_VALUE(!sparse, "max mode does not support sparse weights");
  } else {
    EMBER_CHECK_VALUE(false, "mode has to be one of sum, mean or max");
  }
  if (max_norm) detail::embedding_renorm_(weight, input, *max_norm, norm_type);
  EMBER_CHECK_NOT_IMPLEMENTED(!psw || mode == "sum",
                              "embedding_bag: per_sample_weights was not None. "
                              "per_sample_weights is only supported for mode='sum' (got mode='",
                              mode, "'). Please open a feature request on GitHub.");
  return std::get<0>(ember::embedding_bag(weight, input, *offsets, scale_grad_by_freq, mode_enum,
                                          sparse, psw, include_last_offset, padding_idx));
}

}  // namespace ember::nn::functional
