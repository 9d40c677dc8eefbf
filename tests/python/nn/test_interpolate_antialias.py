"""F.interpolate(antialias=True) and aten::_upsample_bilinear2d_aa / _upsample_bicubic2d_aa
against torch 1.13: values (float32 and float64, down- and upsampling, align_corners, explicit
scale factors), gradients, the `.vec` overloads, and the error texts
(Note [Anti-aliased resampling] in src/ops/nn_sample.cpp)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF

SHAPES = [  # (H, W) -> (OH, OW): down, up, mixed, one axis unchanged, strong downsampling
    ((17, 23), (5, 7)),
    ((8, 8), (20, 13)),
    ((32, 32), (16, 16)),
    ((10, 30), (10, 7)),
    ((64, 9), (3, 9)),
    ((5, 6), (1, 1)),
]


def E(t):
    return ember.from_numpy(t.detach().numpy().copy())


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("ac", [False, True])
@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_values_match_torch(mode, ac, shapes, dtype):
    (h, w), size = shapes
    x = torch.randn(2, 3, h, w, generator=torch.Generator().manual_seed(h * w), dtype=dtype)
    want = TF.interpolate(x, size=size, mode=mode, align_corners=ac, antialias=True)
    got = EF.interpolate(E(x), size=size, mode=mode, align_corners=ac, antialias=True)
    assert tuple(got.shape) == tuple(want.shape)
    assert got.dtype == (ember.float32 if dtype == torch.float32 else ember.float64)
    # Taps and weights are torch's; the sums may round differently (torch's compiled loop
    # contracts some of them into FMAs), so float32 agrees to a few ulps.
    tol = dict(rtol=2e-6, atol=2e-6) if dtype == torch.float32 else dict(rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(got.numpy(), want.numpy(), **tol)


def test_antialias_differs_from_plain_when_downsampling():
    x = torch.randn(1, 1, 40, 40, generator=torch.Generator().manual_seed(3))
    aa = EF.interpolate(E(x), size=(10, 10), mode="bilinear", antialias=True).numpy()
    plain = EF.interpolate(E(x), size=(10, 10), mode="bilinear").numpy()
    assert np.abs(aa - plain).max() > 1e-2  # a 4x reduction averages ~8 taps, not 2
    # A constant image stays constant: the weights of every output sum to one.
    c = EF.interpolate(ember.full((1, 1, 40, 33), 2.5), size=(7, 5), mode="bicubic", antialias=True)
    np.testing.assert_allclose(c.numpy(), 2.5, rtol=1e-6)


@pytest.mark.parametrize("scale", [0.3, 0.5, 1.7])
@pytest.mark.parametrize("recompute", [None, True])
def test_scale_factor(scale, recompute):
    x = torch.randn(1, 2, 19, 14, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
    kw = dict(scale_factor=scale, mode="bilinear", antialias=True, recompute_scale_factor=recompute)
    np.testing.assert_allclose(EF.interpolate(E(x), **kw).numpy(), TF.interpolate(x, **kw).numpy(),
                               rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("name", ["_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa"])
def test_aten_ops_and_vec_overloads(name):
    x = torch.randn(2, 1, 12, 9, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    top = getattr(torch.ops.aten, name)
    eop = getattr(ember.ops.aten, name)
    np.testing.assert_allclose(eop.default(E(x), [5, 4], False).numpy(),
                               top.default(x, [5, 4], False).numpy(), rtol=1e-13)
    np.testing.assert_allclose(eop.default(E(x), [5, 4], True, 0.4, 0.45).numpy(),
                               top.default(x, [5, 4], True, 0.4, 0.45).numpy(), rtol=1e-13)
    np.testing.assert_allclose(eop.vec(E(x), None, False, [0.5, 0.25]).numpy(),
                               top.vec(x, None, False, [0.5, 0.25]).numpy(), rtol=1e-13)
    with pytest.raises(RuntimeError, match="Must specify exactly one of output_size and scale_factors"):
        eop.vec(E(x), [3, 3], False, [0.5, 0.5])


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_gradients(mode):
    x = torch.randn(1, 2, 9, 11, dtype=torch.float64, generator=torch.Generator().manual_seed(2),
                    requires_grad=True)
    g = torch.randn(1, 2, 4, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    TF.interpolate(x, size=(4, 6), mode=mode, antialias=True).backward(g)
    ex = E(x).requires_grad_()
    EF.interpolate(ex, size=(4, 6), mode=mode, antialias=True).backward(E(g))
    np.testing.assert_allclose(ex.grad.numpy(), x.grad.numpy(), rtol=1e-12, atol=1e-13)
    small = ember.randn(1, 1, 6, 5, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(
        lambda t: EF.interpolate(t, size=(3, 7), mode=mode, antialias=True), (small,))


def test_errors_match_torch():
    x = torch.randn(1, 1, 8, 8)
    for mode, inp in [("nearest", x), ("bilinear", x[0]), ("linear", x[0]), ("area", x)]:
        with pytest.raises(ValueError) as t_err:
            TF.interpolate(inp, size=4, mode=mode, antialias=True)
        with pytest.raises(ValueError) as e_err:
            EF.interpolate(E(inp), size=4, mode=mode, antialias=True)
        assert str(e_err.value) == str(t_err.value)
    for dtype in [torch.int64, torch.float16, torch.bfloat16]:
        xi = torch.ones(1, 1, 4, 4, dtype=dtype)
        with pytest.raises(RuntimeError) as t_err:
            torch.ops.aten._upsample_bilinear2d_aa(xi, [2, 2], False)
        with pytest.raises(RuntimeError) as e_err:
            ember.ops.aten._upsample_bilinear2d_aa(ember.ones(1, 1, 4, 4, dtype=getattr(ember, str(dtype)[6:])),
                                                   [2, 2], False)
        assert str(e_err.value) == str(t_err.value)
    for args in [(torch.ones(4, 4), [2, 2]), (torch.ones(1, 1, 4, 4), [0, 2]), (torch.ones(1, 0, 4, 4), [2, 2])]:
        with pytest.raises(RuntimeError) as t_err:
            torch.ops.aten._upsample_bicubic2d_aa(args[0], args[1], False)
        with pytest.raises(RuntimeError) as e_err:
            ember.ops.aten._upsample_bicubic2d_aa(E(args[0]), args[1], False)
        assert str(e_err.value) == str(t_err.value)


def test_empty_batch_and_meta():
    out = EF.interpolate(ember.ones(0, 3, 8, 8), size=(3, 3), mode="bilinear", antialias=True)
    assert tuple(out.shape) == (0, 3, 3, 3)
    m = EF.interpolate(ember.ones(2, 3, 8, 8, device="meta"), size=(3, 5), mode="bicubic", antialias=True)
    assert m.is_meta and tuple(m.shape) == (2, 3, 3, 5)


def test_f_hardtanh_inplace():
    x = ember.tensor([-3.0, -0.5, 0.25, 2.0])
    y = EF.hardtanh_(x, -1.0, 1.0)
    assert y is x
    assert x.tolist() == [-1.0, -0.5, 0.25, 1.0]
