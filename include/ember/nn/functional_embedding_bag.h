// nn::functional::embedding_bag: torch.nn.functional.embedding_bag's checks (2-d input as
// fixed-length bags, mode names, max_norm renormalisation) over aten::embedding_bag.
//
//   Tensor out = F::embedding_bag(idx, weight, offsets, std::nullopt, 2.0, false, "sum");
#pragma once

#include <optional>
#include <string>

#include "ember/ops/embedding_bag.h"
#include "ember/tensor.h"

namespace ember::nn::functional {

Tensor embedding_bag(const Tensor& input, const Tensor& weight,
                     const std::optional<Tensor>& offsets = std::nullopt,
                     std::optional<double> max_norm = std::nullopt, double norm_type = 2.0,
                     bool scale_grad_by_freq = false, const std::string& mode = "mean",
                     bool sparse = false,
                     const std::optional<Tensor>& per_sample_weights = std::nullopt,
                     bool include_last_offset = false,
                     std::optional<int64_t> padding_idx = std::nullopt);

namespace detail {
/// torch.embedding_renorm_ (no grad, in place): the rows `indices` name are scaled down to
/// max_norm (shared by embedding and embedding_bag).
void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm,
                       double norm_type);
}  // namespace detail

}  // namespace ember::nn::functional
