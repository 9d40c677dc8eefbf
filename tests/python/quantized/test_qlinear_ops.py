"""quantized::linear / linear_relu / linear_dynamic against torch 1.13 on both engines."""
import zlib

import numpy as np
import pytest
import torch

import ember
from qconv_helpers import (ENGINES, Q, TQ, assert_codes_match, engine, quantize_both,
                           quantize_weight_both)

# (input shape, out_features)
SHAPES = [((4, 16), 8), ((1, 1280), 1000), ((3, 5, 7), 9), ((2, 1), 3), ((33, 64), 31)]


def make_case(rng, in_shape, out_f, per_channel, with_bias=True):
    k = in_shape[-1]
    wf = rng.standard_normal((out_f, k)).astype(np.float32) * 0.2
    if per_channel:
        scales = (np.abs(wf).max(1) / 127.5 + 1e-5).astype(np.float64)
        we, wt = quantize_weight_both(wf, scales, np.zeros(out_f))
    else:
        we, wt = quantize_weight_both(wf, float(np.abs(wf).max() / 127.5), 0)
    bias = rng.standard_normal(out_f).astype(np.float32) if with_bias else None
    return we, wt, bias


def pack_both(we, wt, bias):
    be = None if bias is None else ember.from_numpy(bias.copy())
    bt = None if bias is None else torch.from_numpy(bias.copy())
    return Q.linear_prepack(we, be), TQ.linear_prepack(wt, bt)


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("per_channel", [False, True], ids=["per_tensor", "per_channel"])
@pytest.mark.parametrize("op", ["linear", "linear_relu"])
def test_linear_matches_torch(eng, shape, per_channel, op):
    in_shape, out_f = shape
    rng = np.random.default_rng(zlib.crc32(repr((shape, per_channel, op)).encode()))
    with engine(eng):
        we, wt, bias = make_case(rng, in_shape, out_f, per_channel)
        pe, pt = pack_both(we, wt, bias)
        xf = rng.random(in_shape).astype(np.float32) * 3 - 1
        xe, xt = quantize_both(xf, 0.013, 90, "quint8")
        ye, yt = getattr(Q, op)(xe, pe, 0.07, 60), getattr(TQ, op)(xt, pt, 0.07, 60)
        assert ye.dtype is ember.quint8
        assert_codes_match(ye, yt, eng)


@pytest.mark.parametrize("eng", ENGINES)
def test_linear_without_bias_saturating_and_empty(eng):
    rng = np.random.default_rng(7)
    with engine(eng):
        we, wt, _ = make_case(rng, (8, 32), 16, False, with_bias=False)
        pe, pt = pack_both(we, wt, None)
        xe, xt = quantize_both(rng.random((8, 32)).astype(np.float32) * 2 - 1, 0.01, 128, "quint8")
        ye, yt = Q.linear(xe, pe, 0.0005, 128), TQ.linear(xt, pt, 0.0005, 128)
        assert_codes_match(ye, yt, eng)
        c = ye.int_repr().numpy()
        assert (c == 0).any() and (c == 255).any()
        xe0, _ = quantize_both(np.zeros((0, 32), np.float32), 0.01, 128, "quint8")
        assert tuple(Q.linear(xe0, pe, 0.1, 0).shape) == (0, 16)


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("reduce_range", [False, True])
def test_linear_dynamic_matches_torch(eng, relu, reduce_range):
    rng = np.random.default_rng(8)
    with engine(eng):
        we, wt, bias = make_case(rng, (5, 24), 12, eng == "onednn")
        pe, pt = pack_both(we, wt, bias)
        xf = (rng.standard_normal((5, 24)) * 2).astype(np.float32)
        op = "linear_relu_dynamic" if relu else "linear_dynamic"
        ye = getattr(Q, op)(ember.from_numpy(xf.copy()), pe, reduce_range)
        yt = getattr(TQ, op)(torch.from_numpy(xf.copy()), pt, reduce_range)
        assert ye.dtype is ember.float32 and tuple(ye.shape) == (5, 12)
        np.testing.assert_allclose(ye.numpy(), yt.numpy(), rtol=1e-5, atol=1e-5)


def test_linear_dynamic_refuses_quantized_input():
    with engine("qnnpack"):
        we, _, _ = make_case(np.random.default_rng(9), (2, 3), 4, False)
        pe = Q.linear_prepack(we)
        x = ember.quantize_per_tensor(ember.rand(2, 3), 0.1, 0, ember.quint8)
        with pytest.raises(NotImplementedError, match=r"Could not run 'quantized::linear_dynamic' "
                           r"with arguments from the 'QuantizedCPU' backend"):
            Q.linear_dynamic(x, pe)


def test_linear_errors_match_torch_texts():
    wf = torch.randn(4, 3)
    for eng in ENGINES:
        with engine(eng):
            for make in [lambda m, w: (m.quantize_per_tensor(w, 0.1, 0, m.qint8), m.zeros(3)),
                         lambda m, w: (m.quantize_per_tensor(w.reshape(1, 4, 3), 0.1, 0, m.qint8),
                                       None)]:
                with pytest.raises(RuntimeError) as te:
                    TQ.linear_prepack(*make(torch, wf))
                with pytest.raises(RuntimeError) as ee:
                    Q.linear_prepack(*make(ember, ember.from_numpy(wf.numpy())))
                assert str(ee.value) == str(te.value).split("\n")[0]
    w3 = ember.quantize_per_tensor(ember.randn(4, 3), 0.1, 3, ember.qint8)
    with engine("onednn"), pytest.raises(RuntimeError, match="ONEDNN only supports symmetric "
                                         "quantization of weight, whose zero point must be 0, "
                                         "but got 3"):
        Q.linear_prepack(w3)
    with engine("qnnpack"):
        Q.linear_prepack(w3)  # qnnpack takes it


def test_linear_input_checks():
    with engine("qnnpack"):
        we, _, _ = make_case(np.random.default_rng(10), (2, 3), 4, False)
        pe = Q.linear_prepack(we)
        x5 = ember.quantize_per_tensor(ember.rand(2, 5), 0.1, 0, ember.quint8)
        with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied "
                           r"\(2x5 and 3x4\)"):
            Q.linear(x5, pe, 0.1, 0)
        x1 = ember.quantize_per_tensor(ember.rand(3), 0.1, 0, ember.quint8)
        with pytest.raises(RuntimeError, match=r"quantized::linear\(\): Input tensor rank should "
                           r"be >= 2"):
            Q.linear(x1, pe, 0.1, 0)
        with pytest.raises(NotImplementedError, match="'quantized::linear' with arguments from "
                           "the 'CPU' backend"):
            Q.linear(ember.rand(2, 3), pe, 0.1, 0)
        with pytest.raises(RuntimeError, match="Quantize only works on Float Tensor, got Double"):
            Q.linear_dynamic(ember.rand(2, 3, dtype=ember.float64), pe)
