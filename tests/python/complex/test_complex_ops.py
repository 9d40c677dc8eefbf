"""Complex views (view_as_real / view_as_complex, real / imag), construction (complex, polar),
conj, angle, abs, the elementwise math, reductions and matrix products on complex64 /
complex128, and their gradients, against torch 1.13."""
import numpy as np
import pytest
import torch

import ember


def E(t, requires_grad=False):
    e = ember.from_numpy(t.detach().numpy().copy())
    return e.requires_grad_() if requires_grad else e


def close(e, t, rtol=1e-5, atol=1e-6):
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1], (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True)


def crandn(*shape, dtype=torch.complex64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, dtype=dtype, generator=g)


# ---- views ----

def test_view_as_real_shares_memory_and_strides():
    t = crandn(3, 4)
    z = E(t)
    r = ember.view_as_real(z)
    tr = torch.view_as_real(t)
    assert r.shape == tr.shape and r.stride() == tr.stride() and r.dtype == ember.float32
    assert r._base is z
    r[0, 0, 1] = 5.0
    assert z[0, 0].item().imag == 5.0
    zt = ember.view_as_real(z.t())
    assert zt.stride() == torch.view_as_real(t.t()).stride()
    assert ember.view_as_real(z[1:, ::2]).storage_offset() == torch.view_as_real(t[1:, ::2]).storage_offset()


def test_view_as_complex_and_its_checks():
    t = torch.randn(5, 2)
    c = ember.view_as_complex(E(t))
    assert c.dtype == ember.complex64 and c.shape == (5,)
    close(c, torch.view_as_complex(t))
    assert ember.view_as_complex(E(torch.randn(4, 2, dtype=torch.float64))).dtype == ember.complex128
    assert ember.view_as_complex(E(torch.zeros(4, 2))[::3]).stride() == (3,)
    bad = [
        (lambda: ember.view_as_real(ember.zeros(2)), "view_as_real is only supported for complex tensors"),
        (lambda: ember.view_as_complex(ember.zeros(2, 3)), "Tensor must have a last dimension of size 2"),
        (lambda: ember.view_as_complex(ember.zeros(3, 2).t()), "Tensor must have a last dimension of size 2"),
        (lambda: ember.view_as_complex(ember.zeros(2)[1:].view(1, 1).expand(1, 2)),
         "Tensor must have a last dimension with stride 1"),
        (lambda: ember.view_as_complex(ember.zeros(5)[1:].view(2, 2)),
         "Tensor must have a storage_offset divisible by 2"),
        (lambda: ember.view_as_complex(ember.zeros(())), "Input tensor must have one or more dimensions"),
        (lambda: ember.imag(ember.zeros(2)), "imag is not implemented for tensors with non-complex dtypes."),
    ]
    for fn, text in bad:
        with pytest.raises(RuntimeError) as info:
            fn()
        assert str(info.value) == text
    with pytest.raises(RuntimeError, match="view_as_complex is only supported for"):
        ember.view_as_complex(ember.zeros(2, 2, dtype=ember.int32))


def test_real_imag_are_views_with_setters():
    z = ember.tensor([1 + 2j, 3 + 4j])
    r = z.real
    assert r._base is not None and r.stride() == (2,) and z.imag.storage_offset() == 1
    z.real = ember.tensor([9.0, 8.0])
    z.imag.mul_(2)
    assert z.tolist() == [9 + 4j, 8 + 8j]
    z.imag = 3
    assert z.tolist() == [9 + 3j, 8 + 3j]
    x = ember.zeros(2)
    assert x.real is x and ember.real(x) is x
    with pytest.raises(RuntimeError, match="imag is not implemented"):
        x.imag = ember.ones(2)
    assert ember.tensor([1j]).is_complex() and not x.is_complex() and ember.is_complex(z)


