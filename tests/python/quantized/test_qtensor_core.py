"""Quantized tensors against PyTorch 1.13: quantize / dequantize bit for bit (quantization-spec
§ 1.2), the qparam accessors, the constructors, qscheme objects, the engine setting and the
error texts."""
import pickle

import numpy as np
import pytest
import torch

import ember

QDTYPES = ["quint8", "qint8", "qint32"]


def E(t):
    """A torch tensor as an ember tensor (same values and dtype)."""
    return ember.from_numpy(t.detach().numpy().copy(order="K"))


def raises_same(fe, ft):
    """Both calls raise the same exception type with the same message (torch. -> ember.)."""
    with pytest.raises(Exception) as et:
        ft()
    with pytest.raises(Exception) as ee:
        fe()
    assert type(ee.value).__name__ == type(et.value).__name__
    te, tt = str(ee.value).split("\n")[0], str(et.value).split("\n")[0].replace("torch.", "ember.")
    if tt.startswith("Could not run"):  # the dispatcher's text: its first sentence
        te, tt = te[:te.index(" backend.")], tt[:tt.index(" backend.")]
    assert te == tt


def special_values(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, generator=g) * 40
    x[::7] = torch.round(x[::7]) + 0.5  # ties
    x[1] = float("nan")
    x[2] = float("inf")
    x[3] = -float("inf")
    x[4] = 1e30
    x[5] = -3e9
    x[6] = 16777217.0
    return x


@pytest.mark.parametrize("dt", QDTYPES)
@pytest.mark.parametrize("scale,zp", [(1.0, 0), (0.1, 3), (0.00214854861, 0), (0.37, -3), (7.3, 1)])
def test_quantize_per_tensor_bit_exact(dt, scale, zp):
    if dt == "quint8" and zp < 0:
        zp = 200
    x = special_values(70001, 1)
    tq = torch.quantize_per_tensor(x, scale, zp, getattr(torch, dt))
    eq = ember.quantize_per_tensor(E(x), scale, zp, getattr(ember, dt))
    assert eq.dtype is getattr(ember, dt)
    assert eq.is_quantized and eq.qscheme() is ember.per_tensor_affine
    assert eq.q_scale() == tq.q_scale() and eq.q_zero_point() == tq.q_zero_point()
    np.testing.assert_array_equal(eq.int_repr().numpy(), tq.int_repr().numpy())
    td, ed = tq.dequantize().numpy(), eq.dequantize().numpy()
    assert ed.dtype == np.float32
    np.testing.assert_array_equal(ed.view(np.int32), td.view(np.int32))  # bit for bit


@pytest.mark.parametrize("dt", ["quint8", "qint8", "qint32"])
@pytest.mark.parametrize("axis,channels_last", [(0, False), (1, False), (2, False), (3, False),
                                                (0, True), (1, True)])
def test_quantize_per_channel_bit_exact(dt, axis, channels_last):
    g = torch.Generator().manual_seed(axis)
    x = torch.randn(3, 4, 5, 6, generator=g) * 10
    if channels_last:
        x = x.contiguous(memory_format=torch.channels_last)
    c = x.shape[axis]
    scales = torch.rand(c, generator=g, dtype=torch.float64) + 0.01
    lo, hi = {"quint8": (0, 256), "qint8": (-128, 128), "qint32": (-1000, 1000)}[dt]
    zps = torch.randint(lo, hi, (c,), generator=g)
    tq = torch.quantize_per_channel(x, scales, zps, axis, getattr(torch, dt))
    eq = ember.quantize_per_channel(E(x), E(scales), E(zps), axis, getattr(ember, dt))
    assert eq.qscheme() is ember.per_channel_affine
    assert eq.q_per_channel_axis() == axis
    assert eq.stride() == tq.stride()
    np.testing.assert_array_equal(eq.q_per_channel_scales().numpy(), tq.q_per_channel_scales().numpy())
    np.testing.assert_array_equal(eq.q_per_channel_zero_points().numpy(), tq.q_per_channel_zero_points().numpy())
    assert eq.q_per_channel_scales().dtype is ember.float64
    assert eq.q_per_channel_zero_points().dtype is ember.int64
    np.testing.assert_array_equal(eq.int_repr().numpy(), tq.int_repr().numpy())
    np.testing.assert_array_equal(eq.dequantize().numpy().view(np.int32), tq.dequantize().numpy().view(np.int32))
    assert eq.int_repr().stride() == tq.int_repr().stride()
    assert eq.dequantize().stride() == tq.dequantize().stride()


