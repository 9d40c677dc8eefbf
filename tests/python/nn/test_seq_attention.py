"""F.scaled_dot_product_attention (PyTorch 2.x semantics, checked against its documented math
reference run on torch 1.13 in float64), nn.MultiheadAttention and F.multi_head_attention_forward
against torch 1.13 with the same weights: values, gradients, every option, reprs, keys, errors."""
import math

import numpy as np
import pytest
import torch

import ember
from ember import nn
from seq_helpers import arr, close, copy_weights, grads_close, same_error, to_ember

F = nn.functional


def sdpa_reference(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """PyTorch 2.x's documented reference implementation, on torch 1.13 tensors."""
    L, S = q.size(-2), k.size(-2)
    scale_factor = 1 / math.sqrt(q.size(-1)) if scale is None else scale
    attn_bias = torch.zeros(L, S, dtype=q.dtype)
    if is_causal:
        temp_mask = torch.ones(L, S, dtype=torch.bool).tril(diagonal=0)
        attn_bias.masked_fill_(temp_mask.logical_not(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn_bias = attn_bias.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            attn_bias = attn_mask + attn_bias
    w = q @ k.transpose(-2, -1) * scale_factor
    w = torch.softmax(w + attn_bias, dim=-1)
    return w @ v


def rand(*shape, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=dtype)


@pytest.mark.parametrize("case", ["plain", "bool_mask", "float_mask", "causal", "causal_rect",
                                  "scale", "broadcast_mask", "4d"])
def test_sdpa_values_and_grads(case):
    shape_q, shape_k = (2, 5, 8), (2, 7, 8)
    kw = {}
    if case == "4d":
        shape_q, shape_k = (2, 3, 5, 8), (2, 3, 7, 8)
    if case == "causal":
        shape_k = shape_q
    q, k, v = rand(*shape_q, seed=1), rand(*shape_k, seed=2), rand(*shape_k[:-1], 6, seed=3)
    if case == "bool_mask":
        kw["attn_mask"] = rand(5, 7, seed=4) > -0.5
        kw["attn_mask"][:, 0] = True
    elif case == "float_mask":
        kw["attn_mask"] = rand(2, 5, 7, seed=4)
    elif case == "broadcast_mask":
        kw["attn_mask"] = rand(1, 7, seed=4) > -1.0
    elif case in ("causal", "causal_rect"):
        kw["is_causal"] = True
    elif case == "scale":
        kw["scale"] = 0.3
    tq, tk, tv = (t.clone().requires_grad_() for t in (q, k, v))
    ref = sdpa_reference(tq, tk, tv, **kw)
    eq, ek, ev = (to_ember(t) for t in (tq, tk, tv))
    ekw = {n: to_ember(x) if isinstance(x, torch.Tensor) else x for n, x in kw.items()}
    out = F.scaled_dot_product_attention(eq, ek, ev, **ekw)
    close(out, ref, rtol=1e-10, atol=1e-12)
    g = rand(*ref.shape, seed=9)
    ref.backward(g)
    out.backward(to_ember(g))
    for e, t in ((eq, tq), (ek, tk), (ev, tv)):
        np.testing.assert_allclose(arr(e.grad), arr(t.grad), rtol=1e-9, atol=1e-11)


def test_sdpa_op_row_and_schema():
    op = ember.ops.aten.scaled_dot_product_attention.default
    assert "float? scale=None" in str(op._schema)
    q = ember.randn(1, 3, 4)
    out = op(q, q, q, None, 0.0, True)
    assert tuple(out.shape) == (1, 3, 4)


def test_sdpa_dropout():
    q = ember.randn(2, 16, 8)
    ember.manual_seed(0)
    a = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    ember.manual_seed(0)
    b = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    c = F.scaled_dot_product_attention(q, q, q)
    assert np.array_equal(arr(a), arr(b))
    assert not np.allclose(arr(a), arr(c))
    ones = ember.ones(1, 4, 2)
    out = F.scaled_dot_product_attention(ones, ones, ember.ones(1, 4, 3), dropout_p=1.0)
    assert float(out.abs().sum()) == 0.0


def test_sdpa_errors():
    q = ember.randn(2, 3, 4)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=ember.ones(3, 3, dtype=ember.bool),
                                       is_causal=True)
    with pytest.raises(RuntimeError, match="Expected query, key, and value to have the same dtype"):
        F.scaled_dot_product_attention(q, q.double(), q)


# ---- MultiheadAttention ----

MHA_CONFIGS = [
    dict(),
    dict(bias=False),
    dict(add_bias_kv=True),
    dict(add_zero_attn=True),
    dict(kdim=5, vdim=3),
    dict(batch_first=True),
    dict(add_bias_kv=True, add_zero_attn=True, kdim=6, vdim=6),
]


def make_mha(**kw):
    torch.manual_seed(0)
    t = torch.nn.MultiheadAttention(8, 2, **kw).double()
    e = nn.MultiheadAttention(8, 2, **kw).double()
    copy_weights(e, t)
    return e, t


@pytest.mark.parametrize("kw", MHA_CONFIGS, ids=str)
@pytest.mark.parametrize("masks", ["none", "kpm_bool", "mask_bool", "mask_float3d", "both"])
def test_mha_matches_torch(kw, masks):
    e, t = make_mha(**kw)
    L, S, N = 4, 6, 3
    kd, vd = kw.get("kdim", 8), kw.get("vdim", 8)
    bf = kw.get("batch_first", False)
    shape = (lambda s, d: (N, s, d)) if bf else (lambda s, d: (s, N, d))
    q, k, v = rand(*shape(L, 8), seed=1), rand(*shape(S, kd), seed=2), rand(*shape(S, vd), seed=3)
    args = {}
    if masks in ("kpm_bool", "both"):
        kpm = torch.zeros(N, S, dtype=torch.bool)
        kpm[0, -2:] = True
        args["key_padding_mask"] = kpm
    if masks in ("mask_bool", "both"):
        m = torch.zeros(L, S, dtype=torch.bool)
        m[1, 3] = True
        args["attn_mask"] = m
    if masks == "mask_float3d":
        args["attn_mask"] = rand(N * 2, L, S, seed=5)
    tq, tk, tv = (x.clone().requires_grad_() for x in (q, k, v))
    t_out, t_w = t(tq, tk, tv, **args)
    eq, ek, ev = (to_ember(x) for x in (tq, tk, tv))
    e_out, e_w = e(eq, ek, ev, **{n: to_ember(x) for n, x in args.items()})
    close(e_out, t_out, rtol=1e-9, atol=1e-10)
    close(e_w, t_w, rtol=1e-9, atol=1e-10)
    g = rand(*t_out.shape, seed=8)
    (t_out * g).sum().backward()
    (e_out * to_ember(g)).sum().backward()
    grads_close(e.named_parameters(), t.named_parameters(), rtol=1e-8, atol=1e-10)
    for a, b in ((eq, tq), (ek, tk), (ev, tv)):
        np.testing.assert_allclose(arr(a.grad), arr(b.grad), rtol=1e-8, atol=1e-10)


def test_mha_self_attention_options():
    e, t = make_mha()
    x = rand(5, 2, 8, seed=1)
    for kw in (dict(need_weights=False), dict(average_attn_weights=False)):
        to, tw = t(x, x, x, **kw)
        ex = to_ember(x)
        eo, ew = e(ex, ex, ex, **kw)
        close(eo, to, rtol=1e-9, atol=1e-10)
        close(ew, tw, rtol=1e-9, atol=1e-10)
    # unbatched
    xu = rand(5, 8, seed=2)
    to, tw = t(xu, xu, xu)
    eo, ew = e(to_ember(xu), to_ember(xu), to_ember(xu))
    close(eo, to, rtol=1e-9, atol=1e-10)
    close(ew, tw, rtol=1e-9, atol=1e-10)
    # a float key_padding_mask alone; a float attn_mask with a bool key_padding_mask
    kpm_bool = torch.zeros(2, 5, dtype=torch.bool)
    kpm_bool[1, 0] = True
    for kw in (dict(key_padding_mask=rand(2, 5, seed=3)),
               dict(attn_mask=rand(5, 5, seed=4), key_padding_mask=kpm_bool)):
        to, tw = t(x, x, x, **kw)
        eo, ew = e(to_ember(x), to_ember(x), to_ember(x), **{n: to_ember(v) for n, v in kw.items()})
        close(eo, to, rtol=1e-9, atol=1e-10)
        close(ew, tw, rtol=1e-9, atol=1e-10)


def test_mha_is_causal_hint():
    e, _ = make_mha()
    x = ember.randn(4, 2, 8, dtype=ember.float64)
    mask = nn.Transformer.generate_square_subsequent_mask(4).double()
    a, _ = e(x, x, x, attn_mask=mask, is_causal=True, need_weights=False)
    b, _ = e(x, x, x, attn_mask=mask, need_weights=False)
    assert np.allclose(arr(a), arr(b))
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        e(x, x, x, is_causal=True)


def test_mha_parameters_keys_repr_init():
    for kw in MHA_CONFIGS:
        e, t = make_mha(**kw)
        assert list(e.state_dict().keys()) == list(t.state_dict().keys())
        assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
        assert repr(e) == repr(t)
        assert e._qkv_same_embed_dim == t._qkv_same_embed_dim
        assert e.head_dim == t.head_dim and e.kdim == t.kdim and e.vdim == t.vdim
    m = nn.MultiheadAttention(8, 2)
    assert m.bias_k is None and m.bias_v is None and m.q_proj_weight is None
    assert float(m.in_proj_bias.abs().sum()) == 0.0 and float(m.out_proj.bias.abs().sum()) == 0.0
    bound = math.sqrt(6.0 / (8 + 24))  # xavier_uniform_ on [24, 8]
    assert float(m.in_proj_weight.abs().max()) <= bound
    assert isinstance(m.out_proj, nn.Linear)
    m2 = nn.MultiheadAttention(8, 2, add_bias_kv=True)
    assert tuple(m2.bias_k.shape) == (1, 1, 8)


def test_mha_errors_match_torch():
    same_error(lambda lib: lib.nn.MultiheadAttention(7, 2))
    x3 = torch.randn(3, 2, 8)

    def call(lib, **kw):
        torch.manual_seed(0)
        m = lib.nn.MultiheadAttention(8, 2)
        x = x3 if lib is torch else to_ember(x3)
        conv = {n: (v if lib is torch else to_ember(v)) for n, v in kw.items()}
        return m(x, x, x, **conv)

    same_error(lambda lib: call(lib, attn_mask=torch.zeros(3, 4)))
    same_error(lambda lib: call(lib, attn_mask=torch.zeros(5, 3, 3)))
    same_error(lambda lib: call(lib, key_padding_mask=torch.zeros(2, 4, dtype=torch.bool)))
    same_error(lambda lib: call(lib, key_padding_mask=torch.zeros(2, 3, dtype=torch.int64)))
    same_error(lambda lib: call(lib, attn_mask=torch.zeros(3, 3, dtype=torch.int64)))
    same_error(lambda lib: call(lib, attn_mask=torch.zeros(1, 3, 3, 3)))

    def bad_query(lib):
        m = lib.nn.MultiheadAttention(8, 2)
        x = (torch if lib is torch else ember).randn(1, 3, 2, 8)
        return m(x, x, x)

    same_error(bad_query)

    def bad_dim(lib):
        m = lib.nn.MultiheadAttention(8, 2)
        x = (torch if lib is torch else ember).randn(3, 2, 6)
        return m(x, x, x)

    same_error(bad_dim)


def test_functional_mha_matches_torch():
    e, t = make_mha()
    q = rand(3, 2, 8, seed=1)
    args = (8, 2, t.in_proj_weight, t.in_proj_bias, None, None, False, 0.0,
            t.out_proj.weight, t.out_proj.bias)
    to, tw = torch.nn.functional.multi_head_attention_forward(q, q, q, *args)
    eargs = tuple(to_ember(a) if isinstance(a, torch.Tensor) else a for a in args)
    eq = to_ember(q)
    eo, ew = F.multi_head_attention_forward(eq, eq, eq, *eargs)
    close(eo, to, rtol=1e-9, atol=1e-10)
    close(ew, tw, rtol=1e-9, atol=1e-10)


def test_mha_dropout_only_in_training():
    e = nn.MultiheadAttention(8, 2, dropout=0.5)
    x = ember.randn(4, 2, 8)
    e.eval()
    a, _ = e(x, x, x)
    b, _ = e(x, x, x)
    assert np.array_equal(arr(a), arr(b))
    e.train()
    c, w = e(x, x, x)
    assert not np.allclose(arr(c), arr(a))