def test_complex_polar_conj_angle_abs():
    re, im = torch.randn(3, 4), torch.randn(4)
    close(ember.complex(E(re), E(im)), torch.complex(re, im))
    close(ember.polar(E(re.abs()), E(im)), torch.polar(re.abs(), im))
    with pytest.raises(RuntimeError) as info:
        ember.complex(ember.zeros(2), ember.zeros(2, dtype=ember.float64))
    assert str(info.value) == "Expected object of scalar type Float but got scalar type Double for second argument"
    with pytest.raises(RuntimeError) as info:
        ember.complex(ember.zeros(2, dtype=ember.int32), ember.zeros(2, dtype=ember.int32))
    assert str(info.value) == "Expected both inputs to be Half, Float or Double tensors but got Int and Int"
    t = crandn(5, dtype=torch.complex128)
    z = E(t)
    close(z.conj(), t.conj().resolve_conj())
    close(ember.conj_physical(z), torch.conj_physical(t))
    assert not z.conj().is_conj() and not ember.is_conj(z)
    assert z.resolve_conj() is z
    w = z.clone()
    w.conj_physical_()
    close(w, t.conj().resolve_conj())
    close(z.angle(), t.angle(), rtol=1e-12)
    close(z.abs(), t.abs(), rtol=1e-12)
    assert z.abs().dtype == ember.float64
    close(ember.angle(ember.tensor([-1.0, 2.0, float("nan")])), torch.angle(torch.tensor([-1.0, 2.0, float("nan")])))
    close(ember.angle(ember.tensor([-1, 2])), torch.angle(torch.tensor([-1, 2])))
    close(ember.sgn(E(torch.tensor([3 + 4j, 0j]))), torch.sgn(torch.tensor([3 + 4j, 0j])))
    x = ember.tensor([1.0, -2.0])
    assert x.conj() is x and ember.conj_physical(x).tolist() == [1.0, -2.0]


# ---- math ----

