"""per_channel_affine_float_qparams quantized tensors (quint8, qint8 and the sub-byte quint4x2 /
quint2x4) against torch 1.13: codes (int_repr, packed for sub-byte dtypes) and dequantized values
bit for bit, qparams, reprs character for character, views, copies and error texts."""
import copy
import pickle

import numpy as np
import pytest
import torch

import ember

DTYPES = ["quint8", "qint8", "quint4x2", "quint2x4"]


def table(rows, cols, seed=0, spread=3.0):
    """A float table (torch, ember) with ties and values far outside the range, its float scales
    (one of them 0) and zero points (some negative, some beyond the dtype's range)."""
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(rows, cols, generator=g) * spread
    s = torch.rand(rows, generator=g) + 0.02
    z = torch.randn(rows, generator=g) * 3
    flat = w.view(-1)
    if flat.numel() >= 4 and rows >= 2:
        w[0, 0] = 0.5 * s[0]           # a tie before adding the zero point
        flat[1] = 1e30
        flat[-1] = float("nan")
        flat[-2] = -float("inf")
        s[-1] = 0.0                     # inv_scale 1, as torch
    return w, s, z


def to_ember(t):
    return ember.from_numpy(t.numpy().copy())


def codes_equal(e, t):
    a, b = e.int_repr().numpy(), t.int_repr().numpy()
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)


def floats_equal(e, t):
    a, b = e.numpy(), t.numpy()
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 6), (7, 5), (3, 1), (1, 16), (0, 4), (5, 0)])
def test_quantize_dequantize_bit_exact(dtype, shape):
    w, s, z = table(*shape, seed=sum(shape))
    t = torch.quantize_per_channel(w, s, z, 0, getattr(torch, dtype))
    e = ember.quantize_per_channel(to_ember(w), to_ember(s), to_ember(z), 0, getattr(ember, dtype))
    assert e.dtype == getattr(ember, dtype)
    assert e.qscheme() == ember.per_channel_affine_float_qparams
    assert codes_equal(e, t)
    assert floats_equal(e.dequantize(), t.dequantize())
    assert floats_equal(e.q_per_channel_scales(), t.q_per_channel_scales())
    assert floats_equal(e.q_per_channel_zero_points(), t.q_per_channel_zero_points())
    assert e.q_per_channel_axis() == t.q_per_channel_axis() == 0
    assert e.element_size() == t.element_size()


@pytest.mark.parametrize("seed", range(6))
def test_quantize_many_values_bit_exact(seed):
    # Rows whose x / s + z often lands on .5: torch's two roundings (no fused multiply-add).
    g = torch.Generator().manual_seed(seed)
    rows = 64
    s = (torch.randint(1, 64, (rows,), generator=g).float() / 64)
    z = torch.randint(-40, 300, (rows,), generator=g).float() / 4
    w = (torch.randint(-2000, 2000, (rows, 50), generator=g).float() / 8) * s[:, None]
    for dtype in DTYPES:
        t = torch.quantize_per_channel(w, s, z, 0, getattr(torch, dtype))
        e = ember.quantize_per_channel(to_ember(w), to_ember(s), to_ember(z), 0,
                                       getattr(ember, dtype))
        assert codes_equal(e, t), dtype
        assert floats_equal(e.dequantize(), t.dequantize()), dtype


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_other_axes_and_layouts(axis):
    g = torch.Generator().manual_seed(axis)
    w = torch.randn(3, 4, 5, generator=g)
    n = w.shape[axis]
    s, z = torch.rand(n, generator=g) + 0.1, torch.randn(n, generator=g)
    for src in (w, w.permute(0, 2, 1).contiguous().permute(0, 2, 1)):
        for dtype in ("quint8", "quint4x2"):
            t = torch.quantize_per_channel(src, s, z, axis, getattr(torch, dtype))
            e = ember.quantize_per_channel(ember.from_numpy(src.numpy()), to_ember(s), to_ember(z),
                                           axis, getattr(ember, dtype))
            assert codes_equal(e, t)
            assert floats_equal(e.dequantize(), t.dequantize())
            assert tuple(e.stride()) == tuple(t.stride())


def test_qparam_dtypes_follow_torch():
    w, s, z = table(4, 6)
    for sd, zd in [(torch.float64, torch.float32), (torch.float32, torch.float64),
                   (torch.float32, torch.float16)]:
        t = torch.quantize_per_channel(w, s.to(sd), z.to(zd), 0, torch.quint8)
        e = ember.quantize_per_channel(to_ember(w), to_ember(s.to(sd)), to_ember(z.to(zd)), 0,
                                       ember.quint8)
        assert t.q_per_channel_scales().dtype == torch.float32
        assert e.q_per_channel_scales().dtype == ember.float32
        assert e.q_per_channel_zero_points().dtype == ember.float32
        assert codes_equal(e, t)


