"""ember.fft against torch.fft (torch 1.13): values for every function, n / s, dim and norm, the
dtype rules, error texts, the Core ATen primitives _fft_r2c / _fft_c2r / _fft_c2c with their
gradients, and a real loss backpropagated through rfft / abs / irfft."""
import numpy as np
import pytest
import torch

import ember


def E(t, requires_grad=False):
    e = ember.from_numpy(t.detach().numpy().copy())
    return e.requires_grad_() if requires_grad else e


def close(e, t, dtype_rtol=None):
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1], (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    single = t.dtype in (torch.float32, torch.complex64)
    tol = dtype_rtol or (2e-5 if single else 1e-11)
    scale = max(1.0, float(t.abs().max()) if t.numel() else 1.0)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().resolve_conj().numpy(), rtol=tol, atol=tol * scale)


def rand(*shape, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, dtype=dtype, generator=g)


NORMS = [None, "backward", "ortho", "forward"]
DTYPES = [torch.float32, torch.float64, torch.complex64, torch.complex128]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_fft_ifft(name, dtype, norm):
    for shape, n, dim in [((16,), None, -1), ((3, 12), None, 0), ((4, 7), 10, 1), ((5, 9), 4, -1), ((2, 3, 5), None, 1)]:
        t = rand(*shape, dtype=dtype)
        close(getattr(ember.fft, name)(E(t), n=n, dim=dim, norm=norm), getattr(torch.fft, name)(t, n=n, dim=dim, norm=norm))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_rfft_irfft_hfft_ihfft(dtype, norm):
    for shape, n, dim in [((16,), None, -1), ((3, 11), None, -1), ((6, 5), 8, 0), ((4, 9), 7, 1), ((1,), None, 0)]:
        t = rand(*shape, dtype=dtype)
        close(ember.fft.rfft(E(t), n=n, dim=dim, norm=norm), torch.fft.rfft(t, n=n, dim=dim, norm=norm))
        close(ember.fft.ihfft(E(t), n=n, dim=dim, norm=norm), torch.fft.ihfft(t, n=n, dim=dim, norm=norm))
        c = torch.fft.rfft(t, dim=dim)
        if c.shape[dim] > 1 or n:
            close(ember.fft.irfft(E(c), n=n, dim=dim, norm=norm), torch.fft.irfft(c, n=n, dim=dim, norm=norm))
            close(ember.fft.hfft(E(c), n=n, dim=dim, norm=norm), torch.fft.hfft(c, n=n, dim=dim, norm=norm))


def test_irfft_ignores_what_hermitian_symmetry_forbids():
    # the imaginary parts of the zero and Nyquist frequencies: pocketfft (torch) drops them
    c = rand(3, 5, dtype=torch.complex128)
    for n in (8, 9, 6, 3):
        close(ember.fft.irfft(E(c), n=n), torch.fft.irfft(c, n=n))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "rfftn", "ihfft2", "ihfftn"])
def test_nd_transforms(name, norm):
    complex_ok = name in ("fft2", "ifft2", "fftn", "ifftn")
    for dtype in (DTYPES if complex_ok else [torch.float32, torch.float64]):
        for shape, s, dim in [((4, 6), None, None), ((3, 4, 5), None, None), ((3, 4, 5), (5, 3), None),
                              ((3, 4, 5), None, (0, 2)), ((3, 4, 5), (2, -1), (2, 0)), ((2, 3, 4), (4,), (1,))]:
            if name.endswith("2") and dim is None and s is None:
                dim_arg = {}
            elif name.endswith("2"):
                if (dim is not None and len(dim) != 2) or (s is not None and len(s) != 2):
                    continue
                dim_arg = {"dim": dim} if dim is not None else {}
            else:
                dim_arg = {"dim": dim}
            t = rand(*shape, dtype=dtype)
            got = getattr(ember.fft, name)(E(t), s=s, norm=norm, **dim_arg)
            close(got, getattr(torch.fft, name)(t, s=s, norm=norm, **dim_arg))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["irfft2", "irfftn", "hfft2", "hfftn"])
def test_nd_inverse_real_transforms(name, norm):
    for dtype in (torch.complex64, torch.complex128):
        for shape, s, dim in [((4, 5), None, None), ((3, 4, 5), None, None), ((3, 4, 5), (6, 8), None),
                              ((3, 4, 5), None, (0, 2)), ((3, 4, 5), (4, 7), (0, 2)), ((3, 4, 5), (5, -1), (1, 2))]:
            if name.endswith("2") and dim is not None and len(dim) != 2:
                continue
            kw = {"s": s, "norm": norm}
            if dim is not None:
                kw["dim"] = dim
            elif name.endswith("n") and s is None:
                kw["dim"] = None
            t = rand(*shape, dtype=dtype)
            close(getattr(ember.fft, name)(E(t), **kw), getattr(torch.fft, name)(t, **kw))


