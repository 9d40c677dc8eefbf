"""quantized::conv2d / conv2d_relu / conv1d against torch 1.13 on both engines: the same weights,
inputs and qparams packed and run by both; qnnpack every code equal, onednn within 1 LSB."""
import zlib

import numpy as np
import pytest
import torch

import ember
from qconv_helpers import (ENGINES, Q, TQ, assert_codes_match, engine, quantize_both,
                           quantize_weight_both)

# (N, C, H, W, O, groups, kernel, stride, padding, dilation)
SHAPES = [
    (1, 8, 9, 9, 16, 1, (3, 3), (1, 1), (1, 1), (1, 1)),     # 3x3, same padding
    (2, 16, 10, 10, 16, 16, (3, 3), (2, 2), (1, 1), (1, 1)),  # depthwise, stride 2
    (1, 24, 7, 7, 32, 1, (1, 1), (1, 1), (0, 0), (1, 1)),    # 1x1 (MobileNet's pointwise)
    (3, 6, 11, 7, 10, 2, (3, 2), (2, 1), (1, 0), (1, 1)),    # odd sizes, groups 2, rectangular
    (1, 4, 13, 13, 8, 1, (3, 3), (1, 1), (2, 2), (2, 2)),    # dilation 2
    (1, 3, 17, 17, 12, 1, (3, 3), (2, 2), (1, 1), (1, 1)),   # first-layer-like, 3 channels
    (2, 32, 5, 5, 32, 32, (3, 3), (1, 1), (1, 1), (1, 1)),   # depthwise stride 1
]


def make_case(rng, shape, per_channel, with_bias, w_zero_point=0):
    n, c, h, w, o, groups, k, _, _, _ = shape
    wf = rng.standard_normal((o, c // groups) + k).astype(np.float32) * 0.3
    if per_channel:
        scales = (np.abs(wf).reshape(o, -1).max(1) / 127.5 + 1e-4).astype(np.float64)
        we, wt = quantize_weight_both(wf, scales, np.full(o, w_zero_point))
    else:
        we, wt = quantize_weight_both(wf, float(np.abs(wf).max() / 127.5), w_zero_point)
    bias = rng.standard_normal(o).astype(np.float32) if with_bias else None
    xf = rng.random((n, c, h, w)).astype(np.float32) * 4 - 1.5
    return we, wt, bias, xf


def run_both(op, shape, we, wt, bias, xe, xt, out_scale, out_zp):
    _, _, _, _, _, groups, _, stride, padding, dilation = shape
    be = None if bias is None else ember.from_numpy(bias.copy())
    bt = None if bias is None else torch.from_numpy(bias.copy())
    pe = Q.conv2d_prepack(we, be, list(stride), list(padding), list(dilation), groups)
    # A fresh torch object per call: 1.13's onednn object caches its first primitive (ReLU or
    # not) and reuses it for the other op.
    pt = TQ.conv2d_prepack(wt, bt, list(stride), list(padding), list(dilation), groups)
    return getattr(Q, op)(xe, pe, out_scale, out_zp), getattr(TQ, op)(xt, pt, out_scale, out_zp)


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s[:5])) + f"g{s[5]}")
@pytest.mark.parametrize("per_channel", [False, True], ids=["per_tensor", "per_channel"])
@pytest.mark.parametrize("op", ["conv2d", "conv2d_relu"])
def test_conv2d_matches_torch(eng, shape, per_channel, op):
    rng = np.random.default_rng(zlib.crc32(repr((shape, per_channel, op)).encode()))
    with engine(eng):
        we, wt, bias, xf = make_case(rng, shape, per_channel, with_bias=True)
        for channels_last in (False, True):
            xe, xt = quantize_both(xf, 0.017, 77, "quint8", channels_last)
            ye, yt = run_both(op, shape, we, wt, bias, xe, xt, 0.05, 64)
            assert_codes_match(ye, yt, eng)
            assert ye.dtype is ember.quint8
            assert ye.is_contiguous(memory_format=ember.channels_last)


