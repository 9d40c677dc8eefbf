"""torch.gru / lstm / rnn_tanh / rnn_relu (both overloads), fractional max pooling (F.* and the
modules) and grid_sampler_3d / 5-d F.grid_sample (namesb), against torch 1.13: values, indices,
gradients, reprs and errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as EF
from ember import nn


def e(t):
    return ember.from_numpy(t.detach().numpy().copy())


def close(got, want, rtol=1e-5, atol=1e-6):
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("mode", ["gru", "rnn_tanh", "rnn_relu", "lstm"])
@pytest.mark.parametrize("layers,bidirectional,batch_first", [(1, False, False), (2, True, True)])
def test_functional_recurrences_match_torch(mode, layers, bidirectional, batch_first):
    torch.manual_seed(0)
    cls = {"gru": torch.nn.GRU, "lstm": torch.nn.LSTM}.get(mode, torch.nn.RNN)
    kw = {"nonlinearity": "relu" if mode == "rnn_relu" else "tanh"} if cls is torch.nn.RNN else {}
    m = cls(3, 4, num_layers=layers, bidirectional=bidirectional, batch_first=batch_first, **kw)
    params = [p.detach() for p in m._flat_weights]
    D = 2 if bidirectional else 1
    x = torch.randn(2, 5, 3) if batch_first else torch.randn(5, 2, 3)
    h = torch.randn(layers * D, 2, 4)
    if mode == "lstm":
        hx = [h, torch.randn(layers * D, 2, 4)]
        want = torch.lstm(x, hx, params, True, layers, 0.0, False, bidirectional, batch_first)
        got = ember.lstm(e(x), [e(t) for t in hx], [e(p) for p in params], True, layers, 0.0, False,
                         bidirectional, batch_first)
    else:
        want = getattr(torch, mode)(x, h, params, True, layers, 0.0, False, bidirectional, batch_first)
        got = getattr(ember, mode)(e(x), e(h), [e(p) for p in params], True, layers, 0.0, False,
                                   bidirectional, batch_first)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        close(g, w)
    # the packed-data overload: decreasing batch sizes
    data, bs = torch.randn(7, 3), torch.tensor([3, 2, 2])
    h3 = torch.randn(layers * D, 3, 4)
    if mode == "lstm":
        hx = [h3, torch.randn(layers * D, 3, 4)]
        want = torch.lstm(data, bs, hx, params, True, layers, 0.0, False, bidirectional)
        got = ember.lstm(e(data), e(bs), [e(t) for t in hx], [e(p) for p in params], True, layers, 0.0, False,
                         bidirectional)
    else:
        want = getattr(torch, mode)(data, bs, h3, params, True, layers, 0.0, False, bidirectional)
        got = getattr(ember, mode)(e(data), e(bs), e(h3), [e(p) for p in params], True, layers, 0.0, False,
                                   bidirectional)
    for g, w in zip(got, want):
        close(g, w)


def test_functional_recurrence_gradients_and_projection():
    torch.manual_seed(1)
    m = torch.nn.LSTM(3, 5, proj_size=2)
    params = [p.detach().requires_grad_() for p in m._flat_weights]
    x = torch.randn(4, 2, 3, requires_grad=True)
    hx = [torch.zeros(1, 2, 2), torch.zeros(1, 2, 5)]
    out = torch.lstm(x, hx, params, True, 1, 0.0, False, False, False)
    out[0].sum().backward()
    ex = e(x).requires_grad_()
    ep = [e(p).requires_grad_() for p in params]
    eout = ember.lstm(ex, [e(t) for t in hx], ep, True, 1, 0.0, False, False, False)
    assert tuple(eout[0].shape) == (4, 2, 2)
    eout[0].sum().backward()
    close(ex.grad, x.grad)
    for a, b in zip(ep, params):
        close(a.grad, b.grad)


@pytest.mark.parametrize("n", [2, 3])
def test_fractional_max_pool_matches_torch(n):
    torch.manual_seed(0)
    shape = (2, 3, 9, 8) if n == 2 else (2, 3, 7, 6, 8)
    x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    samples = torch.rand(2, 3, n, dtype=torch.float64)
    tf = getattr(torch.nn.functional, f"fractional_max_pool{n}d")
    ef = getattr(EF, f"fractional_max_pool{n}d")
    for kw in ({"output_size": 4}, {"output_ratio": 0.5}, {"output_size": (3,) * n, "kernel_size": 3}):
        kernel = kw.pop("kernel_size", 2)
        out, idx = tf(x, kernel, return_indices=True, _random_samples=samples, **kw)
        ex = e(x).requires_grad_()
        eout, eidx = ef(ex, kernel, return_indices=True, _random_samples=e(samples), **kw)
        close(eout, out, 1e-12, 0)
        assert eidx.tolist() == idx.tolist() and eidx.dtype == ember.int64
        g = torch.randn_like(out)
        (gx,) = torch.autograd.grad(out, x, g)
        (egx,) = ember.autograd.grad(eout, ex, e(g))
        close(egx, gx, 1e-12, 0)
    # unbatched input; random samples drawn when not given; float32
    x3 = torch.randn(*shape[1:])
    assert tuple(ef(e(x3), 2, output_size=3).shape) == tuple(tf(x3, 2, output_size=3).shape)
    with pytest.raises(ValueError, match=f"fractional_max_pool{n}d requires specifying either an output_size or an output_ratio"):
        ef(e(x3), 2)
    with pytest.raises(RuntimeError) as want:  # (3-d: torch's text names fractional_max_pool3d_out)
        tf(x3, 5, output_size=6)
    with pytest.raises(RuntimeError) as got:
        ef(e(x3), 5, output_size=6)
    assert str(got.value) == str(want.value)


def test_fractional_max_pool_modules():
    for n in (2, 3):
        tcls, ecls = getattr(torch.nn, f"FractionalMaxPool{n}d"), getattr(nn, f"FractionalMaxPool{n}d")
        assert repr(ecls(2, output_size=3)) == repr(tcls(2, output_size=3))
        samples = torch.rand(1, 2, n)
        tm = tcls(2, output_ratio=0.5, return_indices=True, _random_samples=samples)
        em = ecls(2, output_ratio=0.5, return_indices=True, _random_samples=e(samples))
        assert list(em.state_dict()) == list(tm.state_dict()) == ["_random_samples"]
        x = torch.randn(1, 2, *([8] * n))
        (o, i), (eo, ei) = tm(x), em(e(x))
        close(eo, o, 0, 0)
        assert ei.tolist() == i.tolist()
        with pytest.raises(ValueError, match="output_ratio must be between 0 and 1"):
            ecls(2, output_ratio=1.5)
        with pytest.raises(ValueError, match="only one of output_size and output_ratio may be specified"):
            ecls(2, output_size=2, output_ratio=0.5)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_5d_matches_torch(mode, padding_mode, align_corners):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4, 5, 6, dtype=torch.float64, requires_grad=True)
    grid = (torch.rand(2, 3, 4, 2, 3, dtype=torch.float64) * 2.4 - 1.2).requires_grad_()
    want = torch.nn.functional.grid_sample(x, grid, mode, padding_mode, align_corners)
    ex, eg = e(x).requires_grad_(), e(grid).requires_grad_()
    got = EF.grid_sample(ex, eg, mode, padding_mode, align_corners)
    close(got, want, 1e-10, 1e-12)
    m = {"bilinear": 0, "nearest": 1}[mode]
    p = {"zeros": 0, "border": 1, "reflection": 2}[padding_mode]
    close(ember.grid_sampler_3d(e(x), e(grid), m, p, align_corners),
          torch.grid_sampler_3d(x, grid, m, p, align_corners), 1e-10, 1e-12)
    g = torch.randn_like(want)
    tgx = torch.autograd.grad(want, x, g)[0]
    egx = ember.autograd.grad(got, ex, e(g))[0]
    close(egx, tgx, 1e-10, 1e-12)


def test_grid_sample_5d_refuses_bicubic():
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        ember.grid_sampler_3d(ember.zeros(1, 1, 2, 2, 2), ember.zeros(1, 1, 1, 1, 3), 2, 0, False)
