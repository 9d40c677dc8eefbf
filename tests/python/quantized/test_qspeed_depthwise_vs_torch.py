"""The fast engine's depthwise 3x3 convolutions (ember's direct AVX-512 VNNI kernel on CPUs that
have it, Note [Direct 3x3 depthwise int8 kernel]) against torch 1.13's onednn engine, on
MobileNetV2's depthwise shapes: within 1 LSB on >= 99.9 % of codes, as every onednn-engine op.
Saturating output scales, input zero points at the ends of the range, ReLU, batch 2 and odd
sizes too. The C++ test test_qspeed_depthwise.cpp checks the kernel against the scalar reference
bit for bit."""
import zlib

import numpy as np
import pytest
import torch

import ember
from qconv_helpers import Q, TQ, assert_codes_match, engine, quantize_both, quantize_weight_both

# (N, C, H, W, stride): MobileNetV2's depthwise layers (the 112x112 ones at their real size),
# then odd sizes and batch 2.
SHAPES = [
    (1, 32, 112, 112, 1), (1, 96, 112, 112, 2), (1, 144, 56, 56, 1), (1, 144, 56, 56, 2),
    (1, 192, 28, 28, 1), (1, 192, 28, 28, 2), (1, 384, 14, 14, 1), (1, 576, 14, 14, 1),
    (1, 576, 14, 14, 2), (1, 960, 7, 7, 1),
    (2, 48, 9, 13, 1), (2, 64, 10, 7, 2), (1, 16, 1, 1, 1), (1, 16, 2, 3, 2),
]


def run(shape, op, per_channel, x_qparams, y_qparams):
    n, c, h, w, s = shape
    rng = np.random.default_rng(zlib.crc32(repr((shape, op, per_channel, x_qparams)).encode()))
    wf = rng.standard_normal((c, 1, 3, 3)).astype(np.float32) * 0.4
    if per_channel:
        scales = (np.abs(wf).reshape(c, -1).max(1) / 127.5 + 1e-4).astype(np.float64)
        we, wt = quantize_weight_both(wf, scales, np.zeros(c, np.int64))
    else:
        we, wt = quantize_weight_both(wf, float(np.abs(wf).max() / 127.5), 0)
    bias = rng.standard_normal(c).astype(np.float32)
    xf = (rng.random((n, c, h, w)).astype(np.float32) * 6 - 3)
    xe, xt = quantize_both(xf, x_qparams[0], x_qparams[1], "quint8", channels_last=True)
    pe = Q.conv2d_prepack(we, ember.from_numpy(bias.copy()), [s, s], [1, 1], [1, 1], c)
    pt = TQ.conv2d_prepack(wt, torch.from_numpy(bias.copy()), [s, s], [1, 1], [1, 1], c)
    return getattr(Q, op)(xe, pe, *y_qparams), getattr(TQ, op)(xt, pt, *y_qparams)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("op", ["conv2d", "conv2d_relu"])
def test_depthwise_within_one_lsb_of_onednn(shape, op):
    with engine("onednn"):
        for per_channel in (False, True):
            ye, yt = run(shape, op, per_channel, (0.03, 120), (0.04, 70))
            assert_codes_match(ye, yt, "onednn")
            codes = ye.int_repr().numpy()
            # a spread of codes, not one value (ReLU: clamped at the output zero point)
            assert codes.max() > 80
            assert codes.min() == 70 if op == "conv2d_relu" else codes.min() < 60


@pytest.mark.parametrize("shape", [(1, 32, 15, 17, 1), (1, 96, 16, 15, 2)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("x_qparams,y_qparams", [
    ((0.05, 0), (0.002, 255)),    # input zero point 0; output saturates at 255 and 0
    ((0.05, 255), (0.002, 0)),    # input zero point 255
    ((0.02, 128), (50.0, 3)),     # everything near the output zero point
])
def test_depthwise_edges_within_one_lsb(shape, x_qparams, y_qparams):
    with engine("onednn"):
        for op in ("conv2d", "conv2d_relu"):
            ye, yt = run(shape, op, True, x_qparams, y_qparams)
            assert_codes_match(ye, yt, "onednn")