@pytest.mark.parametrize("eng", ENGINES)
def test_conv2d_without_bias_and_saturating(eng):
    rng = np.random.default_rng(1)
    shape = SHAPES[0]
    with engine(eng):
        we, wt, _, xf = make_case(rng, shape, False, with_bias=False)
        xe, xt = quantize_both(xf, 0.05, 30, "quint8")
        # a tiny output scale drives most codes to 0 or 255
        ye, yt = run_both("conv2d", shape, we, wt, None, xe, xt, 0.001, 128)
        assert_codes_match(ye, yt, eng)
        c = ye.int_repr().numpy()
        assert (c == 0).sum() > 0 and (c == 255).sum() > 0
        ye, yt = run_both("conv2d_relu", shape, we, wt, None, xe, xt, 0.001, 128)
        assert_codes_match(ye, yt, eng)
        assert ye.int_repr().numpy().min() == 128  # ReLU: clamped at the zero point


def test_qnnpack_accepts_weight_zero_point_and_matches():
    rng = np.random.default_rng(2)
    shape = SHAPES[3]
    with engine("qnnpack"):
        we, wt, bias, xf = make_case(rng, shape, False, with_bias=True, w_zero_point=3)
        xe, xt = quantize_both(xf, 0.02, 100, "quint8")
        ye, yt = run_both("conv2d", shape, we, wt, bias, xe, xt, 0.04, 10)
        assert_codes_match(ye, yt, "qnnpack")


@pytest.mark.parametrize("eng", ENGINES)
def test_conv2d_empty_batch(eng):
    rng = np.random.default_rng(3)
    shape = (0,) + SHAPES[0][1:]
    with engine(eng):
        we, wt, bias, xf = make_case(rng, shape, False, with_bias=True)
        xe, xt = quantize_both(xf, 0.02, 100, "quint8")
        ye, yt = run_both("conv2d", shape, we, wt, bias, xe, xt, 0.04, 10)
        assert tuple(ye.shape) == tuple(yt.shape) == (0, 16, 9, 9)
        assert ye.q_scale() == 0.04 and ye.q_zero_point() == 10


@pytest.mark.parametrize("eng", ENGINES)
def test_same_packed_conv_with_two_input_scales(eng):
    # checklist 81: the integer bias is re-derived for each input scale
    rng = np.random.default_rng(4)
    shape = SHAPES[1]
    with engine(eng):
        we, wt, bias, xf = make_case(rng, shape, True, with_bias=True)
        be, bt = ember.from_numpy(bias.copy()), torch.from_numpy(bias.copy())
        pe = Q.conv2d_prepack(we, be, [2, 2], [1, 1], [1, 1], 16)
        for s in (0.011, 0.023):
            pt = TQ.conv2d_prepack(wt, bt, [2, 2], [1, 1], [1, 1], 16)
            xe, xt = quantize_both(xf, s, 128, "quint8")
            assert_codes_match(Q.conv2d(xe, pe, 0.03, 120), TQ.conv2d(xt, pt, 0.03, 120), eng)


