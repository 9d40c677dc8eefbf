"""The complex side of everyday ops against torch 1.13: cumsum / cumprod (values, dims, dtype=,
gradients), reductions over dims, log2 / log10, pow, and the ops torch 1.13 itself refuses on
complex (log1p, expm1, exp2, ...), which must raise torch's text."""
import pytest
import torch

import ember
from complex2_helpers import E, error_of
from complex2_helpers import close as _close
from complex2_helpers import rand as _rand


def close(e, t, tol=None):
    _close(e, t, tol, single_tol=1e-5, double_tol=1e-12)


def rand(*shape, dtype=torch.complex128, seed=0):
    return _rand(*shape, dtype=dtype, seed=seed)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scans(name, dtype):
    for shape, dim in [((7,), 0), ((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -2), ((), 0), ((0, 3), 1)]:
        t = rand(*shape, dtype=dtype) * 0.9
        close(getattr(ember, name)(E(t), dim), getattr(torch, name)(t, dim))
        close(getattr(E(t), name)(dim), getattr(t, name)(dim))
    t = rand(4, 6, dtype=dtype)
    close(getattr(ember, name)(E(t).t(), 1), getattr(torch, name)(t.t(), 1))
    close(getattr(ember, name)(E(t), 1, dtype=ember.complex128), getattr(torch, name)(t, 1, dtype=torch.complex128))
    r = torch.randn(3, 4)
    close(getattr(ember, name)(E(r), 1, dtype=ember.complex64), getattr(torch, name)(r, 1, dtype=torch.complex64))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_gradients(name):
    t = rand(3, 5, seed=1)
    tt = t.clone().requires_grad_()
    getattr(torch, name)(tt, 1).abs().sum().backward()
    te = E(t, True)
    getattr(ember, name)(te, 1).abs().sum().backward()
    close(te.grad, tt.grad, 1e-10)
    assert ember.autograd.gradcheck(lambda x: getattr(ember, name)(x, 0), (E(rand(4, 2, seed=2), True),))


def test_reductions_and_pointwise():
    t = rand(3, 4, 5, seed=3)
    for f in [lambda lib, x: x.sum(1), lambda lib, x: x.mean((0, 2)), lambda lib, x: x.prod(2),
              lambda lib, x: x.sum(-1, keepdim=True), lambda lib, x: lib.log2(x), lambda lib, x: lib.log10(x),
              lambda lib, x: x ** 2.5, lambda lib, x: x ** (1 + 1j), lambda lib, x: lib.pow(x, x),
              lambda lib, x: 2 ** x, lambda lib, x: lib.reciprocal(x), lambda lib, x: lib.square(x)]:
        close(f(ember, E(t)), f(torch, t))


@pytest.mark.parametrize("name", ["log1p", "expm1", "exp2", "logcumsumexp", "cummax", "erf", "nan_to_num"])
def test_what_torch_refuses_on_complex(name):
    t = rand(4, dtype=torch.complex64)
    args = (0,) if name in ("logcumsumexp", "cummax") else ()
    te = error_of(lambda: getattr(torch, name)(t, *args))
    ee = error_of(lambda: getattr(ember, name)(E(t), *args))
    assert te is not None and ee == te, (te, ee)


def test_complex_constructor_gradient():
    re, im = torch.randn(3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)
    rt, it = re.clone().requires_grad_(), im.clone().requires_grad_()
    (torch.complex(rt, it) ** 2).abs().sum().backward()
    ree, ime = E(re, True), E(im, True)
    (ember.complex(ree, ime) ** 2).abs().sum().backward()
    close(ree.grad, rt.grad)
    close(ime.grad, it.grad)


@pytest.mark.parametrize("name", ["acos", "asin", "atan", "acosh", "asinh", "atanh", "cosh", "sinh", "tan", "log10",
                                  "log2", "sinc", "reciprocal"])
def test_complex_math_functions_and_gradients(name):
    t = rand(3, 4, seed=4) * 0.7
    close(getattr(ember, name)(E(t)), getattr(torch, name)(t))
    close(getattr(E(t), name)(), getattr(t, name)())
    e_in, t_in = E(t), t.clone()
    getattr(e_in, name + "_")()
    getattr(t_in, name + "_")()
    close(e_in, t_in)
    tt = t.clone().requires_grad_()
    getattr(torch, name)(tt).abs().sum().backward()
    te = E(t, True)
    getattr(ember, name)(te).abs().sum().backward()
    close(te.grad, tt.grad, 1e-9)
    assert type(getattr(ember, name)(E(t, True)).grad_fn).__name__ == type(getattr(torch, name)(t.clone().requires_grad_()).grad_fn).__name__


def test_complex_eye():
    for dtype in [torch.complex64, torch.complex128]:
        close(ember.eye(3, 4, dtype=getattr(ember, str(dtype).split(".")[1])), torch.eye(3, 4, dtype=dtype))
        close(ember.eye(2, dtype=getattr(ember, str(dtype).split(".")[1])), torch.eye(2, dtype=dtype))