UNARY = ["neg", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "reciprocal", "rsqrt", "square"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_unary_math(name, dtype):
    t = crandn(4, 3, dtype=dtype, seed=3)
    e = getattr(E(t), name)()
    rtol = 1e-5 if dtype == torch.complex64 else 1e-12
    close(e, getattr(t, name)(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_binary_math_and_promotion(dtype):
    a, b = crandn(3, 4, dtype=dtype, seed=1), crandn(4, dtype=dtype, seed=2)
    rtol = 1e-5 if dtype == torch.complex64 else 1e-12
    for op in ("add", "sub", "mul", "div", "pow"):
        close(getattr(E(a), op)(E(b)), getattr(a, op)(b), rtol=rtol, atol=rtol)
    f = torch.randn(4, dtype=torch.float64)
    close(E(a) + E(f), a + f, rtol=rtol, atol=rtol)
    close(E(a) * (2 - 1j), a * (2 - 1j), rtol=rtol, atol=rtol)
    close(E(a) ** 2, a ** 2, rtol=rtol, atol=rtol)
    close(E(a).add(E(b), alpha=2j), a.add(b, alpha=2j), rtol=rtol, atol=rtol)
    close(ember.tensor([1, 2]) / ember.tensor([1j, 2j]), torch.tensor([1, 2]) / torch.tensor([1j, 2j]))
    assert (E(a) == E(a)).all().item() and not (E(a) != E(a)).any().item()
    with pytest.raises(RuntimeError, match="alpha must not be a complex number"):
        ember.ones(2).add(ember.ones(2), alpha=1j)


def test_predicates_and_reductions():
    t = torch.tensor([1 + 1j, complex(float("nan"), 0), complex(0, float("inf")), 2j])
    e = E(t)
    for name in ("isnan", "isinf", "isfinite"):
        assert getattr(ember, name)(e).tolist() == getattr(torch, name)(t).tolist()
    a = crandn(3, 5, dtype=torch.complex128)
    close(E(a).sum(), a.sum(), rtol=1e-12)
    close(E(a).sum(1), a.sum(1), rtol=1e-12)
    close(E(a).mean(0), a.mean(0), rtol=1e-12)
    close(E(a).prod(1), a.prod(1), rtol=1e-12)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_matrix_products(dtype):
    a, b = crandn(3, 4, dtype=dtype, seed=4), crandn(4, 5, dtype=dtype, seed=5)
    rtol = 1e-5 if dtype == torch.complex64 else 1e-12
    close(E(a) @ E(b), a @ b, rtol=rtol, atol=rtol)
    close(E(a).t().mm(E(a)), a.t().mm(a), rtol=rtol, atol=rtol)
    x, y = crandn(2, 3, 4, dtype=dtype, seed=6), crandn(2, 4, 2, dtype=dtype, seed=7)
    close(ember.bmm(E(x), E(y)), torch.bmm(x, y), rtol=rtol, atol=rtol)
    v = crandn(4, dtype=dtype, seed=8)
    close(E(a) @ E(v), a @ v, rtol=rtol, atol=rtol)
    # Debian's torch 1.13 returns 0 for complex dot / vdot / 1-d matmul (its OpenBLAS cdotu call):
    # the reference here is the sum of products.
    close(ember.matmul(E(v), E(v)), (v * v).sum(), rtol=rtol, atol=rtol)


# ---- gradients (PyTorch's conjugate Wirtinger convention) ----

def grads(fn_e, fn_t, *tensors):
    """ember's and torch's gradients of the real loss fn(*tensors)."""
    te = [t.clone().requires_grad_() for t in tensors]
    ee = [E(t, requires_grad=True) for t in tensors]
    fn_t(*te).backward()
    fn_e(*ee).backward()
    for e, t in zip(ee, te):
        close(e.grad, t.grad, rtol=1e-9, atol=1e-9)


def test_grads_through_views_and_constructors():
    z = crandn(3, 2, dtype=torch.complex128)
    x = torch.randn(3, dtype=torch.float64)
    grads(lambda a: (ember.view_as_real(a) ** 2 * ember.arange(2.0, dtype=ember.float64)).sum(),
          lambda a: (torch.view_as_real(a) ** 2 * torch.arange(2.0, dtype=torch.float64)).sum(), z)
    grads(lambda r: ember.view_as_complex(r).abs().sum(), lambda r: torch.view_as_complex(r).abs().sum(),
          torch.randn(4, 2, dtype=torch.float64))
    grads(lambda a: (a.real * 3 + a.imag ** 2).sum(), lambda a: (a.real * 3 + a.imag ** 2).sum(), z)
    grads(lambda a, b: ember.complex(a, b).abs().sum(), lambda a, b: torch.complex(a, b).abs().sum(), x, x * 2)
    grads(lambda a: a.angle().sum(), lambda a: a.angle().sum(), z)
    grads(lambda a: (a.conj() * a.exp()).real.sum(), lambda a: (a.conj() * a.exp()).real.sum(), z)


def test_grads_of_math():
    a, b = crandn(3, 4, dtype=torch.complex128, seed=1), crandn(3, 4, dtype=torch.complex128, seed=2)
    grads(lambda x, y: (x * y).abs().sum(), lambda x, y: (x * y).abs().sum(), a, b)
    grads(lambda x, y: (x / y).real.sum(), lambda x, y: (x / y).real.sum(), a, b)
    grads(lambda x, y: (x + 2 * y).imag.sum(), lambda x, y: (x + 2 * y).imag.sum(), a, b)
    grads(lambda x: x.sum().abs(), lambda x: x.sum().abs(), a)
    for name in ("exp", "log", "sin", "cos", "tanh", "sqrt", "sigmoid"):
        grads(lambda x: getattr(x, name)().abs().sum(), lambda x: getattr(x, name)().abs().sum(), a)
    m = crandn(4, 2, dtype=torch.complex128, seed=3)
    grads(lambda x, y: (x @ y).abs().pow(2).sum(), lambda x, y: (x @ y).abs().pow(2).sum(), a, m)
    # a real parameter through a complex computation gets a real gradient
    w = torch.randn(3, 4, dtype=torch.float64)
    grads(lambda p, x: (p * x).abs().sum(), lambda p, x: (p * x).abs().sum(), w, a)