def test_packed_under_qnnpack_keeps_its_formula_under_onednn():
    # checklist 84: the packed object decides the numerics, not the engine at call time
    rng = np.random.default_rng(5)
    shape = SHAPES[2]
    with engine("qnnpack"):
        we, wt, bias, xf = make_case(rng, shape, True, with_bias=True)
        be, bt = ember.from_numpy(bias.copy()), torch.from_numpy(bias.copy())
        pe = Q.conv2d_prepack(we, be, [1, 1], [0, 0], [1, 1], 1)
        pt = TQ.conv2d_prepack(wt, bt, [1, 1], [0, 0], [1, 1], 1)
    xe, xt = quantize_both(xf, 0.019, 90, "quint8")
    with engine("onednn"):
        assert_codes_match(Q.conv2d(xe, pe, 0.02, 100), TQ.conv2d(xt, pt, 0.02, 100), "qnnpack")


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("op", ["conv1d", "conv1d_relu"])
def test_conv1d_matches_torch(eng, op):
    rng = np.random.default_rng(6)
    with engine(eng):
        wf = rng.standard_normal((6, 4, 3)).astype(np.float32) * 0.3
        we, wt = quantize_weight_both(wf, float(np.abs(wf).max() / 127.5), 0)
        bias = rng.standard_normal(6).astype(np.float32)
        pe = Q.conv1d_prepack(we, ember.from_numpy(bias.copy()), [2], [1], [1], 2)
        pt = TQ.conv1d_prepack(wt, torch.from_numpy(bias.copy()), [2], [1], [1], 2)
        assert pe.stride() == pt.stride() == [1, 2]
        assert pe.padding() == pt.padding() and pe.dilation() == pt.dilation()
        assert tuple(pe.unpack()[0].shape) == tuple(pt.unpack()[0].shape) == (6, 4, 1, 3)
        assert tuple(Q.conv1d_unpack(pe)[0].shape) == (6, 4, 3)
        xf = rng.random((2, 8, 15)).astype(np.float32)
        xe, xt = quantize_both(xf, 0.01, 20, "quint8")
        ye, yt = getattr(Q, op)(xe, pe, 0.03, 50), getattr(TQ, op)(xt, pt, 0.03, 50)
        assert tuple(ye.stride()) == tuple(yt.stride())
        assert_codes_match(ye, yt, eng)


# ---- errors, with torch's texts ----

def _packed(eng):
    w = ember.quantize_per_tensor(ember.randn(4, 2, 3, 3), 0.1, 0, ember.qint8)
    return Q.conv2d_prepack(w, None, [1, 1], [0, 0], [1, 1], 1)


def test_float_input_is_not_implemented():
    with engine("qnnpack"):
        p = _packed("qnnpack")
        with pytest.raises(NotImplementedError, match=r"Could not run 'quantized::conv2d.new' "
                           r"with arguments from the 'CPU' backend"):
            Q.conv2d(ember.rand(1, 2, 5, 5), p, 0.1, 0)
        with pytest.raises(NotImplementedError, match=r"'quantized::conv2d_prepack' with "
                           r"arguments from the 'CPU' backend"):
            Q.conv2d_prepack(ember.randn(4, 2, 3, 3), None, [1, 1], [0, 0], [1, 1], 1)


@pytest.mark.parametrize("eng", ENGINES)
def test_input_rank_dtype_and_channels(eng):
    with engine(eng):
        p = _packed(eng)
        x = ember.quantize_per_tensor(ember.rand(1, 2, 5, 5), 0.02, 10, ember.quint8)
        x3d = ember.quantize_per_tensor(ember.rand(2, 5, 5), 0.02, 10, ember.quint8)
        with pytest.raises(RuntimeError, match=r"quantized::conv2d\(\): Expected activation "
                           r"tensor to have 4 dimensions, got 3"):
            Q.conv2d(x3d, p, 0.1, 0)
        xi = ember.quantize_per_tensor(ember.rand(1, 2, 5, 5), 0.02, 10, ember.qint8)
        with pytest.raises(RuntimeError, match="data type of input should be QUint8"):
            Q.conv2d(xi, p, 0.1, 0)
        x3 = ember.quantize_per_tensor(ember.rand(1, 3, 5, 5), 0.02, 10, ember.quint8)
        with pytest.raises(RuntimeError, match=r"expected input\[1, 3, 5, 5\] to have 2 channels, "
                           r"but got 3 channels instead"):
            Q.conv2d(x3, p, 0.1, 0)
        xc = ember.quantize_per_channel(ember.rand(1, 2, 5, 5), ember.tensor([0.1, 0.2]),
                                        ember.tensor([0, 0]), 1, ember.quint8)
        with pytest.raises(RuntimeError, match=r"Expected quantizer->qscheme\(\) == "
                           r"kPerTensorAffine to be true, but got false"):
            Q.conv2d(xc, p, 0.1, 0)


