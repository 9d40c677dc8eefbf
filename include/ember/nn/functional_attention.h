// nn::functional's attention: scaled_dot_product_attention and PyTorch 1.13's
// multi_head_attention_forward (the body of nn::MultiheadAttention), with its checks and texts.
//
//   namespace F = ember::nn::functional;
//   F::MultiHeadAttentionArgs a;  a.in_proj_weight = w; a.out_proj_weight = wo; ...
//   auto [out, weights] = F::multi_head_attention_forward(q, k, v, 16, 4, a);
#pragma once

#include <optional>
#include <tuple>

#include "ember/ops/attention.h"
#include "ember/tensor.h"

namespace ember::nn::functional {

using ember::scaled_dot_product_attention;

/// The parameters and options of torch.nn.functional.multi_head_attention_forward after
/// (query, key, value, embed_dim_to_check, num_heads), with its defaults.
struct MultiHeadAttentionArgs {
  std::optional<Tensor> in_proj_weight;
  std::optional<Tensor> in_proj_bias;
  std::optional<Tensor> bias_k;
  std::optional<Tensor> bias_v;
  bool add_zero_attn = false;
  double dropout_p = 0.0;
  Tensor out_proj_weight;
  std::optional<Tensor> out_proj_bias;
  bool training = true;
  std::optional<Tensor> key_padding_mask;
  bool need_weights = true;
  std::optional<Tensor> attn_mask;
  bool use_separate_proj_weight = false;
  std::optional<Tensor> q_proj_weight;
  std::optional<Tensor> k_proj_weight;
  std::optional<Tensor> v_proj_weight;
  std::optional<Tensor> static_k;
  std::optional<Tensor> static_v;
  bool average_attn_weights = true;
  /// PyTorch 2.x's hint: attn_mask (required with it) is causal.
  bool is_causal = false;
};

/// query [L, N, E] (or [L, E] unbatched), key / value [S, N, Ek / Ev] (sequence first). Returns
/// the output [L, N, E] and, when need_weights, the attention weights [N, L, S] (averaged over
/// heads) or [N, H, L, S]; otherwise an undefined tensor.
std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key,
                                                        const Tensor& value,
                                                        int64_t embed_dim_to_check,
                                                        int64_t num_heads,
                                                        const MultiHeadAttentionArgs& args);

}  // namespace ember::nn::functional
