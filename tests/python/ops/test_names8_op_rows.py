"""The op rows names8 added for functions that had none (torch's schemas): the functional
recurrences (Composite, as torch's), fractional max pooling and grid_sampler_3d with their
backward rows (Primitive): ember.ops.aten resolves them, modes see them, numbers unchanged."""
import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as EF
from ember.overrides import TorchFunctionMode
from ember.utils._python_dispatch import TorchDispatchMode

ROWS = ["gru.input", "gru.data", "lstm.input", "lstm.data", "rnn_tanh.input", "rnn_tanh.data", "rnn_relu.input",
        "rnn_relu.data", "gru_cell.default", "lstm_cell.default", "rnn_tanh_cell.default", "rnn_relu_cell.default",
        "fractional_max_pool2d.default", "fractional_max_pool2d_backward.default", "fractional_max_pool3d.default",
        "fractional_max_pool3d_backward.default", "grid_sampler_3d.default", "grid_sampler_3d_backward.default",
        "segment_reduce.default", "_segment_reduce_backward.default"]


def e(t):
    return ember.from_numpy(t.detach().numpy().copy())


@pytest.mark.parametrize("row", ROWS)
def test_rows_resolve_with_torch_schema(row):
    name, overload = row.split(".")
    got = getattr(getattr(ember.ops.aten, name), overload)
    want = getattr(getattr(torch.ops.aten, name), overload)
    assert str(got._schema) == str(want._schema)


