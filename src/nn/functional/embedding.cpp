// nn::functional::embedding: F.embedding's padding_idx handling and max_norm renormalisation,
// then aten::embedding (src/ops/index_ops.cpp).
#include "ember/grad_mode.h"
#include "ember/nn/functional.h"
#include "ember/nn/functional_embedding_bag.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/indexing.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"

namespace ember::nn::functional {

namespace detail {

// torch.embedding_renorm_: each row of `weight` that `indices` name and whose norm exceeds
// max_norm is scaled to max_norm / (norm + 1e-7), in place and outside autograd. Rows named
// twice are written twice with the same value (computed from the row as it was).
void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm,
                       double norm_type) {
  NoGradGuard no_grad;
  const Tensor idx = indices.reshape({-1});
  const Tensor rows = weight.index_select(0, idx);
  const Tensor norms = rows.norm(norm_type, std::vector<int64_t>{1}, /*keepdim=*/true);
  const Tensor scale = where(norms > max_norm, max_norm / (norms + 1e-7), ones_like(norms));
  Tensor w = weight;
  index_put_(w, {idx}, rows * scale);
}

}  // namespace detail

Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
                 std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
                 bool sparse) {
  int64_t padding = -1;
  if (padding_idx.has_value()) {
    // Python's `assert` (AssertionError there); ember reports it as a RuntimeError.
    if (*padding_idx > 0) {
      EMBER_CHECK(*padding_idx < weight.size(0), "Padding_idx must be within num_embeddings");
      padding = *padding_idx;
    } else if (*padding_idx < 0) {
      EMBER_CHECK(*padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings");
      padding = weight.size(0) + *padding_idx;
    } else {
      padding = 0;
    }
  }
  if (max_norm.has_value()) detail::embedding_renorm_(weight, input.contiguous(), *max_norm, norm_type);
  return ember::embedding(weight, input, padding, scale_grad_by_freq, sparse);
}

}  // namespace ember::nn::functional