def test_prepack_errors_match_torch_texts():
    wf = torch.randn(4, 2, 3, 3)
    for eng in ENGINES:
        with engine(eng):
            for args in [
                (lambda m, w: (m.quantize_per_tensor(w, 0.1, 0, m.qint8),
                               m.zeros(3), [1, 1], [0, 0], [1, 1], 1)),   # bias length
                (lambda m, w: (m.quantize_per_tensor(w, 0.1, 0, m.qint8),
                               m.zeros(4, 1), [1, 1], [0, 0], [1, 1], 1)),  # bias rank
                (lambda m, w: (m.quantize_per_tensor(w, 0.1, 0, m.qint8),
                               None, [1], [0, 0], [1, 1], 1)),              # stride length
                (lambda m, w: (m.quantize_per_tensor(w[0], 0.1, 0, m.qint8),
                               None, [1, 1], [0, 0], [1, 1], 1)),           # weight rank
            ]:
                with pytest.raises(RuntimeError) as te:
                    TQ.conv2d_prepack(*args(torch, wf))
                with pytest.raises(RuntimeError) as ee:
                    Q.conv2d_prepack(*args(ember, ember.from_numpy(wf.numpy())))
                assert str(ee.value) == str(te.value).split("\n")[0].replace("torch.", "ember.")


def test_onednn_refuses_weight_zero_point_qnnpack_accepts():
    w = ember.quantize_per_tensor(ember.randn(4, 2, 3, 3), 0.1, 3, ember.qint8)
    with engine("onednn"):
        with pytest.raises(RuntimeError, match=r"^quantized::qconv_prepack: ONEDNN only supports "
                           r"symmetric quantization of weight, whose zero point must be 0\.$"):
            Q.conv2d_prepack(w, None, [1, 1], [0, 0], [1, 1], 1)
    with engine("qnnpack"):
        assert Q.conv2d_prepack(w, None, [1, 1], [0, 0], [1, 1], 1).unpack()[0] is not None


def test_weight_must_be_qint8():
    w = ember.quantize_per_tensor(ember.randn(4, 2, 3, 3), 0.1, 0, ember.quint8)
    for eng in ENGINES:
        with engine(eng), pytest.raises(RuntimeError, match="expected a weight of dtype "
                                                            "ember.qint8, got ember.quint8"):
            Q.conv2d_prepack(w, None, [1, 1], [0, 0], [1, 1], 1)


def test_no_autograd_and_ops_live_only_under_ops_quantized():
    assert not hasattr(ember.Tensor, "conv2d_prepack")
    assert ember.conv2d is not Q.conv2d
    with engine("qnnpack"):
        p = _packed("qnnpack")
        x = ember.quantize_per_tensor(ember.rand(1, 2, 5, 5), 0.02, 10, ember.quint8)
        y = Q.conv2d_relu(x, p, 0.1, 0)
        assert y.grad_fn is None and not y.requires_grad


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("layer", [(96, 24, 1, 1, 1, 56), (144, 144, 144, 3, 2, 56),
                                   (3, 32, 1, 3, 2, 224)], ids=["pw", "dw_s2", "first"])
def test_mobilenet_sized_layers(eng, layer):
    # MobileNetV2-sized layers (75k-400k outputs): the tolerance holds at scale
    c, o, g, k, s, h = layer
    rng = np.random.default_rng(c + o)
    with engine(eng):
        wf = rng.standard_normal((o, c // g, k, k)).astype(np.float32) * 0.2
        we, wt = quantize_weight_both(wf, (np.abs(wf).reshape(o, -1).max(1) / 127.5), np.zeros(o))
        bias = rng.standard_normal(o).astype(np.float32)
        xe, xt = quantize_both(rng.random((1, c, h, h)).astype(np.float32) * 3, 0.012, 3, "quint8")
        shape = (1, c, h, h, o, g, (k, k), (s, s), (k // 2, k // 2), (1, 1))
        ye, yt = run_both("conv2d_relu", shape, we, wt, bias, xe, xt, 0.05, 0)
        assert_codes_match(ye, yt, eng)