@pytest.mark.parametrize("dtype", DTYPES)
def test_repr_matches_torch(dtype):
    w, s, z = table(4, 6, seed=5)
    w[-1, -1] = 0.0
    w[-1, -2] = 0.25
    t = torch.quantize_per_channel(w, s, z, 0, getattr(torch, dtype))
    e = ember.quantize_per_channel(to_ember(w), to_ember(s), to_ember(z), 0, getattr(ember, dtype))
    assert repr(e) == repr(t).replace("torch.", "ember.")


def test_errors_match_torch():
    w, s, z = table(4, 6)
    W, S, Z = to_ember(w), to_ember(s), to_ember(z)
    cases = [
        (lambda m, w, s, z: m.quantize_per_channel(w, s, z, 2, m.quint8)),
        (lambda m, w, s, z: m.quantize_per_channel(w, s, z, -1, m.quint8)),
        (lambda m, w, s, z: m.quantize_per_channel(w, s[:3], z, 0, m.quint8)),
        (lambda m, w, s, z: m.quantize_per_channel(w, s[:3], z[:3], 0, m.quint8)),
        (lambda m, w, s, z: m.quantize_per_channel(w, s.int(), z, 0, m.quint8)),
        (lambda m, w, s, z: m.quantize_per_channel(w.double(), s, z, 0, m.quint8)),
        (lambda m, w, s, z: m.quantize_per_channel(w, s, z, 0, m.float)),
        (lambda m, w, s, z: m.quantize_per_channel(w, s, z, 0, m.quint8).q_scale()),
        (lambda m, w, s, z: m.quantize_per_channel(w, s, z, 0, m.quint8)[1:3]),
        (lambda m, w, s, z: m.quantize_per_channel(w, s, z, 0, m.quint8)[:, 1]),
        (lambda m, w, s, z: m.quantize_per_channel(w, s, z, 0, m.quint8).t()),
        (lambda m, w, s, z: m.quantize_per_channel(w, s, z, 0, m.quint8).split(2)),
        (lambda m, w, s, z: m.quantize_per_channel(w, s, z, 0, m.quint8).clone()),
        (lambda m, w, s, z: m.quantize_per_channel(w, s, z, 0, m.quint8).fill_(1.0)),
        (lambda m, w, s, z: m.quantize_per_channel(w, s, z, 0, m.quint8).copy_(w)),
        (lambda m, w, s, z: m.quantize_per_channel(w, s, z, 0, m.quint4x2).copy_(
            m.quantize_per_channel(w, s, z, 0, m.quint8))),
        (lambda m, w, s, z: m.quantize_per_channel(w, s, z, 0, m.quint8).view(2, 12).dequantize()),
    ]
    for i, case in enumerate(cases):
        with pytest.raises(RuntimeError) as te:
            case(torch, w, s, z)
        with pytest.raises(RuntimeError) as ee:
            case(ember, W, S, Z)
        assert str(ee.value).split("\n")[0] == str(te.value).split("\n")[0].replace(
            "torch.", "ember."), i


def test_select_gives_per_tensor_with_truncated_zero_point():
    w, s, z = table(4, 6, seed=1)
    z = torch.tensor([0.9, -0.7, 2.6, 1.2])
    t = torch.quantize_per_channel(w, s, z, 0, torch.quint8)
    e = ember.quantize_per_channel(to_ember(w), to_ember(s), to_ember(z), 0, ember.quint8)
    for i in (0, 1, 2, -1):
        ti, ei = t[i], e[i]
        assert ei.qscheme() == ember.per_tensor_affine
        assert ei.q_scale() == ti.q_scale() and ei.q_zero_point() == ti.q_zero_point()
        assert codes_equal(ei, ti)
        assert repr(ei) == repr(ti).replace("torch.", "ember.")
    assert [x.q_zero_point() for x in e.unbind(0)] == [x.q_zero_point() for x in t.unbind(0)]


def test_views_keep_the_quantizer_as_torch():
    w, s, z = table(4, 6, seed=2)
    t = torch.quantize_per_channel(w, s, z, 0, torch.quint8)
    e = ember.quantize_per_channel(to_ember(w), to_ember(s), to_ember(z), 0, ember.quint8)
    for f in (lambda q: q.view(4, 6), lambda q: q.detach(), lambda q: q.contiguous(),
              lambda q: q.unsqueeze(2), lambda q: q.unsqueeze(0)):
        tv, ev = f(t), f(e)
        assert str(ev.qscheme()) == str(tv.qscheme()).replace("torch.", "ember.")
        assert ev.q_per_channel_axis() == tv.q_per_channel_axis()
        assert tuple(ev.shape) == tuple(tv.shape)
    assert e.contiguous() is e