def test_int_and_bool_inputs_promote_to_the_default_dtype():
    t = torch.arange(6)
    close(ember.fft.fft(E(t)), torch.fft.fft(t))
    close(ember.fft.rfft(E(t)), torch.fft.rfft(t))
    b = torch.tensor([True, False, True])
    close(ember.fft.fft(E(b)), torch.fft.fft(b))


def test_fftfreq_rfftfreq_shifts():
    for n, d in [(1, 1.0), (5, 1.0), (8, 0.1), (9, 2.5)]:
        close(ember.fft.fftfreq(n, d), torch.fft.fftfreq(n, d))
        close(ember.fft.rfftfreq(n, d), torch.fft.rfftfreq(n, d))
    close(ember.fft.fftfreq(6, dtype=ember.float64), torch.fft.fftfreq(6, dtype=torch.float64))
    t = rand(4, 5)
    for dim in (None, 0, (0, 1), -1):
        close(ember.fft.fftshift(E(t), dim=dim), torch.fft.fftshift(t, dim=dim))
        close(ember.fft.ifftshift(E(t), dim=dim), torch.fft.ifftshift(t, dim=dim))
    x = ember.fft.fftfreq(7)
    assert ember.fft.ifftshift(ember.fft.fftshift(x)).tolist() == x.tolist()


def test_names_modules_and_errors():
    assert ember.fft.fft.__name__ == "fft_fft" and ember.fft.rfft2.__module__ == "ember.fft"
    assert not hasattr(ember, "fft_fft") and not hasattr(ember.Tensor, "fft_fft")
    cases = [
        (lambda: ember.fft.fft(ember.ones(3), n=0), RuntimeError, "Invalid number of data points (0) specified"),
        (lambda: ember.fft.fft(ember.ones(3), norm="bad"), RuntimeError, 'Invalid normalization mode: "bad"'),
        (lambda: ember.fft.rfft(ember.ones(3, dtype=ember.cfloat)), RuntimeError,
         "rfft expects a real input tensor, but got ComplexFloat"),
        (lambda: ember.fft.ihfft(ember.ones(3, dtype=ember.cfloat)), RuntimeError,
         "ihfft expects a real input tensor, but got ComplexFloat"),
        (lambda: ember.fft.fft(ember.ones(3, dtype=ember.float16)), RuntimeError, "Unsupported dtype Half"),
        (lambda: ember.fft.fftn(ember.ones(3, 3), s=(2, 2, 2)), RuntimeError,
         "Got shape with 3 values but input tensor only has 2 dimensions."),
        (lambda: ember.fft.fftn(ember.ones(3, 3), s=(2, 2), dim=(0,)), RuntimeError,
         "When given, dim and shape arguments must have the same length"),
        (lambda: ember.fft.fftn(ember.ones(3, 3), dim=(0, 0)), RuntimeError, "FFT dims must be unique"),
        (lambda: ember.fft.rfftn(ember.ones(3, 3), dim=()), RuntimeError, "rfftn must transform at least one axis"),
        (lambda: ember.fft.irfftn(ember.ones(3, 3), dim=()), RuntimeError, "irfftn must transform at least one axis"),
        (lambda: ember.fft.irfft(ember.ones(1)), RuntimeError, "Invalid number of data points (0) specified"),
        (lambda: ember.fft.fft(ember.ones(3), dim=2), IndexError,
         "Dimension out of range (expected to be in range of [-1, 0], but got 2)"),
    ]
    for fn, kind, text in cases:
        with pytest.raises(kind) as info:
            fn()
        assert str(info.value) == text, str(info.value)


# ---- the Core ATen primitives and gradients ----