class Log(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.append(str(func))
        return func(*args, **(kwargs or {}))


class FnLog(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append(getattr(func, "__name__", str(func)))
        return func(*args, **(kwargs or {}))


def test_fractional_pool_rows_values_and_gradients_match_torch():
    g = torch.Generator().manual_seed(0)
    for n, shape, k, out in ((2, (2, 3, 7, 6), 2, (3, 4)), (3, (1, 2, 5, 6, 7), 2, (3, 3, 4))):
        x = torch.randn(shape, generator=g, dtype=torch.float64, requires_grad=True)
        s = torch.rand(shape[0], shape[1], n, generator=g, dtype=torch.float64)
        tf = getattr(torch.nn.functional, f"fractional_max_pool{n}d")
        ef = getattr(EF, f"fractional_max_pool{n}d")
        to, ti = tf(x, k, output_size=out, return_indices=True, _random_samples=s)
        ex = e(x).requires_grad_()
        with Log() as mode:
            eo, ei = ef(ex, k, output_size=out, return_indices=True, _random_samples=e(s))
        assert f"aten.fractional_max_pool{n}d.default" in mode.seen
        assert type(eo.grad_fn).__name__ == type(to.grad_fn).__name__ == f"FractionalMaxPool{n}DBackward0"
        assert eo.detach().numpy().tobytes() == to.detach().numpy().tobytes() and ei.tolist() == ti.tolist()
        gw = torch.randn(to.shape, generator=g, dtype=torch.float64)
        (tg,) = torch.autograd.grad(to, x, gw, create_graph=True)
        (eg,) = ember.autograd.grad(eo, ex, e(gw), create_graph=True)
        assert type(eg.grad_fn).__name__ == type(tg.grad_fn).__name__
        np.testing.assert_array_equal(eg.detach().numpy(), tg.detach().numpy())
        # double backward: d(grad_input)/d(grad_output) gathers at the indices, as torch's
        tgo = gw.clone().requires_grad_()
        (tg2,) = torch.autograd.grad(to, x, tgo, create_graph=True)
        (tgg,) = torch.autograd.grad(tg2, tgo, torch.ones_like(tg2))
        ego = e(gw).requires_grad_()
        (eg2,) = ember.autograd.grad(eo, ex, ego, create_graph=True)
        (egg,) = ember.autograd.grad(eg2, ego, ember.ones_like(eg2))
        np.testing.assert_array_equal(egg.numpy(), tgg.numpy())
        assert ember.autograd.gradcheck(lambda t: ef(t, k, output_size=out, _random_samples=e(s)), (ex,))
        assert ember.autograd.gradgradcheck(lambda t: ef(t, k, output_size=out, _random_samples=e(s)), (ex,))


def test_grid_sampler_3d_row():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 3, 4, 5, 3, generator=g, dtype=torch.float64, requires_grad=True)
    grid = (torch.rand(2, 3, 2, 4, 3, generator=g, dtype=torch.float64) * 2.2 - 1.1).requires_grad_()
    for mode in (0, 1):
        for pad in (0, 1, 2):
            for align in (False, True):
                to = torch.grid_sampler_3d(x, grid, mode, pad, align)
                ex, eg = e(x).requires_grad_(), e(grid).requires_grad_()
                with Log() as m:
                    eo = ember.grid_sampler_3d(ex, eg, mode, pad, align)
                assert m.seen == ["aten.grid_sampler_3d.default"]
                assert type(eo.grad_fn).__name__ == "GridSampler3DBackward0"
                np.testing.assert_allclose(eo.detach().numpy(), to.detach().numpy(), rtol=1e-12, atol=1e-12)
                gw = torch.randn(to.shape, generator=g, dtype=torch.float64)
                tgx, tgg = torch.autograd.grad(to, (x, grid), gw)
                egx, egg = ember.autograd.grad(eo, (ex, eg), e(gw))
                np.testing.assert_allclose(egx.numpy(), tgx.numpy(), rtol=1e-10, atol=1e-10)
                np.testing.assert_allclose(egg.numpy(), tgg.numpy(), rtol=1e-10, atol=1e-10)
    ex, eg = e(x).requires_grad_(), e(grid).requires_grad_()
    gx, gg = ember.autograd.grad(ember.grid_sampler_3d(ex, eg, 0, 0, False).sum(), (ex, eg), create_graph=True)
    assert type(gx.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::grid_sampler_3d_backward is not implemented"):
        gx.sum().backward()
    # F.grid_sample on 5-d input reaches the row
    with Log() as m:
        EF.grid_sample(e(x), e(grid), align_corners=False)
    assert "aten.grid_sampler_3d.default" in m.seen


@pytest.mark.parametrize("name", ["gru", "rnn_tanh", "rnn_relu", "lstm"])
def test_recurrences_are_composite_rows(name):
    g = torch.Generator().manual_seed(2)
    gates = {"gru": 3, "lstm": 4}.get(name, 1)
    x = torch.randn(4, 2, 3, generator=g)
    h = torch.randn(1, 2, 5, generator=g)
    params = [torch.randn(gates * 5, 3, generator=g), torch.randn(gates * 5, 5, generator=g),
              torch.randn(gates * 5, generator=g), torch.randn(gates * 5, generator=g)]
    hx = [h, torch.randn(1, 2, 5, generator=g)] if name == "lstm" else h
    ehx = [e(t) for t in hx] if name == "lstm" else e(hx)
    want = getattr(torch, name)(x, hx, params, True, 1, 0.0, False, False, False)
    with FnLog() as fm:
        got = getattr(ember, name)(e(x), ehx, [e(p) for p in params], True, 1, 0.0, False, False, False)
    assert any(name in s for s in fm.seen), fm.seen
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    # the .data overload (a packed sequence's data and batch sizes)
    bs = torch.tensor([2, 2, 1])
    data = torch.randn(5, 3, generator=g)
    want = getattr(torch, name)(data, bs, hx, params, True, 1, 0.0, False, False)
    got = getattr(ember, name)(e(data), e(bs), ehx, [e(p) for p in params], True, 1, 0.0, False, False)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    op = getattr(ember.ops.aten, name)
    got = op.input(e(x), ehx, [e(p) for p in params], True, 1, 0.0, False, False, False)
    np.testing.assert_allclose(got[0].numpy(), getattr(torch.ops.aten, name).input(
        x, hx, params, True, 1, 0.0, False, False, False)[0].numpy(), rtol=1e-5, atol=1e-6)


def test_meta_inputs():
    def m(*s):
        return ember.empty(*s, device="meta")

    assert tuple(ember.grid_sampler_3d(m(1, 2, 3, 3, 3), m(1, 2, 2, 2, 3), 0, 0, False).shape) == (1, 2, 2, 2, 2)
    gi, gg = ember.ops.aten.grid_sampler_3d_backward(m(1, 2, 2, 2, 2), m(1, 2, 3, 3, 3), m(1, 2, 2, 2, 3), 0, 0,
                                                     False, [True, True])
    assert gi.is_meta and tuple(gg.shape) == (1, 2, 2, 2, 3)
    out, idx = ember.ops.aten.fractional_max_pool2d(m(1, 2, 6, 6), [2, 2], [3, 3], m(1, 2, 2))
    assert out.is_meta and idx.dtype == ember.int64 and tuple(idx.shape) == (1, 2, 3, 3)
    g = ember.ops.aten.fractional_max_pool3d_backward(m(1, 2, 3, 3, 3), m(1, 2, 6, 6, 6), [2, 2, 2], [3, 3, 3],
                                                      ember.empty(1, 2, 3, 3, 3, dtype=ember.int64, device="meta"))
    assert g.is_meta and tuple(g.shape) == (1, 2, 6, 6, 6)
