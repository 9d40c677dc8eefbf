// nn::functional::multi_head_attention_forward: PyTorch 1.13's algorithm (torch/nn/functional.py),
// its shape checks as AssertionErrors / RuntimeErrors with the same texts, and 2.x's is_causal
// hint. Every step is a Tensor op, so autograd records through it.
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "ember/nn/functional.h"
#include "ember/nn/functional_attention.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/linalg.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/pooling.h"
#include "ember/ops/random.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"
#include "ember/warning.h"

namespace ember::nn::functional {

namespace {

std::string tuple_str(std::initializer_list<int64_t> v) {
  std::ostringstream s;
  s << "(";
  size_t i = 0;
  for (int64_t x : v) s << (i++ ? ", " : "") << x;
  if (v.size() == 1) s << ",";
  s << ")";
  return s.str();
}

bool shape_is(const Tensor& t, std::initializer_list<int64_t> v) {
  return t.sizes().vec() == std::vector<int64_t>(v);
}

const Tensor* opt(const std::optional<Tensor>& t) {
  return t.has_value() && t->defined() ? &*t : nullptr;
}

// _mha_shape_check: whether the input is batched.
bool mha_shape_check(const Tensor& query, const Tensor& key, const Tensor& value,
                     const Tensor* kpm, const Tensor* mask, int64_t num_heads) {
  if (query.dim() == 3) {
    EMBER_CHECK_ASSERTION(key.dim() == 3 && value.dim() == 3,
                          "For batched (3-D) `query`, expected `key` and `value` to be 3-D but "
                          "found ", key.dim(), "-D and ", value.dim(), "-D tensors respectively");
    EMBER_CHECK_ASSERTION(!kpm || kpm->dim() == 2,
                          "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or "
                          "2-D but found ", kpm ? kpm->dim() : 0, "-D tensor instead");
    EMBER_CHECK_ASSERTION(!mask || mask->dim() == 2 || mask->dim() == 3,
                          "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or "
                          "3-D but found ", mask ? mask->dim() : 0, "-D tensor instead");
    return true;
  }
  if (query.dim() == 2) {
    EMBER_CHECK_ASSERTION(key.dim() == 2 && value.dim() == 2,
                          "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but "
                          "found ", key.dim(), "-D and ", value.dim(), "-D tensors respectively");
    EMBER_CHECK_ASSERTION(!kpm || kpm->dim() == 1,
                          "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` "
                          "or 1-D but found ", kpm ? kpm->dim() : 0, "-D tensor instead");
    if (mask) {
      EMBER_CHECK_ASSERTION(mask->dim() == 2 || mask->dim() == 3,
                            "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D "
                            "or 3-D but found ", mask->dim(), "-D tensor instead");
      if (mask->dim() == 3) {
        EMBER_CHECK_ASSERTION(shape_is(*mask, {num_heads, query.size(0), key.size(0)}),
                              "Expected `attn_mask` shape to be ",
                              tuple_str({num_heads, query.size(0), key.size(0)}), " but got ",
                              size_str(mask->sizes()));
      }
    }
    return false;
  }
  EMBER_CHECK_ASSERTION(false, "query should be unbatched 2D or batched 3D tensor but received ",
                        query.dim(), "-D query tensor");
  return false;
}

Tensor lin(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
  return ember::linear(x, w, b);
}

}  // namespace

std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query_in,
                                                        const Tensor& key_in,
                                                        const Tensor& value_in,
                                                        int64_t embed_dim_to_check,
                                                        int64_t num_heads,
                                                        const MultiHeadAttentionArgs& a) {
  const Tensor* kpm_in = opt(a.key_padding_mask);
  const Tensor* mask_in = opt(a.attn_mask);
  const bool is_batched = mha_shape_check(query_in, key_in, value_in, kpm_in, mask_in, num_heads);
  Tensor query = query_in, key = key_in, value = value_in;
  std::optional<Tensor> key_padding_mask = kpm_in ? std::optional<Tensor>(*kpm_in) : std::nullopt;
  std::optional<Tensor> attn_mask = mask_in ? std::optional<Tensor>(*mask_in) : std::nullopt;
  if (!is_batched) {
    // The identities of key and value matter to the in-projection below: keep them.
    const bool k_is_q = key_in.is_same(query_in), v_is_k = value_in.is_same(key_in);
    query = query_in.unsqueeze(1);
    key = k_is_q ? query : key_in.unsqueeze(1);
    value = v_is_k ? key : value_in.unsqueeze(1);
    if (key_padding_mask) key_padding_mask = key_padding_mask->unsqueeze(0);
  }
  const int64_t tgt_len = query.size(0), bsz = query.size(1), embed_dim = query.size(2);
  int64_t src_len = key.size(0);
  if (key_padding_mask) {
    EMBER_CHECK_ASSERTION(key_padding_mask->dtype() == kBool ||
                              is_floating(key_padding_mask->dtype()),
                          "only bool and floating types of key_padding_mask are supported");
  }
  if (a.is_causal) {
    EMBER_CHECK(attn_mask.has_value(),
                "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
                "module method `generate_square_subsequent_mask` to create this mask.");
  }
  EMBER_CHECK_ASSERTION(embed_dim == embed_dim_to_check, "was expecting embedding dimension of ",
                        embed_dim_to_check, ", but got ", embed_dim);
  const int64_t head_dim = embed_dim / num_heads;
  EMBER_CHECK_ASSERTION(head_dim * num_heads == embed_dim, "embed_dim ", embed_dim,
                        " not divisible by num_heads ", num_heads);
  if (a.use_separate_proj_weight) {
    EMBER_CHECK_ASSERTION(key.size(0) == value.size(0) && key.size(1) == value.size(1),
                          "key's sequence and batch dims ",
                          size_str(key.sizes().slice(0, 2)), " do not match value's ",
                          size_str(value.sizes().slice(0, 2)));
  } else {
    EMBER_CHECK_ASSERTION(key.sizes() == value.sizes(), "key shape ", size_str(key.sizes()),
                          " does not match value shape ", size_str(value.sizes()));
  }

  // ---- in-projection (_in_projection_packed / _in_projection) ----
  Tensor q, k, v;
  const std::optional<Tensor>& b = a.in_proj_bias;
  const bool has_b = opt(b) != nullptr;
  if (!a.use_separate_proj_weight) {
    EMBER_CHECK_ASSERTION(opt(a.in_proj_weight),
                          "use_separate_proj_weight is False but in_proj_weight is None");
    const Tensor& w = *a.in_proj_weight;
    const int64_t E = query.size(-1);
    if (key.is_same(value)) {
      if (query.is_same(key)) {
        auto qkv = chunk(lin(query, w, b), 3, -1);
        q = qkv[0], k = qkv[1], v = qkv[2];
      } else {
        auto ws = split_with_sizes(w, {E, E * 2});
        std::optional<Tensor> bq, bkv;
        if (has_b) {
          auto bs = split_with_sizes(*b, {E, E * 2});
          bq = bs[0], bkv = bs[1];
        }
        q = lin(query, ws[0], bq);
        auto kv = chunk(lin(key, ws[1], bkv), 2, -1);
        k = kv[0], v = kv[1];
      }
    } else {
      auto ws = chunk(w, 3);
      std::optional<Tensor> bq, bk, bv;
      if (has_b) {
        auto bs = chunk(*b, 3);
        bq = bs[0], bk = bs[1], bv = bs[2];
      }
      q = lin(query, ws[0], bq), k = lin(key, ws[1], bk), v = lin(value, ws[2], bv);
    }
  } else {
    EMBER_CHECK_ASSERTION(opt(a.q_proj_weight),
                          "use_separate_proj_weight is True but q_proj_weight is None");
    EMBER_CHECK_ASSERTION(opt(a.k_proj_weight),
                          "use_separate_proj_weight is True but k_proj_weight is None");
    EMBER_CHECK_ASSERTION(opt(a.v_proj_weight),
                          "use_separate_proj_weight is True but v_proj_weight is None");
    std::optional<Tensor> bq, bk, bv;
    if (has_b) {
      auto bs = chunk(*b, 3);
      bq = bs[0], bk = bs[1], bv = bs[2];
    }
    const int64_t Eq = query.size(-1), Ek = key.size(-1), Ev = value.size(-1);
    const Tensor &wq = *a.q_proj_weight, &wk = *a.k_proj_weight, &wv = *a.v_proj_weight;
    EMBER_CHECK_ASSERTION(shape_is(wq, {Eq, Eq}), "expecting query weights shape of ",
                          tuple_str({Eq, Eq}), ", but got ", size_str(wq.sizes()));
    EMBER_CHECK_ASSERTION(shape_is(wk, {Eq, Ek}), "expecting key weights shape of ",
                          tuple_str({Eq, Ek}), ", but got ", size_str(wk.sizes()));
    EMBER_CHECK_ASSERTION(shape_is(wv, {Eq, Ev}), "expecting value weights shape of ",
                          tuple_str({Eq, Ev}), ", but got ", size_str(wv.sizes()));
    q = lin(query, wq, bq), k = lin(key, wk, bk), v = lin(value, wv, bv);
  }

  // ---- masks ----
  if (attn_mask) {
    if (attn_mask->dtype() == kUInt8) {
      warn("Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor "
           "instead.");
      attn_mask = attn_mask->to(kBool);
    } else {
      EMBER_CHECK_ASSERTION(is_floating(attn_mask->dtype()) || attn_mask->dtype() == kBool,
                            "Only float, byte, and bool types are supported for attn_mask, not ",
                            dtype_repr(attn_mask->dtype()));
    }
    if (attn_mask->dim() == 2) {
      EMBER_CHECK(shape_is(*attn_mask, {tgt_len, src_len}), "The shape of the 2D attn_mask is ",
                  size_str(attn_mask->sizes()), ", but should be ",
                  tuple_str({tgt_len, src_len}), ".");
      attn_mask = attn_mask->unsqueeze(0);
    } else if (attn_mask->dim() == 3) {
      EMBER_CHECK(shape_is(*attn_mask, {bsz * num_heads, tgt_len, src_len}),
                  "The shape of the 3D attn_mask is ", size_str(attn_mask->sizes()),
                  ", but should be ", tuple_str({bsz * num_heads, tgt_len, src_len}), ".");
    } else {
      EMBER_CHECK(false, "attn_mask's dimension ", attn_mask->dim(), " is not supported");
    }
  }
  const Tensor* bias_k = opt(a.bias_k);
  const Tensor* bias_v = opt(a.bias_v);
  if (bias_k && bias_v) {
    EMBER_CHECK_ASSERTION(!opt(a.static_k), "bias cannot be added to static key.");
    EMBER_CHECK_ASSERTION(!opt(a.static_v), "bias cannot be added to static value.");
    k = cat({k, bias_k->expand({1, bsz, bias_k->size(2)})});
    v = cat({v, bias_v->expand({1, bsz, bias_v->size(2)})});
    if (attn_mask) attn_mask = constant_pad_nd(*attn_mask, {0, 1});
    if (key_padding_mask) key_padding_mask = constant_pad_nd(*key_padding_mask, {0, 1});
  } else {
    EMBER_CHECK_ASSERTION(!bias_k && !bias_v, "");
  }

  q = q.contiguous().view({tgt_len, bsz * num_heads, head_dim}).transpose(0, 1);
  if (const Tensor* sk = opt(a.static_k)) {
    EMBER_CHECK_ASSERTION(sk->size(0) == bsz * num_heads, "expecting static_k.size(0) of ",
                          bsz * num_heads, ", but got ", sk->size(0));
    EMBER_CHECK_ASSERTION(sk->size(2) == head_dim, "expecting static_k.size(2) of ", head_dim,
                          ", but got ", sk->size(2));
    k = *sk;
  } else {
    k = k.contiguous().view({k.size(0), bsz * num_heads, head_dim}).transpose(0, 1);
  }
  if (const Tensor* sv = opt(a.static_v)) {
    EMBER_CHECK_ASSERTION(sv->size(0) == bsz * num_heads, "expecting static_v.size(0) of ",
                          bsz * num_heads, ", but got ", sv->size(0));
    EMBER_CHECK_ASSERTION(sv->size(2) == head_dim, "expecting static_v.size(2) of ", head_dim,
                          ", but got ", sv->size(2));
    v = *sv;
  } else {
    v = v.contiguous().view({v.size(0), bsz * num_heads, head_dim}).transpose(0, 1);
  }
  if (a.add_zero_attn) {
    const TensorOptions ko = TensorOptions(k.dtype()).device(k.device());
    const TensorOptions vo = TensorOptions(v.dtype()).device(v.device());
    k = cat({k, zeros({bsz * num_heads, 1, head_dim}, ko)}, 1);
    v = cat({v, zeros({bsz * num_heads, 1, head_dim}, vo)}, 1);
    if (attn_mask) attn_mask = constant_pad_nd(*attn_mask, {0, 1});
    if (key_padding_mask) key_padding_mask = constant_pad_nd(*key_padding_mask, {0, 1});
  }
  src_len = k.size(1);
  if (key_padding_mask) {
    EMBER_CHECK_ASSERTION(shape_is(*key_padding_mask, {bsz, src_len}),
                          "expecting key_padding_mask shape of ", tuple_str({bsz, src_len}),
                          ", but got ", size_str(key_padding_mask->sizes()));
    Tensor kpm = key_padding_mask->view({bsz, 1, 1, src_len})
                     .expand({-1, num_heads, -1, -1})
                     .reshape({bsz * num_heads, 1, src_len});
    if (!attn_mask) {
      attn_mask = kpm;
    } else if (attn_mask->dtype() == kBool) {
      attn_mask = logical_or(*attn_mask, kpm);
    } else {
      attn_mask = masked_fill(*attn_mask, kpm, -std::numeric_limits<double>::infinity());
    }
  }
  if (attn_mask && attn_mask->dtype() == kBool) {
    Tensor m = zeros(attn_mask->sizes(), TensorOptions(q.dtype()).device(q.device()));
    masked_fill_(m, *attn_mask, -std::numeric_limits<double>::infinity());
    attn_mask = m;
  }
  const double dropout_p = a.training ? a.dropout_p : 0.0;

  // ---- attention (1.13's _scaled_dot_product_attention for MHA) ----
  const Tensor q_scaled = q / std::sqrt(static_cast<double>(q.size(2)));
  Tensor weights = bmm(q_scaled, k.transpose(-2, -1));
  if (attn_mask) weights = weights + *attn_mask;
  weights = ember::softmax(weights, -1);
  if (dropout_p > 0.0) weights = ember::dropout(weights, dropout_p, true);
  Tensor out = bmm(weights, v);
  out = out.transpose(0, 1).contiguous().view({tgt_len * bsz, embed_dim});
  out = ember::linear(out, a.out_proj_weight, a.out_proj_bias);
  out = out.view({tgt_len, bsz, out.size(1)});
  if (!a.need_weights) {
    if (!is_batched) out = out.squeeze(1);
    return {out, Tensor()};
  }
  weights = weights.view({bsz, num_heads, tgt_len, src_len});
  if (a.average_attn_weights) weights = weights.sum(std::vector<int64_t>{1}) / static_cast<double>(num_heads);
  if (!is_batched) {
    out = out.squeeze(1);
    weights = weights.squeeze(0);
  }
  return {out, weights};
}

}  // namespace ember::nn::functional