def test_checklist_items():
    x = ember.tensor([0.5, 1.5, 2.5, -0.5, -1.5])
    assert ember.quantize_per_tensor(x, 1.0, 0, ember.qint8).int_repr().tolist() == [0, 2, 2, 0, -2]
    assert ember.quantize_per_tensor(ember.tensor([0.273939937]), 0.00214854861, 0, ember.quint8).int_repr().tolist() == [128]
    assert ember.quantize_per_tensor(ember.tensor([300., -300.]), 1.0, 10, ember.quint8).int_repr().tolist() == [255, 0]
    assert ember.quantize_per_tensor(ember.tensor([0.5, 1.5, -0.5]), 1.0, 1, ember.quint8).int_repr().tolist() == [1, 3, 1]
    q = ember._make_per_tensor_quantized_tensor(ember.tensor([200], dtype=ember.uint8), 0.0235, 128)
    assert q.dequantize().numpy()[0] == np.float32(72) * np.float32(0.0235)
    for dt, it in [("quint8", "uint8"), ("qint8", "int8"), ("qint32", "int32")]:
        assert ember.quantize_per_tensor(x, 1.0, 0, getattr(ember, dt)).int_repr().dtype is getattr(ember, it)


@pytest.mark.parametrize("case", range(17))
def test_errors_match_torch(case):
    def both(f):
        raises_same(lambda: f(ember, E), lambda: f(torch, lambda t: t))

    x = torch.randn(2, 3)
    S = torch.tensor([0.1, 0.2], dtype=torch.float64)
    Z = torch.tensor([1, 2])
    cases = [
        lambda m, c: m.quantize_per_tensor(c(x), 0.1, 300, m.quint8),
        lambda m, c: m.quantize_per_tensor(c(x), 0.1, -1, m.quint8),
        lambda m, c: m.quantize_per_tensor(c(x), 0.1, 200, m.qint8),
        lambda m, c: m.quantize_per_tensor(c(x), 0.1, 0, m.float),
        lambda m, c: m.quantize_per_tensor(c(x.double()), 0.1, 0, m.quint8),
        lambda m, c: m.quantize_per_channel(c(x), c(S), c(Z), 2, m.quint8),
        lambda m, c: m.quantize_per_channel(c(x), c(S), c(Z), 1, m.quint8),
        lambda m, c: m.quantize_per_channel(c(x), c(S), c(torch.tensor([1, 300])), 0, m.quint8),
        lambda m, c: m.quantize_per_channel(c(x.double()), c(S), c(Z), 0, m.quint8),
        lambda m, c: m.quantize_per_channel(c(x), c(S[:1]), c(Z), 0, m.quint8),
        lambda m, c: c(x).int_repr(),
        lambda m, c: c(x).q_scale(),
        lambda m, c: m.quantize_per_channel(c(x), c(S), c(Z), 0, m.quint8).q_scale(),
        lambda m, c: m.quantize_per_tensor(c(x), 0.1, 3, m.quint8).q_per_channel_axis(),
        lambda m, c: m._empty_affine_quantized([2, 3], scale=0.1, zero_point=3, dtype=m.float),
        lambda m, c: m._make_per_tensor_quantized_tensor(c(torch.tensor([1, 2])), 0.1, 3),
        lambda m, c: m.quantize_per_channel(c(x.view(1, 2, 3, 1).contiguous(memory_format=torch.channels_last)),
                                            c(torch.ones(3, dtype=torch.float64)), c(torch.zeros(3, dtype=torch.int64)),
                                            2, m.quint8),
    ]
    both(cases[case])


def test_tensor_qparams_and_lists():
    x = torch.randn(2, 3)
    tq = torch.quantize_per_tensor(x, torch.tensor(0.1), torch.tensor(10), torch.quint8)
    eq = ember.quantize_per_tensor(E(x), ember.tensor(0.1), ember.tensor(10), ember.quint8)
    assert eq.q_scale() == tq.q_scale() and eq.q_zero_point() == 10
    np.testing.assert_array_equal(eq.int_repr().numpy(), tq.int_repr().numpy())
    tl = torch.quantize_per_tensor([x, x * 2], torch.tensor([0.1, 0.2]), torch.tensor([10, 3]), torch.quint8)
    el = ember.quantize_per_tensor([E(x), E(x * 2)], ember.tensor([0.1, 0.2]), ember.tensor([10, 3]), ember.quint8)
    assert isinstance(el, tuple) and len(el) == 2
    for a, b in zip(el, tl):
        assert a.q_scale() == b.q_scale() and a.q_zero_point() == b.q_zero_point()
        np.testing.assert_array_equal(a.int_repr().numpy(), b.int_repr().numpy())
    ed = ember.dequantize(list(el) + [E(x)])
    td = torch.dequantize(list(tl) + [x])
    for a, b in zip(ed, td):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_make_and_empty():
    u = torch.tensor([[1, 2], [3, 4]], dtype=torch.int8)
    S = torch.tensor([0.1, 0.2], dtype=torch.float64)
    Z = torch.tensor([1, 2])
    for axis in (0, 1):
        tq = torch._make_per_channel_quantized_tensor(u, S, Z, axis)
        eu = E(u)
        eq = ember._make_per_channel_quantized_tensor(eu, E(S), E(Z), axis)
        eu.fill_(9)  # a copy of the codes, as torch makes
        np.testing.assert_array_equal(eq.int_repr().numpy(), tq.int_repr().numpy())
        np.testing.assert_array_equal(eq.dequantize().numpy(), tq.dequantize().numpy())
    for dt in ("uint8", "int8", "int32"):
        t = torch.tensor([1, 2], dtype=getattr(torch, dt))
        e = ember._make_per_tensor_quantized_tensor(E(t), 0.1, 3)
        assert str(e.dtype) == str(torch._make_per_tensor_quantized_tensor(t, 0.1, 3).dtype).replace("torch", "ember")
    e = ember._empty_affine_quantized([2, 3, 4, 5], scale=0.5, zero_point=2, dtype=ember.qint8,
                                      memory_format=ember.channels_last)
    t = torch._empty_affine_quantized([2, 3, 4, 5], scale=0.5, zero_point=2, dtype=torch.qint8,
                                      memory_format=torch.channels_last)
    assert e.stride() == t.stride() and e.q_scale() == 0.5 and e.q_zero_point() == 2
    e = ember._empty_per_channel_affine_quantized([2, 3], scales=E(S), zero_points=E(Z), axis=0, dtype=ember.quint8)
    assert e.qscheme() is ember.per_channel_affine and e.q_per_channel_axis() == 0


