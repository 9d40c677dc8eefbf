// aten::scaled_dot_product_attention (PyTorch 2.x semantics), a composite op: softmax(q k^T *
// scale + mask) v, with dropout on the weights.
//
//   Tensor out = ember::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, /*is_causal=*/true);
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember {

/// query [..., L, E], key [..., S, E], value [..., S, Ev] -> [..., L, Ev]. attn_mask broadcasts
/// to [..., L, S]: a bool mask keeps the positions that are true, a float mask is added to the
/// scores. is_causal masks position (i, j) for j > i (top-left aligned; attn_mask must then be
/// None). scale defaults to 1 / sqrt(E). dropout_p > 0 drops attention weights (always: callers
/// pass 0 outside training, as PyTorch's modules do).
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask = std::nullopt,
                                    double dropout_p = 0.0, bool is_causal = false,
                                    std::optional<double> scale = std::nullopt);

}  // namespace ember
