// aten::scaled_dot_product_attention: PyTorch 2.x's math path as a composite. Every step is a
// dispatched op (matmul, add, _softmax, dropout), so autograd records through it and a
// dispatch-level override sees the pieces.
#include "ember/ops/attention.h"

#include <cmath>
#include <limits>

#include "../dispatch/boxing.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/random.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"
#include "elementwise.h"

namespace ember {

using dispatch::OpId;

namespace {

// sdp::convert_boolean_attn_mask: true keeps a position (0), false masks it (-inf).
Tensor additive_mask(const Tensor& mask, ScalarType dtype) {
  if (mask.dtype() != kBool) return mask;
  Tensor bias = zeros(mask.sizes(), TensorOptions(dtype).device(mask.device()));
  return masked_fill(bias, mask.logical_not(), -std::numeric_limits<double>::infinity());
}

Tensor sdpa_impl(const Tensor& query, const Tensor& key, const Tensor& value,
                 const std::optional<Tensor>& attn_mask, double dropout_p, bool is_causal,
                 std::optional<double> scale) {
  EMBER_CHECK(query.dtype() == key.dtype() && query.dtype() == value.dtype(),
              "Expected query, key, and value to have the same dtype, but got query.dtype: ",
              scalar_type_name(query.dtype()), " key.dtype: ", scalar_type_name(key.dtype()),
              " and value.dtype: ", scalar_type_name(value.dtype()), " instead.");
  EMBER_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2,
              "Expected query, key, and value to all be at least 2 dimensional, but got "
              "query.dim: ", query.dim(), " key.dim: ", key.dim(), " and value.dim: ",
              value.dim(), " instead.");
  EMBER_CHECK(is_floating(query.dtype()), "\"baddbmm_with_gemm\" not implemented for '",
              scalar_type_name(query.dtype()), "'");
  const bool has_mask = attn_mask.has_value() && attn_mask->defined();
  if (has_mask) {
    EMBER_CHECK(attn_mask->dtype() == kBool || attn_mask->dtype() == query.dtype(),
                "Expected attn_mask dtype to be bool or to match query dtype, but got "
                "attn_mask.dtype: ", scalar_type_name(attn_mask->dtype()), " and  query.dtype: ",
                scalar_type_name(query.dtype()), " instead.");
  }
  EMBER_CHECK(dropout_p >= 0 && dropout_p <= 1,
              "dropout probability has to be between 0 and 1, but got ", dropout_p);
  // As PyTorch's math kernel: q and k are each scaled by sqrt(scale) before the product (for
  // stability), a negative scale going onto q.
  const double s = scale.has_value() ? *scale
                                     : 1.0 / std::sqrt(static_cast<double>(query.size(-1)));
  const double root = std::sqrt(std::abs(s));
  const Tensor q = query * (s < 0 ? -root : root);
  std::optional<Tensor> mask;
  if (has_mask) mask = additive_mask(*attn_mask, query.dtype());
  if (is_causal) {
    EMBER_CHECK(!has_mask,
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                "is_causal=True");
    const int64_t L = query.size(-2), S = key.size(-2);
    const TensorOptions idx = TensorOptions(kInt64).device(query.device());
    // ones(L, S).tril(): position (i, j) takes part when j <= i.
    const Tensor keep = ge(arange(L, idx).unsqueeze(1), arange(S, idx).unsqueeze(0));
    mask = additive_mask(keep, query.dtype());
  }
  Tensor attn = matmul(q, transpose(key, -2, -1) * root);
  if (mask) attn = attn + *mask;
  attn = softmax(attn, -1);
  if (dropout_p > 0.0) attn = dropout(attn, dropout_p, true);
  return matmul(attn, value);
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p,
                                    bool is_causal, std::optional<double> scale) {
  return dispatch::call<sdpa_impl>(OpId::scaled_dot_product_attention, query, key, value,
                                   attn_mask, dropout_p, is_causal, scale);
}

EMBER_REGISTER_OP(scaled_dot_product_attention, &scaled_dot_product_attention);

}  // namespace ember