def test_core_aten_primitives():
    x = rand(3, 8)
    z = rand(3, 8, dtype=torch.complex128)
    aten_e, aten_t = ember.ops.aten, torch.ops.aten
    close(aten_e._fft_r2c.default(E(x), [1], 2, True), aten_t._fft_r2c.default(x, [1], 2, True))
    close(aten_e._fft_r2c.default(E(x), [0, 1], 1, False), aten_t._fft_r2c.default(x, [0, 1], 1, False))
    close(aten_e._fft_c2c.default(E(z), [0, 1], 0, True), aten_t._fft_c2c.default(z, [0, 1], 0, True))
    close(aten_e._fft_c2c.default(E(z), [1], 2, False), aten_t._fft_c2c.default(z, [1], 2, False))
    h = z[:, :5]
    close(aten_e._fft_c2r.default(E(h), [1], 2, 8), aten_t._fft_c2r.default(h, [1], 2, 8))
    close(aten_e._fft_c2r.default(E(h), [0, 1], 0, 9), aten_t._fft_c2r.default(h, [0, 1], 0, 9))
    assert str(aten_e._fft_c2r.default) == "aten._fft_c2r.default"


def grads(fn_e, fn_t, *tensors):
    te = [t.clone().requires_grad_() for t in tensors]
    ee = [E(t, requires_grad=True) for t in tensors]
    out_t, out_e = fn_t(*te), fn_e(*ee)
    assert out_e.grad_fn is not None
    out_t.backward()
    out_e.backward()
    for e, t in zip(ee, te):
        close(e.grad, t.grad)


@pytest.mark.parametrize("norm", NORMS)
def test_gradients_match_torch(norm):
    x = rand(4, 6)
    z = rand(4, 6, dtype=torch.complex128)
    w = rand(4, 6)  # weights make the losses non-symmetric
    grads(lambda a: (ember.fft.rfft(a, norm=norm).abs() * E(w)[:, :4]).sum(),
          lambda a: (torch.fft.rfft(a, norm=norm).abs() * w[:, :4]).sum(), x)
    grads(lambda a: (ember.fft.irfft(ember.fft.rfft(a), n=6, norm=norm) * E(w)).sum(),
          lambda a: (torch.fft.irfft(torch.fft.rfft(a), n=6, norm=norm) * w).sum(), x)
    grads(lambda a: ember.fft.fft2(a, norm=norm).abs().sum(), lambda a: torch.fft.fft2(a, norm=norm).abs().sum(), z)
    grads(lambda a: (ember.fft.irfft(a, n=9, norm=norm) * E(rand(4, 9))).sum(),
          lambda a: (torch.fft.irfft(a, n=9, norm=norm) * rand(4, 9)).sum(), z)
    grads(lambda a: (ember.fft.irfftn(a, s=(4, 10), norm=norm) ** 2).sum(),
          lambda a: (torch.fft.irfftn(a, s=(4, 10), norm=norm) ** 2).sum(), z)
    grads(lambda a: ember.fft.hfft(a, norm=norm).pow(2).sum(), lambda a: torch.fft.hfft(a, norm=norm).pow(2).sum(), z)
    grads(lambda a: ember.fft.ihfft(a, norm=norm).abs().sum(), lambda a: torch.fft.ihfft(a, norm=norm).abs().sum(), x)
    grads(lambda a: ember.fft.fft(a, norm=norm).real.sum() + ember.fft.fft(a).imag.pow(2).sum(),
          lambda a: torch.fft.fft(a, norm=norm).real.sum() + torch.fft.fft(a).imag.pow(2).sum(), x)


def test_grad_fn_names():
    x = ember.ones(4, requires_grad=True)
    assert type(ember.fft.rfft(x).grad_fn).__name__ == "FftR2CBackward0"
    assert type(ember.fft.irfft(ember.fft.rfft(x)).grad_fn).__name__ == "FftC2RBackward0"
    assert type(ember.fft.fft(x.to(ember.cfloat)).grad_fn).__name__ == "FftC2CBackward0"


def test_real_loss_trains_through_the_spectrum():
    # a low-pass filter learned by gradient descent in the frequency domain
    ember.manual_seed(0)
    signal = ember.randn(64, dtype=ember.float64)
    target = ember.fft.irfft(ember.fft.rfft(signal) * (ember.arange(33, dtype=ember.float64) < 8), n=64)
    gain = ember.ones(33, dtype=ember.float64, requires_grad=True)
    # each gain's curvature is about |X_k|^2 / 64: scale the steps by it
    step = 0.2 / (ember.fft.rfft(signal).abs() ** 2 / 64 + 1e-3)
    losses = []
    for _ in range(40):
        out = ember.fft.irfft(ember.fft.rfft(signal) * gain, n=64)
        loss = ((out - target) ** 2).sum()
        losses.append(loss.item())
        loss.backward()
        with ember.no_grad():
            gain -= step * gain.grad
        gain.grad = None
    assert losses[-1] < 1e-8 * losses[0]
