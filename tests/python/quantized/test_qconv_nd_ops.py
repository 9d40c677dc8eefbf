"""quantized::conv3d / conv3d_relu and conv_transpose1d/2d/3d against torch 1.13 on both engines
(qnnpack: every code equal; onednn: within 1 LSB on >= 99.9 %), the packed objects' accessors,
state and errors. Where torch 1.13's qnnpack transposed 3-d convolution is broken (it returns a
wrong shape), ember is checked against the qnnpack formula re-derived in numpy."""
import copy
import pickle

import numpy as np
import pytest
import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode
from qconv_helpers import (ENGINES, Q, TQ, assert_codes_match, engine, quantize_both,
                           quantize_weight_both)

# (N, C, D, H, W, O, groups, kernel, stride, padding, dilation)
CONV3D = [
    (1, 4, 5, 6, 7, 8, 1, (3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1)),
    (2, 6, 4, 5, 5, 6, 3, (1, 3, 2), (2, 1, 2), (0, 1, 1), (1, 1, 1)),
    (1, 3, 7, 7, 7, 5, 1, (3, 3, 3), (2, 2, 2), (2, 1, 0), (2, 1, 1)),
    (1, 8, 3, 3, 3, 8, 8, (1, 1, 1), (1, 1, 1), (0, 0, 0), (1, 1, 1)),
]
# (N, C, spatial, O, groups, kernel, stride, padding, output_padding, dilation)
TRANSPOSED = [
    (1, 4, (6,), 6, 1, (3,), (2,), (1,), (1,), (1,)),
    (2, 6, (5,), 4, 2, (4,), (1,), (0,), (0,), (2,)),
    (1, 4, (5, 6), 6, 1, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1)),
    (2, 6, (4, 3), 9, 3, (2, 3), (1, 2), (0, 1), (0, 1), (1, 1)),
    (1, 3, (4, 4), 5, 1, (3, 3), (2, 1), (2, 0), (0, 0), (2, 1)),
    (1, 4, (3, 4, 3), 6, 2, (3, 2, 3), (2, 1, 2), (1, 0, 1), (1, 0, 0), (1, 1, 1)),
]


def _weights(rng, shape, per_channel, w_zp=0):
    wf = (rng.standard_normal(shape) * 0.3).astype(np.float32)
    if per_channel:
        o = shape[0]
        scales = (np.abs(wf).reshape(o, -1).max(1) / 127.5 + 1e-4).astype(np.float64)
        return quantize_weight_both(wf, scales, np.full(o, w_zp))
    return quantize_weight_both(wf, float(np.abs(wf).max() / 127.5), w_zp)


def _input(rng, shape, channels_last=False):
    x = rng.uniform(-1, 2, size=shape).astype(np.float32)
    e, t = quantize_both(x, 0.013, int(rng.integers(0, 120)), "quint8")
    if channels_last:  # channels_last_3d (5-d inputs)
        e = e.contiguous(memory_format=ember.channels_last_3d)
        t = t.contiguous(memory_format=torch.channels_last_3d)
        assert e.stride() == t.stride()
    return e, t


