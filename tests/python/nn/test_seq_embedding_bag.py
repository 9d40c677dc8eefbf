"""nn.EmbeddingBag / F.embedding_bag and aten::_embedding_bag against torch 1.13: every mode,
offsets, 2-d input, per_sample_weights, padding_idx, include_last_offset, max_norm, gradients
(weight and per_sample_weights), reprs, keys, errors."""
import numpy as np
import pytest
import torch

import ember
from ember import nn
from seq_helpers import arr, close, same_error, to_ember


def weights(seed=0, n=10, d=3):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, d, generator=g, dtype=torch.float64)


CASES = [
    dict(mode="sum"), dict(mode="mean"), dict(mode="max"),
    dict(mode="sum", include_last_offset=True), dict(mode="mean", include_last_offset=True),
    dict(mode="sum", padding_idx=2), dict(mode="mean", padding_idx=2), dict(mode="max", padding_idx=2),
    dict(mode="sum", scale_grad_by_freq=True), dict(mode="mean", scale_grad_by_freq=True),
]


@pytest.mark.parametrize("kw", CASES, ids=str)
def test_functional_1d_with_offsets(kw):
    w = weights().requires_grad_()
    ew = to_ember(w)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 2])
    offsets = torch.tensor([0, 4, 4, 7])  # an empty bag in the middle
    if kw.get("include_last_offset"):
        offsets = torch.tensor([0, 4, 4, 9])  # (torch 1.13 crashes when the last is not the end)
    # torch 1.13's CPU kernel looks the frequencies up at the wrong positions (a gradient of
    # 1/3 for an index seen once); ember divides by each index's count in the mini-batch, as
    # documented: the reference is torch's unscaled gradient divided by the counts.
    scale = kw.pop("scale_grad_by_freq", False)
    t = torch.nn.functional.embedding_bag(idx, w, offsets, **kw)
    e = nn.functional.embedding_bag(to_ember(idx), ew, to_ember(offsets), scale_grad_by_freq=scale,
                                    **kw)
    close(e, t, rtol=1e-12, atol=1e-12)
    g = weights(seed=5, n=t.shape[0])
    t.backward(g)
    e.backward(to_ember(g))
    expected = arr(w.grad)
    if scale:
        counts = np.bincount(idx.numpy(), minlength=10).clip(min=1)
        expected = expected / counts[:, None]
    np.testing.assert_allclose(arr(ew.grad), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_2d_input_module(mode):
    torch.manual_seed(0)
    t = torch.nn.EmbeddingBag(10, 3, mode=mode).double()
    e = nn.EmbeddingBag(10, 3, mode=mode).double()
    e.load_state_dict({"weight": to_ember(t.weight)})
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    idx = torch.tensor([[1, 2, 4], [4, 3, 9]])
    to, eo = t(idx), e(to_ember(idx))
    close(eo, to, rtol=1e-12, atol=1e-12)
    to.sum().backward()
    eo.sum().backward()
    np.testing.assert_allclose(arr(e.weight.grad), arr(t.weight.grad), rtol=1e-12)


def test_per_sample_weights():
    w = weights().requires_grad_()
    ew = to_ember(w)
    idx = torch.tensor([1, 2, 4, 5, 4, 3])
    offsets = torch.tensor([0, 2])
    psw = torch.rand(6, dtype=torch.float64, generator=torch.Generator().manual_seed(3)).requires_grad_()
    epsw = to_ember(psw)
    t = torch.nn.functional.embedding_bag(idx, w, offsets, mode="sum", per_sample_weights=psw,
                                          padding_idx=4)
    e = nn.functional.embedding_bag(to_ember(idx), ew, to_ember(offsets), mode="sum",
                                    per_sample_weights=epsw, padding_idx=4)
    close(e, t, rtol=1e-12, atol=1e-12)
    (t * t).sum().backward()
    (e * e).sum().backward()
    np.testing.assert_allclose(arr(ew.grad), arr(w.grad), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(arr(epsw.grad), arr(psw.grad), rtol=1e-12, atol=1e-12)


def test_aten_op_outputs():
    w = weights()
    idx = torch.tensor([1, 2, 4, 5, 4, 3])
    offsets = torch.tensor([0, 2, 5])
    for mode in (0, 1, 2):
        t = torch.ops.aten._embedding_bag(w, idx, offsets, False, mode)
        e = ember.ops.aten._embedding_bag(to_ember(w), to_ember(idx), to_ember(offsets), False, mode)
        close(e[0], t[0], rtol=1e-12, atol=1e-12)
        if mode == 2:
            assert arr(e[3]).tolist() == t[3].tolist()
    assert arr(e[1]).tolist() == [0, 0, 1, 1, 1, 2]


def test_max_norm_renormalises():
    w = weights() * 3
    t = torch.nn.EmbeddingBag.from_pretrained(w.clone(), max_norm=1.0, mode="sum")
    e = nn.EmbeddingBag.from_pretrained(to_ember(w), max_norm=1.0, mode="sum")
    assert repr(e) == repr(t)
    idx = torch.tensor([[0, 1], [2, 1]])
    close(e(to_ember(idx)), t(idx), rtol=1e-9, atol=1e-12)
    close(e.weight, t.weight, rtol=1e-9, atol=1e-12)
    assert not e.weight.requires_grad


def test_init_and_padding_row():
    m = nn.EmbeddingBag(20, 4, padding_idx=-1)
    assert m.padding_idx == 19
    assert float(m.weight[19].abs().sum()) == 0.0
    assert repr(m) == repr(torch.nn.EmbeddingBag(20, 4, padding_idx=-1))


def test_errors_match_torch():
    def mk(lib):
        return torch if lib is torch else ember

    F = lambda lib: lib.nn.functional  # noqa: E731
    w = weights()
    W = lambda lib: w if lib is torch else to_ember(w)  # noqa: E731
    same_error(lambda lib: F(lib).embedding_bag(mk(lib).tensor([1, 2]), W(lib)))
    same_error(lambda lib: F(lib).embedding_bag(mk(lib).tensor([[1, 2]]), W(lib), mk(lib).tensor([0])))
    same_error(lambda lib: F(lib).embedding_bag(mk(lib).tensor([1, 2]), W(lib), mk(lib).tensor([0]), mode="min"))
    same_error(lambda lib: F(lib).embedding_bag(mk(lib).tensor([1, 2]), W(lib), mk(lib).tensor([0]),
                                                mode="mean", per_sample_weights=mk(lib).ones(2, dtype=mk(lib).float64)))
    same_error(lambda lib: F(lib).embedding_bag(mk(lib).tensor([1, 2]), W(lib), mk(lib).tensor([0]),
                                                mode="max", scale_grad_by_freq=True))
    same_error(lambda lib: F(lib).embedding_bag(mk(lib).tensor([1, 2]), W(lib), mk(lib).tensor([1])))
    same_error(lambda lib: lib.nn.EmbeddingBag(5, 2, padding_idx=5))
