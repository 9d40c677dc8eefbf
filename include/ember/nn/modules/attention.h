// torch.nn.MultiheadAttention (1.13's parameters, names, initialisation and repr; 2.x's is_causal
// hint in forward).
//
//   auto mha = std::make_shared<ember::nn::MultiheadAttention>(16, 4);
//   auto [out, weights] = mha->forward(x, x, x);          // x [L, N, 16]
//   auto [o2, none] = mha->forward(x, x, x, {}, /*need_weights=*/false);
#pragma once

#include <memory>
#include <optional>
#include <tuple>

#include "ember/nn/module.h"
#include "ember/nn/options.h"
#include "ember/nn/modules/linear.h"
#include "ember/tensor_options.h"

namespace ember::nn {

/// Parameters, in PyTorch's order: in_proj_weight [3E, E] (or q_proj_weight [E, E],
/// k_proj_weight [E, kdim], v_proj_weight [E, vdim] when kdim or vdim differ from E; the others
/// registered as None), in_proj_bias [3E] (None without bias), out_proj (a Linear printed as
/// NonDynamicallyQuantizableLinear), bias_k / bias_v [1, 1, E] with add_bias_kv.
/// Initialisation: xavier_uniform_ on the projections, zero biases, xavier_normal_ on bias_k / v.
/// MultiheadAttention's arguments (libtorch's MultiheadAttentionOptions, with PyTorch's
/// batch_first).
struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads) {}
  EMBER_ARG(int64_t, embed_dim);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, add_bias_kv) = false;
  EMBER_ARG(bool, add_zero_attn) = false;
  EMBER_ARG(std::optional<int64_t>, kdim) = std::nullopt;
  EMBER_ARG(std::optional<int64_t>, vdim) = std::nullopt;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(TensorOptions, options) = {};
};

class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, double dropout = 0.0, bool bias = true,
                     bool add_bias_kv = false, bool add_zero_attn = false,
                     std::optional<int64_t> kdim = std::nullopt,
                     std::optional<int64_t> vdim = std::nullopt, bool batch_first = false,
                     TensorOptions options = {});
  explicit MultiheadAttention(const MultiheadAttentionOptions& o)
      : MultiheadAttention(o.embed_dim(), o.num_heads(), o.dropout(), o.bias(), o.add_bias_kv(),
                           o.add_zero_attn(), o.kdim(), o.vdim(), o.batch_first(), o.options()) {}
  /// PyTorch's _reset_parameters.
  void reset_parameters();

  /// (attn_output, attn_output_weights or an undefined tensor when !need_weights).
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const std::optional<Tensor>& key_padding_mask = std::nullopt,
                                     bool need_weights = true,
                                     const std::optional<Tensor>& attn_mask = std::nullopt,
                                     bool average_attn_weights = true, bool is_causal = false);
  /// (query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
  /// average_attn_weights=True, is_causal=False) -> (output, weights or None).
  Value forward(const std::vector<Value>& inputs) override;

  /// The child "out_proj" (looked up by name: a load or Python may replace it).
  Module& out_proj() const { return *child("out_proj"); }

  int64_t embed_dim;
  int64_t kdim;
  int64_t vdim;
  bool _qkv_same_embed_dim;
  int64_t num_heads;
  double dropout;
  bool batch_first;
  int64_t head_dim;
  bool add_zero_attn;
};

}  // namespace ember::nn