def _bias(rng, o, with_bias):
    if not with_bias:
        return None, None
    b = (rng.standard_normal(o) * 0.5).astype(np.float32)
    return ember.from_numpy(b.copy()), torch.from_numpy(b.copy())


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("case", range(len(CONV3D)))
@pytest.mark.parametrize("per_channel", [False, True])
def test_conv3d_matches_torch(eng, case, per_channel):
    n, c, d, h, w, o, groups, k, stride, pad, dil = CONV3D[case]
    rng = np.random.default_rng(case * 7 + per_channel)
    with engine(eng):
        we, wt = _weights(rng, (o, c // groups) + k, per_channel,
                          w_zp=3 if eng == "qnnpack" and not per_channel else 0)
        be, bt = _bias(rng, o, case != 1)
        xe, xt = _input(rng, (n, c, d, h, w), channels_last=case % 2 == 1)
        for relu in (False, True):
            # A fresh pack for each: torch 1.13's onednn packed conv keeps the fused ReLU (or
            # not) of its first call.
            pe = Q.conv3d_prepack(we, be, list(stride), list(pad), list(dil), groups)
            pt = TQ.conv3d_prepack(wt, bt, list(stride), list(pad), list(dil), groups)
            op_e = Q.conv3d_relu if relu else Q.conv3d
            op_t = TQ.conv3d_relu if relu else TQ.conv3d
            ye, yt = op_e(xe, pe, 0.021, 70), op_t(xt, pt, 0.021, 70)
            assert ye.is_contiguous(memory_format=ember.channels_last_3d)
            assert_codes_match(ye, yt, eng)


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("case", range(len(TRANSPOSED)))
def test_conv_transpose_matches_torch(eng, case):
    n, c, sp, o, groups, k, stride, pad, opad, dil = TRANSPOSED[case]
    nd = len(sp)
    if eng == "onednn":
        opad = (0,) * nd  # torch's onednn refuses output padding
    if eng == "qnnpack" and nd == 3:
        pytest.skip("torch 1.13's qnnpack transposed 3-d convolution is broken; "
                    "test_conv_transpose3d_qnnpack_formula checks ember's")
    rng = np.random.default_rng(100 + case)
    with engine(eng):
        we, wt = _weights(rng, (c, o // groups) + k, False)
        be, bt = _bias(rng, o, case % 2 == 0)
        name = f"conv_transpose{nd}d"
        args = (list(stride), list(pad), list(opad), list(dil), groups)
        pe = getattr(Q, name + "_prepack")(we, be, *args)
        pt = getattr(TQ, name + "_prepack")(wt, bt, *args)
        xe, xt = _input(rng, (n, c) + sp)
        ye = getattr(Q, name)(xe, pe, 0.031, 100)
        yt = getattr(TQ, name)(xt, pt, 0.031, 100)
        assert_codes_match(ye, yt, eng)
        if nd > 1:
            assert ye.stride() == yt.stride()


def _qnnpack_reference(x, zx, sx, w, zw, sw, bias, sy, zy, conv):
    """The qnnpack formula (Note [int8 requantization formulas]) on exact int sums."""
    acc = conv(torch.from_numpy((x.astype(np.float64) - zx)),
               torch.from_numpy(w.astype(np.float64) - zw)).numpy()
    o = acc.shape[1]
    f32 = np.float32
    inv = f32(1) / f32(sw * sx)
    bq = np.rint((bias.astype(f32) * inv).astype(f32)).astype(np.int64)
    m = f32(f32(f32(sw) * f32(sx)) * (f32(1) / f32(sy)))
    v = (acc.astype(np.int64) + bq.reshape(1, o, *([1] * (acc.ndim - 2)))).astype(f32) * m
    return np.clip(np.rint(v.astype(f32)) + zy, 0, 255).astype(np.int64)


def test_conv_transpose3d_qnnpack_formula():
    rng = np.random.default_rng(5)
    n, c, sp, o, groups, k, stride, pad, opad, dil = TRANSPOSED[-1]
    with engine("qnnpack"):
        we, _ = _weights(rng, (c, o // groups) + k, False, w_zp=2)
        b = (rng.standard_normal(o) * 0.5).astype(np.float32)
        pe = Q.conv_transpose3d_prepack(we, ember.from_numpy(b.copy()), list(stride), list(pad),
                                        list(opad), list(dil), groups)
        xe, _ = _input(rng, (n, c) + sp)
        ye = Q.conv_transpose3d(xe, pe, 0.031, 100)

    def conv(x, w):
        return torch.nn.functional.conv_transpose3d(x, w, None, stride, pad, opad, groups, dil)
    ref = _qnnpack_reference(xe.int_repr().numpy(), xe.q_zero_point(), xe.q_scale(),
                             we.int_repr().numpy(), we.q_zero_point(), we.q_scale(), b,
                             0.031, 100, conv)
    np.testing.assert_array_equal(ye.int_repr().numpy().astype(np.int64), ref)


def test_conv3d_qnnpack_formula_reference():
    # The same re-derivation on a direct 3-d convolution agrees with torch (above) and ember.
    rng = np.random.default_rng(9)
    n, c, d, h, w, o, groups, k, stride, pad, dil = CONV3D[0]
    with engine("qnnpack"):
        we, _ = _weights(rng, (o, c // groups) + k, False, w_zp=-3)
        b = (rng.standard_normal(o) * 0.5).astype(np.float32)
        pe = Q.conv3d_prepack(we, ember.from_numpy(b.copy()), list(stride), list(pad),
                              list(dil), groups)
        xe, _ = _input(rng, (n, c, d, h, w))
        ye = Q.conv3d(xe, pe, 0.02, 30)

    def conv(x, wt):
        return torch.nn.functional.conv3d(x, wt, None, stride, pad, dil, groups)
    ref = _qnnpack_reference(xe.int_repr().numpy(), xe.q_zero_point(), xe.q_scale(),
                             we.int_repr().numpy(), we.q_zero_point(), we.q_scale(), b,
                             0.02, 30, conv)
    np.testing.assert_array_equal(ye.int_repr().contiguous().numpy().astype(np.int64), ref)


@pytest.mark.parametrize("eng", ENGINES)
def test_packed_accessors_and_state(eng):
    rng = np.random.default_rng(1)
    with engine(eng):
        w3, w3t = _weights(rng, (4, 2, 3, 3, 3), False)
        p = Q.conv3d_prepack(w3, None, [1, 2, 1], [1, 0, 1], [1, 1, 2], 1)
        pt = TQ.conv3d_prepack(w3t, None, [1, 2, 1], [1, 0, 1], [1, 1, 2], 1)
        for acc in ("stride", "padding", "dilation", "output_padding", "groups", "transpose"):
            assert getattr(Q, "conv3d_" + acc)(p) == getattr(TQ, "conv3d_" + acc)(pt)
            assert getattr(p, acc)() == getattr(pt, acc)()
        assert type(p).__name__ != "ScriptObject" and isinstance(p, ember.ScriptObject)
        w, b = Q.conv3d_unpack(p)
        assert w is p.weight() and (b is None) == (eng == "onednn")
        opad = [1, 0] if eng == "qnnpack" else [0, 0]
        wt2, wt2t = _weights(rng, (4, 3, 2, 3), False)
        p2 = Q.conv_transpose2d_prepack(wt2, None, [2, 1], [1, 1], opad, [1, 1], 1)
        p2t = TQ.conv_transpose2d_prepack(wt2t, None, [2, 1], [1, 1], opad, [1, 1], 1)
        for acc in ("stride", "padding", "dilation", "output_padding", "groups", "transpose"):
            assert getattr(Q, "conv_transpose2d_" + acc)(p2) == \
                getattr(TQ, "conv_transpose2d_" + acc)(p2t)
            assert getattr(p2, acc)() == getattr(p2t, acc)()
        state, state_t = p2.__getstate__()[0], p2t.__getstate__()[0]
        assert state[1][0].tolist() == state_t[1][0].tolist()
        # 1-d: packed as 2-d of height 1, the op's unpack gives the 3-d weight back
        w1, w1t = _weights(rng, (2, 4, 3), False)
        p1 = Q.conv_transpose1d_prepack(w1, None, [2], [1], [0], [1], 1)
        p1t = TQ.conv_transpose1d_prepack(w1t, None, [2], [1], [0], [1], 1)
        assert p1.stride() == p1t.stride() and p1.padding() == p1t.padding()
        assert tuple(p1.unpack()[0].shape) == tuple(p1t.unpack()[0].shape) == (2, 4, 1, 3)
        assert tuple(Q.conv_transpose1d_unpack(p1)[0].shape) == (2, 4, 3)
        # deepcopy / pickle re-pack and keep computing the same codes
        xe, _ = _input(rng, (1, 4, 5, 4))
        y = Q.conv_transpose2d(xe, p2, 0.05, 3)
        for q in (copy.deepcopy(p2), pickle.loads(pickle.dumps(p2))):
            assert q.stride() == p2.stride() and q.transpose() is True
            assert np.array_equal(Q.conv_transpose2d(xe, q, 0.05, 3).int_repr().numpy(),
                                  y.int_repr().numpy())


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the texts are compared
        return type(e).__name__, str(e).split("\n")[0]
    return None


@pytest.mark.parametrize("eng", ENGINES)
def test_errors_match_torch(eng):
    rng = np.random.default_rng(2)
    with engine(eng):
        w3, w3t = _weights(rng, (4, 2, 3, 3, 3), False)
        cases = [
            lambda lib, w: lib.conv3d_prepack(w[0], None, [1, 1, 1], [0, 0, 0], [1, 1, 1], 1),
            lambda lib, w: lib.conv3d_prepack(w, None, [1, 1], [0, 0, 0], [1, 1, 1], 1),
        ]
        for case in cases:
            assert _error(lambda: case(Q, w3)) == _error(lambda: case(TQ, w3t))
        eb, tb = ember.zeros(3), torch.zeros(3)
        assert _error(lambda: Q.conv3d_prepack(w3, eb, [1] * 3, [0] * 3, [1] * 3, 1)) == \
            _error(lambda: TQ.conv3d_prepack(w3t, tb, [1] * 3, [0] * 3, [1] * 3, 1))
        pe = Q.conv3d_prepack(w3, None, [1] * 3, [0] * 3, [1] * 3, 1)
        pt = TQ.conv3d_prepack(w3t, None, [1] * 3, [0] * 3, [1] * 3, 1)
        xe, xt = _input(rng, (1, 2, 4, 4, 4))
        if eng == "qnnpack":  # onednn's texts for these name "conv3d3d" (a torch typo)
            assert _error(lambda: Q.conv3d(xe[0], pe, 0.1, 0)) == \
                _error(lambda: TQ.conv3d(xt[0], pt, 0.1, 0))
        # a float input: PyTorch's NotImplementedError naming the op and the CPU backend
        err = _error(lambda: Q.conv3d(ember.zeros(1, 2, 4, 4, 4), pe, 0.1, 0))
        assert err[0] == "NotImplementedError" and "quantized::conv3d.new" in err[1]
        wt, wtt = _weights(rng, (4, 2, 3, 3), False)
        if eng == "onednn":
            assert _error(lambda: Q.conv_transpose2d_prepack(wt, None, [2, 2], [0, 0], [1, 1],
                                                             [1, 1], 1)) == \
                _error(lambda: TQ.conv_transpose2d_prepack(wtt, None, [2, 2], [0, 0], [1, 1],
                                                           [1, 1], 1))
        pe = Q.conv_transpose2d_prepack(wt, None, [2, 2], [0, 0], [0, 0], [1, 1], 1)
        pt = TQ.conv_transpose2d_prepack(wtt, None, [2, 2], [0, 0], [0, 0], [1, 1], 1)
        xe, xt = _input(rng, (1, 3, 4, 4))
        assert _error(lambda: Q.conv_transpose2d(xe, pe, 0.1, 0)) == \
            _error(lambda: TQ.conv_transpose2d(xt, pt, 0.1, 0))


def test_conv3d_meta_and_dispatch_mode():
    rng = np.random.default_rng(3)
    with engine("qnnpack"):
        w, _ = _weights(rng, (4, 2, 3, 3, 3), False)
        p = Q.conv3d_prepack(w, None, [1] * 3, [1] * 3, [1] * 3, 1)
        xm = ember._empty_affine_quantized([2, 2, 5, 6, 7], scale=0.1, zero_point=3,
                                           dtype=ember.quint8, device="meta")
        y = Q.conv3d(xm, p, 0.2, 5)
        assert y.is_meta and tuple(y.shape) == (2, 4, 5, 6, 7) and y.q_scale() == 0.2
        seen = []

        class Log(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.append(str(func))
                return func(*args, **(kwargs or {}))
        xe, _ = _input(rng, (1, 2, 4, 4, 4))
        with Log():
            Q.conv3d(xe, p, 0.2, 5)
        assert "quantized.conv3d.new" in seen


def test_conv_transpose_per_channel_qnnpack():
    # A transposed weight's output channels are its dimension 1: per-channel scales along it.
    rng = np.random.default_rng(21)
    with engine("qnnpack"):
        wf = (rng.standard_normal((4, 6, 3, 3)) * 0.3).astype(np.float32)
        sc = (np.abs(wf).max(axis=(0, 2, 3)) / 127 + 1e-3).astype(np.float64)
        zps = np.zeros(6, np.int64)
        wt = torch.quantize_per_channel(torch.from_numpy(wf), torch.from_numpy(sc),
                                        torch.from_numpy(zps), 1, torch.qint8)
        we = ember.quantize_per_channel(ember.from_numpy(wf), ember.from_numpy(sc),
                                        ember.from_numpy(zps), 1, ember.qint8)
        be, bt = _bias(rng, 6, True)
        pt = TQ.conv_transpose2d_prepack(wt, bt, [2, 2], [1, 1], [1, 1], [1, 1], 1)
        pe = Q.conv_transpose2d_prepack(we, be, [2, 2], [1, 1], [1, 1], [1, 1], 1)
        xe, xt = _input(rng, (2, 4, 5, 6))
        assert_codes_match(Q.conv_transpose2d(xe, pe, 0.05, 100),
                           TQ.conv_transpose2d(xt, pt, 0.05, 100), "qnnpack")
    with engine("onednn"):
        with pytest.raises(RuntimeError, match="Per Channel Quantization is currently disabled "
                                               "for transposed conv"):
            Q.conv_transpose2d_prepack(we, None, [2, 2], [1, 1], [0, 0], [1, 1], 1)


def test_direct_and_transposed_packs_are_not_interchangeable():
    rng = np.random.default_rng(22)
    with engine("qnnpack"):
        w, _ = _weights(rng, (4, 2, 3, 3), False)
        pt = Q.conv_transpose2d_prepack(w, None, [1, 1], [0, 0], [0, 0], [1, 1], 1)
        pd = Q.conv2d_prepack(w, None, [1, 1], [0, 0], [1, 1], 1)
        x, _ = _input(rng, (1, 4, 5, 5))
        for fn in (lambda: Q.conv2d(x, pt, 0.1, 0), lambda: Q.conv_transpose2d(x, pd, 0.1, 0)):
            with pytest.raises(RuntimeError, match="another kind of convolution"):
                fn()
        w3, _ = _weights(rng, (4, 2, 3, 3, 3), False)
        p3 = Q.conv3d_prepack(w3, None, [1] * 3, [0] * 3, [1] * 3, 1)
        with pytest.raises(RuntimeError, match="expected packed weights of a transposed"):
            Q.conv_transpose3d(_input(rng, (1, 4, 5, 5, 5))[0], p3, 0.1, 0)
