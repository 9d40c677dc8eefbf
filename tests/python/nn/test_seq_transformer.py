"""nn.TransformerEncoderLayer / TransformerEncoder / TransformerDecoderLayer / TransformerDecoder /
Transformer against torch 1.13 with the same weights: values and gradients (relu, gelu, a
callable and a module activation; post-norm and norm_first; batch_first; masks), children and
state_dict keys, reprs, initialisation, errors, generate_square_subsequent_mask."""
import numpy as np
import pytest
import torch

import ember
from ember import nn
from seq_helpers import arr, close, copy_weights, grads_close, same_error, to_ember


def rand(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64)


def pair(cls_name, *args, **kw):
    torch.manual_seed(0)
    t = getattr(torch.nn, cls_name)(*args, **kw).double()
    e = getattr(nn, cls_name)(*args, **kw).double()
    copy_weights(e, t)
    return e, t


ACTS = {"relu": ("relu", "relu"), "gelu": ("gelu", "gelu"),
        "fn": (ember.nn.functional.gelu, torch.nn.functional.gelu),
        "module": (None, None)}


def layer_pair(cls_name, act, **kw):
    ea, ta = ACTS[act]
    if act == "module":
        ea, ta = nn.GELU(), torch.nn.GELU()
    torch.manual_seed(0)
    t = getattr(torch.nn, cls_name)(8, 2, 16, 0.0, activation=ta, **kw).double()
    e = getattr(nn, cls_name)(8, 2, 16, 0.0, activation=ea, **kw).double()
    copy_weights(e, t)
    return e, t


