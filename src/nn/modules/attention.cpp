// nn::MultiheadAttention: PyTorch 1.13's module around multi_head_attention_forward.
#include "ember/nn/modules/attention.h"

#include "ember/nn/functional_attention.h"
#include "ember/nn/init.h"
#include "ember/nn/module_clone.h"
#include "ember/ops/factory.h"
#include "module_util.h"
#include "seq_util.h"

namespace ember::nn {

namespace F = functional;

MultiheadAttention::MultiheadAttention(int64_t embed_dim_, int64_t num_heads_, double dropout_,
                                       bool bias, bool add_bias_kv, bool add_zero_attn_,
                                       std::optional<int64_t> kdim_, std::optional<int64_t> vdim_,
                                       bool batch_first_, TensorOptions options)
    : Module("MultiheadAttention"),
      embed_dim(embed_dim_),
      kdim(kdim_.value_or(embed_dim_)),
      vdim(vdim_.value_or(embed_dim_)),
      _qkv_same_embed_dim(kdim == embed_dim_ && vdim == embed_dim_),
      num_heads(num_heads_),
      dropout(dropout_),
      batch_first(batch_first_),
      head_dim(num_heads_ != 0 ? embed_dim_ / num_heads_ : 0),
      add_zero_attn(add_zero_attn_) {
  // Python would raise ZeroDivisionError for num_heads=0 first.
  EMBER_CHECK_VALUE(num_heads != 0, "integer division or modulo by zero");
  EMBER_CHECK_ASSERTION(head_dim * num_heads == embed_dim, "embed_dim must be divisible by num_heads");
  if (!_qkv_same_embed_dim) {
    register_parameter("q_proj_weight", empty({embed_dim, embed_dim}, options));
    register_parameter("k_proj_weight", empty({embed_dim, kdim}, options));
    register_parameter("v_proj_weight", empty({embed_dim, vdim}, options));
    register_parameter("in_proj_weight", Tensor());
  } else {
    register_parameter("in_proj_weight", empty({3 * embed_dim, embed_dim}, options));
    register_parameter("q_proj_weight", Tensor());
    register_parameter("k_proj_weight", Tensor());
    register_parameter("v_proj_weight", Tensor());
  }
  register_parameter("in_proj_bias", bias ? empty({3 * embed_dim}, options) : Tensor());
  auto proj = register_module("out_proj",
                               std::make_shared<Linear>(embed_dim, embed_dim, bias, options));
  proj->set_type_name("NonDynamicallyQuantizableLinear");
  // Without add_bias_kv PyTorch keeps plain None attributes: None slots (not in state_dict).
  register_parameter("bias_k", add_bias_kv ? empty({1, 1, embed_dim}, options) : Tensor());
  register_parameter("bias_v", add_bias_kv ? empty({1, 1, embed_dim}, options) : Tensor());
  reset_parameters();
}

void MultiheadAttention::reset_parameters() {
  if (_qkv_same_embed_dim) {
    init::xavier_uniform_(parameter("in_proj_weight"));
  } else {
    init::xavier_uniform_(parameter("q_proj_weight"));
    init::xavier_uniform_(parameter("k_proj_weight"));
    init::xavier_uniform_(parameter("v_proj_weight"));
  }
  if (parameter("in_proj_bias").defined()) {
    init::constant_(parameter("in_proj_bias"), 0.);
    init::constant_(out_proj().parameter("bias"), 0.);
  }
  if (has_parameter("bias_k") && parameter("bias_k").defined()) init::xavier_normal_(parameter("bias_k"));
  if (has_parameter("bias_v") && parameter("bias_v").defined()) init::xavier_normal_(parameter("bias_v"));
}

std::tuple<Tensor, Tensor> MultiheadAttention::forward(
    const Tensor& query_in, const Tensor& key_in, const Tensor& value_in,
    const std::optional<Tensor>& key_padding_mask, bool need_weights,
    const std::optional<Tensor>& attn_mask, bool average_attn_weights, bool is_causal) {
  const bool is_batched = query_in.dim() == 3;
  Tensor query = query_in, key = key_in, value = value_in;
  if (batch_first && is_batched) {
    // As PyTorch: transposes keep the self-attention identities (query is key is value).
    if (key_in.is_same(value_in)) {
      if (query_in.is_same(key_in)) {
        query = key = value = query_in.transpose(1, 0);
      } else {
        query = query_in.transpose(1, 0);
        key = value = key_in.transpose(1, 0);
      }
    } else {
      query = query_in.transpose(1, 0);
      key = key_in.transpose(1, 0);
      value = value_in.transpose(1, 0);
    }
  }
  F::MultiHeadAttentionArgs a;
  a.in_proj_weight = detail::optional_tensor(parameter("in_proj_weight"));
  a.in_proj_bias = detail::optional_tensor(parameter("in_proj_bias"));
  if (has_parameter("bias_k")) a.bias_k = detail::optional_tensor(parameter("bias_k"));
  if (has_parameter("bias_v")) a.bias_v = detail::optional_tensor(parameter("bias_v"));
  a.add_zero_attn = add_zero_attn;
  a.dropout_p = dropout;
  Module& proj = out_proj();
  a.out_proj_weight = proj.parameter("weight");
  a.out_proj_bias = detail::optional_tensor(proj.parameter("bias"));
  a.training = is_training();
  a.key_padding_mask = key_padding_mask;
  a.need_weights = need_weights;
  a.attn_mask = attn_mask;
  a.average_attn_weights = average_attn_weights;
  a.is_causal = is_causal;
  if (!_qkv_same_embed_dim) {
    a.use_separate_proj_weight = true;
    a.q_proj_weight = detail::optional_tensor(parameter("q_proj_weight"));
    a.k_proj_weight = detail::optional_tensor(parameter("k_proj_weight"));
    a.v_proj_weight = detail::optional_tensor(parameter("v_proj_weight"));
  }
  auto [out, weights] = F::multi_head_attention_forward(query, key, value, embed_dim, num_heads, a);
  if (batch_first && is_batched) out = out.transpose(1, 0);
  return {out, weights};
}

Value MultiheadAttention::forward(const std::vector<Value>& in) {
  detail::check_seq_forward_inputs(type_name(), in, {"query", "key", "value"}, 5);
  auto opt_arg = [&](size_t i) { return detail::value_opt_tensor(in, i); };
  auto bool_arg = [&](size_t i, bool d) { return detail::value_bool(in, i, d); };
  auto [out, w] = forward(in[0].to_tensor(), in[1].to_tensor(), in[2].to_tensor(), opt_arg(3),
                          bool_arg(4, true), opt_arg(5), bool_arg(6, true), bool_arg(7, false));
  return Value(std::vector<Tensor>{out, w});
}

namespace {
const bool registered = (register_cloneable<MultiheadAttention>(), true);
}

}  // namespace ember::nn
