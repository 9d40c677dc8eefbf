"""The shortcuts taken for the int8 model's speed keep PyTorch's behaviour.

`nn.Sequential` skips an `Identity` child only when nothing can tell: hooks on it (forward,
pre-forward, module-global) still fire, a Python subclass of Identity still runs its forward,
and results equal torch's. The quantized add's vector path and the NCHW input of a quantized
conv give torch's codes (the fast engine's tests of record are test_qelementwise_ops.py and
test_qconv_ops.py; these pin the shapes that take the new paths)."""
import numpy as np
import pytest
import torch

import ember


def e(t):
    return ember.from_numpy(t.numpy().copy())


def seq_pair():
    x = torch.randn(2, 3)
    return x, e(x)


def test_identity_child_hooks_fire():
    seen = []
    for lib, x in zip((torch, ember), seq_pair()):
        ident = lib.nn.Identity()
        seq = lib.nn.Sequential(lib.nn.ReLU(), ident, lib.nn.ReLU())
        h1 = ident.register_forward_pre_hook(lambda m, a: (a[0] * 2,))
        h2 = ident.register_forward_hook(lambda m, a, out: out + 1)
        y = seq(x)
        seen.append(y.numpy())
        h1.remove()
        h2.remove()
        plain = seq(x)
        assert np.allclose(plain.numpy(), np.maximum(x.numpy(), 0))
    assert np.allclose(seen[0], seen[1])
    assert np.allclose(seen[1], np.maximum(seen[1], 0))  # relu(relu(x) * 2 + 1)


def test_identity_child_global_hook_fires():
    calls = []
    x = e(torch.randn(4))
    seq = ember.nn.Sequential(ember.nn.Identity(), ember.nn.Identity())
    h = ember.nn.modules.module.register_module_forward_hook(
        lambda m, a, out: calls.append(type(m).__name__))
    try:
        seq(x)
    finally:
        h.remove()
    assert calls == ["Identity", "Identity", "Sequential"]


def test_identity_subclass_forward_runs():
    class Twice(ember.nn.Identity):
        def forward(self, x):
            return x * 2

    class TorchTwice(torch.nn.Identity):
        def forward(self, x):
            return x * 2

    tx, ex = seq_pair()
    want = torch.nn.Sequential(torch.nn.Identity(), TorchTwice(), torch.nn.Identity())(tx)
    got = ember.nn.Sequential(ember.nn.Identity(), Twice(), ember.nn.Identity())(ex)
    assert np.array_equal(got.numpy(), want.numpy())


def test_identity_only_sequential_returns_its_input():
    x = e(torch.randn(3, 2))
    seq = ember.nn.Sequential(ember.nn.Identity(), ember.nn.Identity())
    assert seq(x) is x
    assert ember.nn.Sequential(ember.nn.Identity())("any value") == "any value"


@pytest.mark.parametrize("engine", ["onednn", "qnnpack"])
def test_quantized_add_vector_path_matches_torch(engine):
    prev = torch.backends.quantized.engine
    torch.backends.quantized.engine = engine
    ember.backends.quantized.engine = engine
    try:
        rng = np.random.default_rng(3)
        for shape, (sa, za), (sb, zb), (sy, zy) in [
            ((1, 24, 56, 56), (0.05, 128), (0.07, 120), (0.09, 130)),
            ((1, 32, 28, 29), (0.02, 0), (0.5, 255), (1e-4, 0)),  # saturating (generic only:
            ((2, 7, 9, 5), (0.1, 10), (0.1, 10), (0.3, 3)),       # QNNPACK refuses the ratio)
        ]:
            if engine == "qnnpack" and sy < 1e-3:
                continue
            a = torch.from_numpy(rng.uniform(-8, 8, shape).astype(np.float32))
            b = torch.from_numpy(rng.uniform(-8, 8, shape).astype(np.float32))
            for fmt in (torch.contiguous_format, torch.channels_last):
                qa = torch.quantize_per_tensor(a, sa, za, torch.quint8).contiguous(memory_format=fmt)
                qb = torch.quantize_per_tensor(b, sb, zb, torch.quint8).contiguous(memory_format=fmt)
                ea = ember.quantize_per_tensor(e(a), sa, za, ember.quint8).contiguous(
                    memory_format=ember.channels_last if fmt is torch.channels_last
                    else ember.contiguous_format)
                eb = ember.quantize_per_tensor(e(b), sb, zb, ember.quint8).contiguous(
                    memory_format=ember.channels_last if fmt is torch.channels_last
                    else ember.contiguous_format)
                for op in ("add", "add_relu"):
                    want = getattr(torch.ops.quantized, op)(qa, qb, sy, zy)
                    got = getattr(ember.ops.quantized, op)(ea, eb, sy, zy)
                    assert np.array_equal(ember.int_repr(got).numpy(), want.int_repr().numpy()), (
                        engine, shape, op, fmt)
    finally:
        torch.backends.quantized.engine = prev
        ember.backends.quantized.engine = "x86"


@pytest.mark.parametrize("engine", ["onednn", "qnnpack"])
@pytest.mark.parametrize("channels", [1, 3, 4, 17])
def test_conv_on_nchw_input_matches_channels_last_input(engine, channels):
    """An NCHW-contiguous quantized input takes the dedicated reordering; its result equals the
    same input given channels_last, and torch's codes (within onednn's 1 LSB on the fast one)."""
    import ember.ao.nn.quantized as ennq
    torch.backends.quantized.engine = engine
    ember.backends.quantized.engine = engine
    try:
        torch.manual_seed(channels)
        tconv = torch.ao.nn.quantized.Conv2d(channels, 8, 3, stride=2, padding=1)
        tconv.scale, tconv.zero_point = 0.07, 60
        econv = ennq.Conv2d(channels, 8, 3, stride=2, padding=1)
        econv.set_weight_bias(
            ember._make_per_tensor_quantized_tensor(
                e(tconv.weight().int_repr()), tconv.weight().q_scale(), tconv.weight().q_zero_point()),
            e(tconv.bias().detach()))
        econv.scale, econv.zero_point = 0.07, 60
        x = torch.rand(2, channels, 15, 13) * 4 - 2
        tq = torch.quantize_per_tensor(x, 0.02, 100, torch.quint8)
        eq = ember.quantize_per_tensor(e(x), 0.02, 100, ember.quint8)
        assert eq.is_contiguous()
        got = ember.int_repr(econv(eq)).numpy().astype(int)
        cl = ember.int_repr(econv(eq.contiguous(memory_format=ember.channels_last))).numpy()
        want = tconv(tq).int_repr().numpy().astype(int)
        assert np.array_equal(got, cl)
        if engine == "qnnpack":
            assert np.array_equal(got, want)
        else:
            assert np.abs(got - want).max() <= 1
    finally:
        torch.backends.quantized.engine = "onednn"
        ember.backends.quantized.engine = "x86"