@pytest.mark.parametrize("act", list(ACTS))
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_layer_matches_torch(act, norm_first, batch_first):
    e, t = layer_pair("TransformerEncoderLayer", act, norm_first=norm_first,
                      batch_first=batch_first)
    assert repr(e) == repr(t)
    N, S = 3, 5
    x = rand(N, S, 8, seed=1) if batch_first else rand(S, N, 8, seed=1)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(S).double()
    kpm = torch.zeros(N, S, dtype=torch.bool)
    kpm[1, -1] = True
    tx = x.clone().requires_grad_()
    ex = to_ember(tx)
    to = t(tx, src_mask=mask, src_key_padding_mask=kpm)
    eo = e(ex, src_mask=to_ember(mask), src_key_padding_mask=to_ember(kpm))
    close(eo, to, rtol=1e-9, atol=1e-10)
    g = rand(*to.shape, seed=2)
    (to * g).sum().backward()
    (eo * to_ember(g)).sum().backward()
    grads_close(e.named_parameters(), t.named_parameters(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(arr(ex.grad), arr(tx.grad), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_matches_torch(norm_first):
    e, t = layer_pair("TransformerDecoderLayer", "relu", norm_first=norm_first)
    assert repr(e) == repr(t)
    tgt, mem = rand(4, 2, 8, seed=1), rand(6, 2, 8, seed=2)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(4).double()
    mkpm = torch.zeros(2, 6, dtype=torch.bool)
    mkpm[0, -2:] = True
    ttgt, tmem = tgt.clone().requires_grad_(), mem.clone().requires_grad_()
    etgt, emem = to_ember(ttgt), to_ember(tmem)
    to = t(ttgt, tmem, tgt_mask=tmask, memory_key_padding_mask=mkpm)
    eo = e(etgt, emem, tgt_mask=to_ember(tmask), memory_key_padding_mask=to_ember(mkpm))
    close(eo, to, rtol=1e-9, atol=1e-10)
    to.sum().backward()
    eo.sum().backward()
    grads_close(e.named_parameters(), t.named_parameters(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(arr(emem.grad), arr(tmem.grad), rtol=1e-8, atol=1e-10)


def test_encoder_and_decoder_stacks():
    torch.manual_seed(0)
    tl = torch.nn.TransformerEncoderLayer(8, 2, 16, 0.0).double()
    el = nn.TransformerEncoderLayer(8, 2, 16, 0.0).double()
    t = torch.nn.TransformerEncoder(tl, 3, torch.nn.LayerNorm(8).double(),
                                    enable_nested_tensor=False)
    e = nn.TransformerEncoder(el, 3, nn.LayerNorm(8).double(), enable_nested_tensor=False)
    assert e.layers[0] is not e.layers[1]
    assert e.layers[0].linear1.weight is not el.linear1.weight
    copy_weights(e, t)
    assert repr(e) == repr(t)
    x = rand(5, 2, 8, seed=1)
    close(e(to_ember(x)), t(x), rtol=1e-9, atol=1e-10)
    assert e.num_layers == 3

    torch.manual_seed(0)
    td = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(8, 2, 16, 0.0).double(), 2)
    ed = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, 0.0).double(), 2)
    copy_weights(ed, td)
    assert repr(ed) == repr(td)
    mem = rand(6, 2, 8, seed=2)
    close(ed(to_ember(x), to_ember(mem)), td(x, mem), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_matches_torch(batch_first):
    torch.manual_seed(0)
    t = torch.nn.Transformer(8, 2, 2, 2, 16, 0.0, batch_first=batch_first).double()
    e = nn.Transformer(8, 2, 2, 2, 16, 0.0, batch_first=batch_first).double()
    assert list(e.state_dict()) == list(t.state_dict())
    assert repr(e) == repr(t)
    copy_weights(e, t)
    src, tgt = rand(2, 5, 8, seed=1), rand(2, 4, 8, seed=2)
    if not batch_first:
        src, tgt = src.transpose(0, 1).contiguous(), tgt.transpose(0, 1).contiguous()
    mask = t.generate_square_subsequent_mask(4).double()
    to = t(src, tgt, tgt_mask=mask)
    eo = e(to_ember(src), to_ember(tgt), tgt_mask=to_ember(mask))
    close(eo, to, rtol=1e-9, atol=1e-10)
    to.sum().backward()
    eo.sum().backward()
    grads_close(e.named_parameters(), t.named_parameters(), rtol=1e-7, atol=1e-9)
    assert e.d_model == 8 and e.nhead == 2 and e.batch_first == batch_first


def test_transformer_initialisation_is_xavier():
    e = nn.Transformer(16, 2, 1, 1, 32)
    w = e.encoder.layers[0].linear1.weight  # [32, 16]
    bound = (6.0 / (16 + 32)) ** 0.5
    assert float(w.abs().max()) <= bound
    assert float(w.abs().max()) > 0.8 * bound


def test_generate_square_subsequent_mask():
    e = nn.Transformer.generate_square_subsequent_mask(4)
    t = torch.nn.Transformer.generate_square_subsequent_mask(4)
    assert e.dtype == ember.float32
    np.testing.assert_array_equal(arr(e), arr(t))


def test_activation_attribute():
    assert nn.TransformerEncoderLayer(8, 2).activation is nn.functional.relu
    assert nn.TransformerEncoderLayer(8, 2, activation="gelu").activation is nn.functional.gelu
    fn = lambda x: x * 2  # noqa: E731
    assert nn.TransformerEncoderLayer(8, 2, activation=fn).activation is fn
    g = nn.GELU()
    layer = nn.TransformerDecoderLayer(8, 2, activation=g)
    assert layer.activation is g
    assert list(dict(layer.named_children()))[-1] == "activation"


def test_errors_match_torch():
    same_error(lambda lib: lib.nn.TransformerEncoderLayer(8, 2, activation="tanh"))
    same_error(lambda lib: lib.nn.TransformerEncoderLayer(8, 3))

    def batch_mismatch(lib):
        m = lib.nn.Transformer(8, 2, 1, 1, 16)
        mk = torch if lib is torch else ember
        return m(mk.randn(5, 2, 8), mk.randn(4, 3, 8))

    same_error(batch_mismatch)

    def feature_mismatch(lib):
        m = lib.nn.Transformer(8, 2, 1, 1, 16)
        mk = torch if lib is torch else ember
        return m(mk.randn(5, 2, 6), mk.randn(4, 2, 6))

    same_error(feature_mismatch)

    def bad_kpm(lib):
        m = lib.nn.TransformerEncoderLayer(8, 2)
        mk = torch if lib is torch else ember
        return m(mk.randn(5, 2, 8), src_key_padding_mask=mk.zeros(2, 5, dtype=mk.int64))

    same_error(bad_kpm)


def test_deepcopy_and_train_eval():
    import copy
    e = nn.TransformerEncoderLayer(8, 2, 16, 0.5)
    c = copy.deepcopy(e)
    assert c.linear1.weight is not e.linear1.weight
    x = ember.randn(5, 2, 8)
    e.eval()
    a, b = e(x), e(x)
    assert np.array_equal(arr(a), arr(b))
