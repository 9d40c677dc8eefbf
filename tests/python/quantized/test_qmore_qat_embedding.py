"""nn.qat.Embedding / EmbeddingBag against torch 1.13: the same float-qparams fake-quantized
lookups bit for bit (same weights, default_embedding_qat_qconfig), from_float / to_float, reprs,
torch's assertion texts."""
import numpy as np
import pytest
import torch

import ember

from qmodules_util import tensor_to_ember


def pair(kind, *args, **kw):
    tq = torch.ao.quantization.default_embedding_qat_qconfig
    eq = ember.ao.quantization.default_embedding_qat_qconfig
    t = getattr(torch.ao.nn.qat, kind)(*args, qconfig=tq, **kw)
    e = getattr(ember.ao.nn.qat, kind)(*args, qconfig=eq, **kw)
    with torch.no_grad():
        t.weight.copy_(torch.randn(t.weight.shape, generator=torch.Generator().manual_seed(3)))
    with ember.no_grad():
        e.weight.copy_(tensor_to_ember(t.weight.detach()))
    return t, e


def same(e, t):
    return np.array_equal(e.detach().numpy(), t.detach().numpy())


def test_embedding_forward_repr_and_state_match_torch():
    t, e = pair("Embedding", 10, 4, padding_idx=1)
    idx = torch.tensor([[1, 2, 9], [0, 0, 3]])
    assert same(e(tensor_to_ember(idx)), t(idx))
    assert same(e.weight_fake_quant.scale, t.weight_fake_quant.scale)
    assert repr(e) == repr(t).replace("torch.", "ember.")
    assert list(e.state_dict().keys()) == list(t.state_dict().keys())
    assert ember.nn.qat.Embedding is ember.ao.nn.qat.Embedding
    assert isinstance(e, ember.nn.Embedding)
    # gradients flow to the float weight through the fake quantizer
    e(tensor_to_ember(idx)).sum().backward()
    t(idx).sum().backward()
    assert same(e.weight.grad, t.weight.grad)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_forward_matches_torch(mode):
    t, e = pair("EmbeddingBag", 10, 4, mode=mode)
    idx, off = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3])
    assert same(e(tensor_to_ember(idx), tensor_to_ember(off)), t(idx, off))
    assert repr(e) == repr(t).replace("torch.", "ember.")


def test_from_float_to_float_and_errors():
    f = ember.nn.EmbeddingBag(6, 3, mode="sum")
    f.qconfig = ember.ao.quantization.default_embedding_qat_qconfig
    q = ember.ao.nn.qat.EmbeddingBag.from_float(f)
    assert type(q) is ember.ao.nn.qat.EmbeddingBag and q.weight is f.weight and q.mode == "sum"
    back = q.to_float()
    assert type(back) is ember.nn.EmbeddingBag and back.weight is not q.weight
    assert np.array_equal(back.weight.detach().numpy(), q.weight.detach().numpy())
    g = ember.nn.Embedding(6, 3)
    g.qconfig = ember.ao.quantization.default_qat_qconfig  # per-tensor: refused
    with pytest.raises(AssertionError) as ee:
        ember.ao.nn.qat.Embedding.from_float(g)
    tg = torch.nn.Embedding(6, 3)
    tg.qconfig = torch.ao.quantization.default_qat_qconfig
    with pytest.raises(AssertionError) as te:
        torch.ao.nn.qat.Embedding.from_float(tg)
    assert str(ee.value) == str(te.value).replace("torch.", "ember.")
    with pytest.raises(AssertionError) as ee:
        ember.ao.nn.qat.Embedding.from_float(ember.nn.Linear(2, 2))
    with pytest.raises(AssertionError) as te:
        torch.ao.nn.qat.Embedding.from_float(torch.nn.Linear(2, 2))
    assert str(ee.value) == str(te.value)
    with pytest.raises(AssertionError, match="qconfig must be provided for QAT module"):
        ember.ao.nn.qat.Embedding(3, 2)


def test_float_zero_points_outside_the_range_are_accepted_as_torch():
    x = torch.randn(2, 4, generator=torch.Generator().manual_seed(5))
    s = torch.tensor([0.01, 0.02])
    for zp in ([255.7, 3.0], [256.0, 3.0], [-1.0, 2.0]):
        z = torch.tensor(zp)
        t = torch.fake_quantize_per_channel_affine(x, s, z, 0, 0, 255)
        e = ember.fake_quantize_per_channel_affine(tensor_to_ember(x), tensor_to_ember(s),
                                                   tensor_to_ember(z), 0, 0, 255)
        assert same(e, t)
    with pytest.raises(RuntimeError, match="`zero_point` must be between"):
        ember.fake_quantize_per_channel_affine(tensor_to_ember(x), tensor_to_ember(s),
                                               ember.tensor([256, 3], dtype=ember.int32), 0, 0, 255)
