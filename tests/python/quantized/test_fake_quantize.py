"""fake_quantize_per_tensor_affine (both overloads) and fake_quantize_per_channel_affine against
PyTorch 1.13: values bit for bit (quantization-spec § 11 item 27), the straight-through gradient
with its mask, grad_fn names, gradcheck, and the error texts."""
import numpy as np
import pytest
import torch

import ember


def data(shape=(5, 7, 3), seed=0, dtype=np.float32):
    x = np.random.RandomState(seed).randn(*shape).astype(dtype) * 3
    x.flat[0] = np.nan
    x.flat[1] = np.inf
    x.flat[2] = -np.inf
    with np.errstate(over="ignore"):
        x.flat[3] = 1e30  # inf in float16
    x.flat[4:40:3] = np.round(x.flat[4:40:3] / 0.0213) * 0.0213 + 0.5 * 0.0213  # near ties
    return x


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.int64 if a.dtype == np.float64 else np.int32 if a.dtype == np.float32 else np.int16)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("scale,zp,qmin,qmax", [(0.0213, 37, 0, 255), (0.1, 0, -128, 127),
                                                (0.37, 3, 0, 127), (1.0, 0, -1000, 1000)])
def test_per_tensor_bit_exact(dtype, scale, zp, qmin, qmax):
    x = data(dtype=dtype)
    t = torch.fake_quantize_per_tensor_affine(torch.from_numpy(x), scale, zp, qmin, qmax).numpy()
    e = ember.fake_quantize_per_tensor_affine(ember.from_numpy(x), scale, zp, qmin, qmax).numpy()
    assert e.dtype == t.dtype
    np.testing.assert_array_equal(bits(e), bits(t))
    # tensor qparams overload
    tt = torch.fake_quantize_per_tensor_affine(torch.from_numpy(x), torch.tensor(scale), torch.tensor(zp),
                                               qmin, qmax).numpy()
    et = ember.fake_quantize_per_tensor_affine(ember.from_numpy(x), ember.tensor(scale), ember.tensor(zp),
                                               qmin, qmax).numpy()
    np.testing.assert_array_equal(bits(et), bits(tt))


def test_checklist_27():
    x = data((64,), 3)
    e = ember.fake_quantize_per_tensor_affine(ember.from_numpy(x), 0.0213, 37, 0, 255).numpy()
    inv = np.float32(1) / np.float32(0.0213)
    with np.errstate(invalid="ignore", over="ignore"):
        q = np.clip(np.rint(x * inv) + 37, 0, 255)
    q[~np.isfinite(x) | (np.abs(x) > 1e20)] = 0  # NaN / inf / huge: the minimum code, as torch
    expected = ((q - 37) * np.float64(np.float32(0.0213))).astype(np.float32)
    np.testing.assert_array_equal(e[5:], expected[5:])


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("zdtype", [np.int32, np.float32])
def test_per_channel_bit_exact(axis, zdtype):
    x = data()
    c = x.shape[axis]
    s = (np.random.RandomState(axis).rand(c) * 0.2 + 0.01).astype(np.float32)
    z = np.random.RandomState(axis + 9).randint(0, 255, c).astype(zdtype)
    t = torch.fake_quantize_per_channel_affine(torch.from_numpy(x), torch.from_numpy(s),
                                               torch.from_numpy(z), axis, 0, 255).numpy()
    e = ember.fake_quantize_per_channel_affine(ember.from_numpy(x), ember.from_numpy(s),
                                               ember.from_numpy(z), axis, 0, 255).numpy()
    np.testing.assert_array_equal(bits(e), bits(t))


def test_gradients_straight_through():
    x = data((4, 6), 5)[None].repeat(2, 0)
    x[np.isnan(x) | np.isinf(x)] = 0.3
    x[x > 1e20] = 50.0
    g = np.random.RandomState(2).randn(*x.shape).astype(np.float32)
    s = np.array([0.05, 0.1, 0.2, 0.02], np.float32)
    z = np.array([10, 128, 0, 255], np.int32)
    forms = [
        (lambda m, a: m.fake_quantize_per_tensor_affine(a, 0.05, 10, 0, 255),
         "FakeQuantizePerTensorAffineCachemaskBackward0"),
        (lambda m, a: m.fake_quantize_per_tensor_affine(a, m.tensor(0.05), m.tensor(10), 0, 255),
         "FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0"),
        (lambda m, a: m.fake_quantize_per_channel_affine(a, m.from_numpy(s), m.from_numpy(z), 1, 0, 255),
         "FakeQuantizePerChannelAffineCachemaskBackward0"),
    ]
    for f, name in forms:
        tx = torch.from_numpy(x.copy()).requires_grad_()
        ex = ember.from_numpy(x.copy()).requires_grad_()
        ty, ey = f(torch, tx), f(ember, ex)
        assert type(ty.grad_fn).__name__ == name
        assert ey.grad_fn.name() == name
        ty.backward(torch.from_numpy(g))
        ey.backward(ember.from_numpy(g))
        np.testing.assert_array_equal(ex.grad.numpy(), tx.grad.numpy())


def test_gradcheck():
    x = ember.tensor([[0.013, 0.26, -0.3], [1.1, 2.27, 7.0]], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda a: ember.fake_quantize_per_tensor_affine(a, 1.0, 0, -2, 2) * 0 + a * 1,
                                    (x,))
    # inside the range the gradient is 1, outside 0 (the function is piecewise constant there)
    y = ember.fake_quantize_per_tensor_affine(x, 0.5, 0, -2, 2)
    y.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]]


@pytest.mark.parametrize("case", range(7))
def test_errors_match_torch(case):
    x = np.random.RandomState(0).randn(2, 3).astype(np.float32)
    cases = [
        lambda m: m.fake_quantize_per_tensor_affine(m.from_numpy(x), 0.1, 3, 10, 5),
        lambda m: m.fake_quantize_per_tensor_affine(m.from_numpy(x), 0.1, 300, 0, 255),
        lambda m: m.fake_quantize_per_tensor_affine(m.from_numpy(np.ones(3, np.int64)), 0.1, 3, 0, 255),
        lambda m: m.fake_quantize_per_channel_affine(m.from_numpy(x), m.tensor([0.1, 0.2]),
                                                     m.tensor([1, 2]), 0, 0, 255),
        lambda m: m.fake_quantize_per_channel_affine(m.from_numpy(x), m.tensor([0.1, 0.2]),
                                                     m.tensor([1, 2], dtype=m.int32), 1, 0, 255),
        lambda m: m.fake_quantize_per_channel_affine(m.from_numpy(x), m.tensor([0.1, 0.2]),
                                                     m.tensor([1, 300], dtype=m.int32), 0, 0, 255),
        lambda m: m.fake_quantize_per_channel_affine(m.from_numpy(x), m.tensor([0.1, 0.2]),
                                                     m.tensor([1], dtype=m.int32), 0, 0, 255),
    ]
    outs = []
    for m in (torch, ember):
        with pytest.raises(Exception) as ei:
            cases[case](m)
        outs.append((type(ei.value).__name__, str(ei.value).split("\n")[0].replace("torch.", "ember.")))
    assert outs[0] == outs[1]
