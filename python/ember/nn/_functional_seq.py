"""torch.nn.functional's attention functions over ember's C++ (imported by functional.py)."""
from .. import _C

_F = _C._nn
_ops = _C._op_functions

scaled_dot_product_attention = _ops["scaled_dot_product_attention"]


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    return _F.multi_head_attention_forward(
        query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k,
        bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training,
        key_padding_mask, need_weights, attn_mask, use_separate_proj_weight, q_proj_weight,
        k_proj_weight, v_proj_weight, static_k, static_v, average_attn_weights, is_causal)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    return _F.embedding_bag(input, weight, offsets, None if max_norm is None else float(max_norm),
                            float(norm_type), scale_grad_by_freq, mode, sparse,
                            per_sample_weights, include_last_offset, padding_idx)


__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward", "embedding_bag"]
