"""Pooling, resampling, cat and batch_norm of quantized tensors against torch 1.13 on both
engines: F.max_pool2d, F.avg_pool2d, F.adaptive_avg_pool2d, F.interpolate(mode='nearest'),
quantized::cat / torch.cat, quantized::batch_norm2d. Every code, qparams and layout equal."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from qhelpers import ENGINES, assert_same, engine, pair, raises_same, random_codes, random_pair


def shapes(rng, n=10):
    for _ in range(n):
        yield (int(rng.integers(1, 3)), int(rng.integers(1, 40)), int(rng.integers(3, 14)),
               int(rng.integers(3, 14)))


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("channels_last", [False, True])
def test_max_pool2d(eng, channels_last):
    rng = np.random.default_rng(1)
    with engine(eng):
        for shape in shapes(rng):
            k = int(rng.integers(2, 4))
            s, p, d = int(rng.integers(1, 3)), int(rng.integers(0, k // 2 + 1)), int(rng.integers(1, 3))
            ceil = bool(rng.integers(0, 2))
            if (shape[2] + 2 * p - d * (k - 1) - 1) < 0 or (shape[3] + 2 * p - d * (k - 1) - 1) < 0:
                continue
            x = random_pair(rng, shape, channels_last=channels_last)
            assert_same(TF.max_pool2d(x[0], k, s, p, d, ceil_mode=ceil),
                        EF.max_pool2d(x[1], k, s, p, d, ceil_mode=ceil))


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("channels_last", [False, True])
def test_avg_pool2d(eng, channels_last):
    rng = np.random.default_rng(2)
    with engine(eng):
        for shape in shapes(rng, 25):
            k = int(rng.integers(2, 4))
            s, p = int(rng.integers(1, 3)), int(rng.integers(0, k // 2 + 1))
            ceil, cip = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
            div = int(rng.integers(1, 10)) if rng.random() < 0.3 else None
            x = random_pair(rng, shape, channels_last=channels_last)
            assert_same(TF.avg_pool2d(x[0], k, s, p, ceil, cip, div),
                        EF.avg_pool2d(x[1], k, s, p, ceil, cip, div))


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("channels_last", [False, True])
def test_adaptive_avg_pool2d(eng, channels_last):
    rng = np.random.default_rng(3)
    with engine(eng):
        for shape in shapes(rng, 25):
            out = (int(rng.integers(1, shape[2] + 1)), int(rng.integers(1, shape[3] + 1)))
            if rng.random() < 0.3:
                out = (1, 1)
            x = random_pair(rng, shape, channels_last=channels_last)
            assert_same(TF.adaptive_avg_pool2d(x[0], out), EF.adaptive_avg_pool2d(x[1], out))


def test_global_avg_pool_spec_formula():
    # Checklist 58: 7x7 -> 1x1 keeps the input qparams, clamp(rint(f32(sum q - 49 z) * f32(1/49)) + z).
    rng = np.random.default_rng(4)
    codes = random_codes(rng, (1, 32, 7, 7))
    for eng in ENGINES:
        with engine(eng):
            y = EF.adaptive_avg_pool2d(pair(codes, 0.03, 77)[1], 1)
            assert (y.q_scale(), y.q_zero_point()) == (0.03, 77)
            acc = (codes.astype(np.int64).sum((2, 3)) - 49 * 77).astype(np.float32)
            expect = np.clip(np.rint(acc * np.float32(1 / 49)) + 77, 0, 255)
            np.testing.assert_array_equal(y.int_repr().numpy()[:, :, 0, 0], expect)


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("channels_last", [False, True])
def test_interpolate_nearest(eng, channels_last):
    rng = np.random.default_rng(5)
    with engine(eng):
        for shape in shapes(rng, 8):
            x = random_pair(rng, shape, channels_last=channels_last)
            for kw in [dict(scale_factor=2), dict(size=(7, 5)), dict(scale_factor=1.7),
                       dict(size=(shape[2], shape[3]))]:
                assert_same(TF.interpolate(x[0], mode="nearest", **kw),
                            EF.interpolate(x[1], mode="nearest", **kw))


@pytest.mark.parametrize("eng", ENGINES)
def test_quantized_cat(eng):
    # Checklist 61: each input requantized to the given qparams; None takes the first input's.
    rng = np.random.default_rng(6)
    with engine(eng):
        for _ in range(6):
            n, h, w = int(rng.integers(1, 3)), int(rng.integers(1, 6)), int(rng.integers(1, 6))
            for cl in [False, True]:
                xs = [random_pair(rng, (n, int(rng.integers(1, 40)), h, w), channels_last=cl)
                      for _ in range(3)]
                xs.append(pair(xs[0][1].int_repr().numpy(), xs[0][0].q_scale(), xs[0][0].q_zero_point(), cl))
                for op in ["cat", "cat_relu"]:
                    for args in [(1, 0.04, 125), (1, None, None), (0 if n == 1 else 2, 0.05, 3)]:
                        dim, s, z = args
                        if dim != 1:
                            parts = [x for x in xs if x[0].shape[1] == xs[0][0].shape[1]]
                        else:
                            parts = xs
                        t = getattr(torch.ops.quantized, op)([p[0] for p in parts], dim, s, z)
                        e = getattr(ember.ops.quantized, op)([p[1] for p in parts], dim, s, z)
                        assert_same(t, e)
                parts = [x for x in xs if x[0].shape[1] == xs[0][0].shape[1]]
                assert_same(torch.cat([p[0] for p in parts], 0), ember.cat([p[1] for p in parts], 0))


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("op", ["batch_norm2d", "batch_norm2d_relu"])
def test_batch_norm2d(eng, op):
    rng = np.random.default_rng(7)
    with engine(eng):
        for shape in shapes(rng, 8):
            C = shape[1]
            w, b = rng.uniform(0.2, 2, C).astype(np.float32), rng.normal(size=C).astype(np.float32)
            m, v = rng.normal(size=C).astype(np.float32), rng.uniform(0.5, 2, C).astype(np.float32)
            for cl in [False, True]:
                x = random_pair(rng, shape, channels_last=cl)
                tt = [torch.from_numpy(a) for a in (w, b, m, v)]
                ee = [ember.from_numpy(a) for a in (w, b, m, v)]
                t = getattr(torch.ops.quantized, op)(x[0], *tt, 1e-5, 0.05, 100)
                e = getattr(ember.ops.quantized, op)(x[1], *ee, 1e-5, 0.05, 100)
                assert_same(t, e)


def test_pool_errors():
    rng = np.random.default_rng(8)
    x3 = random_pair(rng, (3, 6, 6))
    with engine("qnnpack"):
        raises_same(lambda: TF.max_pool2d(x3[0], 2), lambda: EF.max_pool2d(x3[1], 2))
        raises_same(lambda: TF.avg_pool2d(x3[0], 2), lambda: EF.avg_pool2d(x3[1], 2))
        raises_same(lambda: TF.adaptive_avg_pool2d(x3[0], 2), lambda: EF.adaptive_avg_pool2d(x3[1], 2))
        x = random_pair(rng, (1, 3, 6, 6))
        raises_same(lambda: TF.avg_pool2d(x[0], 1), lambda: EF.avg_pool2d(x[1], 1))
        raises_same(lambda: TF.max_pool2d(x[0], 1), lambda: EF.max_pool2d(x[1], 1))
    with engine("onednn"):
        assert_same(TF.max_pool2d(x3[0], 2), EF.max_pool2d(x3[1], 2))
        assert_same(TF.avg_pool2d(x3[0], 2), EF.avg_pool2d(x3[1], 2))
    for eng in ENGINES:
        with engine(eng):
            x = random_pair(rng, (0, 3, 6, 6))
            assert_same(TF.max_pool2d(x[0], 2), EF.max_pool2d(x[1], 2))
            assert_same(TF.avg_pool2d(x[0], 2), EF.avg_pool2d(x[1], 2))
            x = random_pair(rng, (1, 3, 6, 6))
            raises_same(lambda: TF.max_pool2d(x[0], 2, padding=2), lambda: EF.max_pool2d(x[1], 2, padding=2))
    f = torch.randn(1, 2, 4, 4)
    raises_same(lambda: torch.ops.quantized.batch_norm2d(x3[0], None, None, f[0, 0, 0], f[0, 0, 0], 1e-5, 0.1, 0),
                lambda: ember.ops.quantized.batch_norm2d(x3[1], None, None, ember.from_numpy(f[0, 0, 0].numpy()),
                                                         ember.from_numpy(f[0, 0, 0].numpy()), 1e-5, 0.1, 0))


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("channels_last", [False, True])
def test_mean(eng, channels_last):
    rng = np.random.default_rng(9)
    with engine(eng):
        for shape in shapes(rng, 6):
            x = random_pair(rng, shape, channels_last=channels_last)
            for dims, keep in [((2, 3), False), ((2, 3), True), ((3,), False), ((1, 2, 3), True)]:
                t, e = x[0].mean(dims, keepdim=keep), x[1].mean(dims, keepdim=keep)
                if channels_last and dims != (1, 2, 3) and not (eng == "qnnpack" and dims == (2, 3)):
                    # PyTorch takes a float mean here (dequantize, mean, quantize); the float
                    # sums round differently from ember's in the last ulp, so codes may differ by 1.
                    assert (e.q_scale(), e.q_zero_point()) == (t.q_scale(), t.q_zero_point())
                    diff = np.abs(t.int_repr().numpy().astype(int) - e.int_repr().numpy().astype(int))
                    assert diff.max() <= 1
                    continue
                assert_same(t, e)
            assert_same(x[0].mean(), x[1].mean())