def test_meta_quantized():
    m = ember._empty_affine_quantized([2, 3], scale=0.1, zero_point=3, dtype=ember.quint8, device="meta")
    assert m.is_meta and m.is_quantized and m.q_scale() == 0.1 and m.shape == (2, 3)
    q = ember.quantize_per_tensor(ember.empty(2, 3, device="meta"), 0.1, 3, ember.qint8)
    assert q.is_meta and q.dtype is ember.qint8
    assert q.dequantize().is_meta and q.dequantize().dtype is ember.float32


def test_grad_rules():
    x = ember.tensor([0.5], requires_grad=True)
    q = ember.quantize_per_tensor(x, 0.1, 3, ember.quint8)
    assert not q.requires_grad and q.grad_fn is None
    assert not q.dequantize().requires_grad


def test_qscheme_objects():
    names = ["per_tensor_affine", "per_channel_affine", "per_tensor_symmetric",
             "per_channel_symmetric", "per_channel_affine_float_qparams"]
    for n in names:
        o = getattr(ember, n)
        assert isinstance(o, ember.qscheme)
        assert repr(o) == repr(getattr(torch, n)).replace("torch", "ember")
        assert str(o) == "ember." + n
        assert pickle.loads(pickle.dumps(o)) is o
    assert repr(ember.qscheme) == "<class 'ember.qscheme'>"
    assert ember.per_tensor_affine != ember.per_channel_affine
    q = ember.quantize_per_tensor(ember.tensor([1.0]), 0.1, 0, ember.quint8)
    assert q.qscheme() is ember.per_tensor_affine
    assert ember.ops.aten.qscheme.default(q) is ember.per_tensor_affine
    assert ember.ops.aten.q_scale.default(q) == 0.1


def test_engine():
    qb = ember.backends.quantized
    assert type(qb).__name__ == "QuantizedEngine"
    assert qb.engine == "x86"
    assert qb.supported_engines == ["qnnpack", "none", "onednn", "x86"]
    try:
        for name in ("qnnpack", "onednn", "none", "x86"):
            qb.engine = name
            assert qb.engine == name
        qb.engine = None
        assert qb.engine == "none"
        for bad, ttext in [("fbgemm", "quantized engine FBGEMM is not supported"),
                           ("foo", "foo is not a valid value for quantized engine"),
                           (3, "3 is not a valid value for quantized engine")]:
            with pytest.raises(RuntimeError) as e:
                qb.engine = bad
            assert str(e.value) == ttext
        with pytest.raises(RuntimeError, match="Assignment not supported"):
            qb.supported_engines = []
    finally:
        qb.engine = "x86"


def test_dispatch_mode_sees_the_ops():
    from ember.utils._python_dispatch import TorchDispatchMode
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x = ember.tensor([0.5, 1.5])
    with Log():
        q = ember.quantize_per_tensor(x, 0.1, 3, ember.quint8)
        assert q.q_scale() == 0.1 and q.q_zero_point() == 3
        assert q.qscheme() is ember.per_tensor_affine
        r, d = q.int_repr(), q.dequantize()
    assert r.tolist() == [8, 18] and d.tolist() == [0.5, 1.5]
    assert seen == ["aten.quantize_per_tensor.default", "aten.q_scale.default",
                    "aten.q_zero_point.default", "aten.qscheme.default", "aten.int_repr.default",
                    "aten.dequantize.self"]
