"""quantized::layer_norm / group_norm / instance_norm and batch_norm1d / 3d / batch_norm (+ _relu)
against torch 1.13: every code, qparams and layout, errors, meta, dispatch visibility."""
import numpy as np
import pytest
import torch

import ember
from qhelpers import ENGINES, assert_same, engine, random_pair

Q, TQ = ember.ops.quantized, torch.ops.quantized


def floats(rng, n, scale=1.0):
    a = (rng.standard_normal(n) * scale).astype(np.float32)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def _raises_same(fe, ft):
    with pytest.raises(Exception) as te:
        ft()
    with pytest.raises(Exception) as ee:
        fe()
    assert type(ee.value).__name__ == type(te.value).__name__
    assert str(ee.value).split("\n")[0] == str(te.value).split("\n")[0]


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("dt", ["quint8", "qint8"])
@pytest.mark.parametrize("case", range(4))
def test_layer_norm(eng, dt, case):
    shape, norm = [((4, 37), (37,)), ((3, 5, 64), (5, 64)), ((2, 130), (130,)),
                   ((2, 3, 4, 5), (5,))][case]
    rng = np.random.default_rng(case)
    t, e = random_pair(rng, shape, dt, channels_last=case == 3)
    oz = 120 if dt == "quint8" else -3
    with engine(eng):
        n = int(np.prod(norm))
        we, wt = floats(rng, n)
        be, bt = floats(rng, n)
        we, wt, be, bt = we.reshape(norm), wt.reshape(norm), be.reshape(norm), bt.reshape(norm)
        for w, b in (((we, be), (wt, bt)), ((None, None), (None, None))):
            ye = Q.layer_norm(e, list(norm), w[0], w[1], 1e-5, 0.05, oz)
            yt = TQ.layer_norm(t, list(norm), b[0], b[1], 1e-5, 0.05, oz)
            assert_same(yt, ye)
        _raises_same(lambda: Q.layer_norm(e, [3], we, be, 1e-5, 0.1, 0),
                     lambda: TQ.layer_norm(t, [3], wt, bt, 1e-5, 0.1, 0))


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("case", range(5))
def test_group_and_instance_norm(eng, case):
    shape, groups, cl = [((2, 6, 5, 7), 3, False), ((1, 4, 9, 9), 2, True),
                         ((3, 8, 4, 4), 8, False), ((2, 6, 33), 1, False),
                         ((2, 4, 3, 2, 5), 2, False)][case]
    rng = np.random.default_rng(10 + case)
    t, e = random_pair(rng, shape, "quint8", channels_last=cl)
    with engine(eng):
        we, wt = floats(rng, shape[1])
        be, bt = floats(rng, shape[1])
        assert_same(TQ.group_norm(t, groups, wt, bt, 1e-5, 0.05, 120),
                    Q.group_norm(e, groups, we, be, 1e-5, 0.05, 120))
        assert_same(TQ.group_norm(t, groups, None, None, 1e-4, 0.03, 100),
                    Q.group_norm(e, groups, None, None, 1e-4, 0.03, 100))
        yt, ye = TQ.instance_norm(t, wt, bt, 1e-5, 0.05, 120), Q.instance_norm(e, we, be, 1e-5, 0.05, 120)
        assert_same(yt, ye)
        assert ye.stride() == yt.stride()
        _raises_same(lambda: Q.group_norm(e, 5, we, be, 1e-5, 0.1, 0),
                     lambda: TQ.group_norm(t, 5, wt, bt, 1e-5, 0.1, 0))
        _raises_same(lambda: Q.instance_norm(e[0, 0, 0], we, be, 1e-5, 0.1, 0),
                     lambda: TQ.instance_norm(t[0, 0, 0], wt, bt, 1e-5, 0.1, 0))


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("relu", [False, True])
def test_batch_norm_1d_3d_and_generic(eng, relu):
    rng = np.random.default_rng(20 + relu)
    sfx = "_relu" if relu else ""
    with engine(eng):
        params = [floats(rng, 5), floats(rng, 5), floats(rng, 5), floats(rng, 5, 0.3)]
        (we, wt), (be, bt), (me, mt), (ve, vt) = params
        ve, vt = ve.abs() + 0.1, vt.abs() + 0.1
        for shape, op in (((3, 5), "batch_norm1d"), ((2, 5, 7), "batch_norm1d"),
                          ((2, 5, 3, 4, 2), "batch_norm3d"), ((2, 5), "batch_norm"),
                          ((2, 5, 6), "batch_norm"), ((1, 5, 3, 3), "batch_norm"),
                          ((1, 5, 2, 3, 3), "batch_norm")):
            t, e = random_pair(rng, shape, "quint8")
            yt = getattr(TQ, op + sfx)(t, wt, bt, mt, vt, 1e-5, 0.04, 70)
            ye = getattr(Q, op + sfx)(e, we, be, me, ve, 1e-5, 0.04, 70)
            assert_same(yt, ye)
            assert ye.stride() == yt.stride(), (op, shape)
        t, e = random_pair(rng, (2, 5, 3, 3), "quint8")
        for op in ("batch_norm1d", "batch_norm3d"):
            _raises_same(lambda: getattr(Q, op + sfx)(e, we, be, me, ve, 1e-5, 0.1, 0),
                         lambda: getattr(TQ, op + sfx)(t, wt, bt, mt, vt, 1e-5, 0.1, 0))
        t6, e6 = random_pair(rng, (1, 5, 1, 1, 1, 1), "quint8")
        _raises_same(lambda: Q.batch_norm(e6, we, be, me, ve, 1e-5, 0.1, 0),
                     lambda: TQ.batch_norm(t6, wt, bt, mt, vt, 1e-5, 0.1, 0))
        _raises_same(lambda: Q.batch_norm1d(e[:, :, 0], None, be, me, ve, 1e-5, 0.1, 0),
                     lambda: TQ.batch_norm1d(t[:, :, 0], None, bt, mt, vt, 1e-5, 0.1, 0))


def test_norms_meta_and_dispatch():
    from ember.utils._python_dispatch import TorchDispatchMode
    m = ember._empty_affine_quantized([2, 4, 3, 3], scale=0.1, zero_point=2, dtype=ember.quint8,
                                      device="meta")
    for y in (Q.layer_norm(m, [3], None, None, 1e-5, 0.2, 1),
              Q.group_norm(m, 2, None, None, 1e-5, 0.2, 1),
              Q.instance_norm(m, None, None, 1e-5, 0.2, 1)):
        assert y.is_meta and tuple(y.shape) == (2, 4, 3, 3) and y.q_scale() == 0.2
    seen = []

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))
    _, e = random_pair(np.random.default_rng(0), (2, 4, 3), "quint8")
    with Mode():
        Q.layer_norm(e, [3], None, None, 1e-5, 0.2, 1)
        Q.group_norm(e, 2, None, None, 1e-5, 0.2, 1)
    assert seen == ["quantized.layer_norm.default", "quantized.group_norm.default"]
    with pytest.raises(NotImplementedError, match="quantized::group_norm"):
        Q.group_norm(ember.zeros(2, 4, 3), 2, None, None, 1e-5, 0.2, 1)