def test_copies_equality_and_pickling():
    w, s, z = table(4, 6, seed=3)
    t = torch.quantize_per_channel(w, s, z, 0, torch.quint8)
    e = ember.quantize_per_channel(to_ember(w), to_ember(s), to_ember(z), 0, ember.quint8)
    e2 = ember.quantize_per_channel(to_ember(w * 2), to_ember(s), to_ember(z), 0, ember.quint8)
    e2.copy_(e)
    assert codes_equal(e2, t) and ember.equal(e2, e)
    assert (e == e2).all()
    for c in (copy.deepcopy(e), pickle.loads(pickle.dumps(e))):
        assert c.qscheme() == ember.per_channel_affine_float_qparams
        assert codes_equal(c, t)
        assert floats_equal(c.q_per_channel_zero_points(), t.q_per_channel_zero_points())
    assert e.to(ember.quint8).qscheme() == ember.per_channel_affine_float_qparams
    with pytest.raises(RuntimeError) as te:
        torch.empty_like(t)
    with pytest.raises(RuntimeError) as ee:
        ember.empty_like(e)
    assert str(ee.value) == str(te.value).split("\n")[0]


def test_make_and_empty_per_channel_with_float_zero_points():
    g = torch.Generator().manual_seed(4)
    codes = torch.randint(0, 256, (4, 6), dtype=torch.uint8, generator=g)
    s, z = torch.rand(4, generator=g) + 0.1, torch.randn(4, generator=g) * 10
    t = torch._make_per_channel_quantized_tensor(codes, s, z, 0)
    e = ember._make_per_channel_quantized_tensor(to_ember(codes), to_ember(s), to_ember(z), 0)
    assert e.qscheme() == ember.per_channel_affine_float_qparams
    assert codes_equal(e, t)
    assert floats_equal(e.dequantize(), t.dequantize())
    for dtype in ("quint8", "quint4x2", "quint2x4"):
        te = torch._empty_per_channel_affine_quantized([4, 6], scales=s, zero_points=z, axis=0,
                                                       dtype=getattr(torch, dtype))
        ee = ember._empty_per_channel_affine_quantized([4, 6], scales=to_ember(s),
                                                       zero_points=to_ember(z), axis=0,
                                                       dtype=getattr(ember, dtype))
        assert ee.qscheme() == ember.per_channel_affine_float_qparams
        assert tuple(ee.int_repr().shape) == tuple(te.int_repr().shape)
    with pytest.raises(RuntimeError) as te:
        torch._make_per_channel_quantized_tensor(codes, s, z, 1).dequantize()
    with pytest.raises(RuntimeError) as ee:
        ember._make_per_channel_quantized_tensor(to_ember(codes), to_ember(s), to_ember(z),
                                                 1).dequantize()
    assert str(ee.value) == str(te.value).split("\n")[0]


@pytest.mark.parametrize("dtype", ["quint4x2", "quint2x4"])
def test_sub_byte_select_reads_bytes_as_torch(dtype):
    w, s, z = table(4, 6, seed=6)
    w[-1] = 0.0
    t = torch.quantize_per_channel(w, s, z, 0, getattr(torch, dtype))
    e = ember.quantize_per_channel(to_ember(w), to_ember(s), to_ember(z), 0, getattr(ember, dtype))
    def outcome(f):
        try:
            return f()
        except RuntimeError as err:
            return str(err).split("\n")[0]

    for i in range(4):
        got = outcome(lambda: e[i].int_repr().numpy().tolist())
        want = outcome(lambda: t[i].int_repr().numpy().tolist())
        assert got == want, i
        got = outcome(lambda: e[i].dequantize().numpy().tolist())
        want = outcome(lambda: t[i].dequantize().numpy().tolist())
        assert got == want, i


@pytest.mark.parametrize("dtype", ["quint4x2", "quint2x4"])
def test_sub_byte_per_tensor(dtype):
    w, _, _ = table(5, 7, seed=8)
    w = torch.nan_to_num(w, nan=0.0, posinf=1e3, neginf=-1e3)
    t = torch.quantize_per_tensor(w, 0.37, 3, getattr(torch, dtype))
    e = ember.quantize_per_tensor(to_ember(w), 0.37, 3, getattr(ember, dtype))
    assert codes_equal(e, t)
    assert floats_equal(e.dequantize(), t.dequantize())
    assert repr(e) == repr(t).replace("torch.", "ember.")


def test_sub_byte_dtypes():
    for name in ("quint4x2", "quint2x4"):
        d, td = getattr(ember, name), getattr(torch, name)
        assert str(d) == str(td).replace("torch.", "ember.")
        assert d.is_floating_point is False and d.is_complex is False
    q = ember.quantize_per_tensor(ember.randn(4, 6), 0.1, 3, ember.quint4x2)
    with pytest.raises(RuntimeError, match="(?i)quint4x2"):
        ember.ops.quantized.relu6(q)
    w = torch.randn(4, 6)
    t = torch.quantize_per_tensor(w, 0.1, 3, torch.quint4x2)
    e = ember.quantize_per_tensor(to_ember(w), 0.1, 3, ember.quint4x2)
    with pytest.raises(RuntimeError) as te:
        t.clone()
    with pytest.raises(RuntimeError) as ee:
        e.clone()
    assert str(ee.value) == str(te.value).split("\n")[0]
