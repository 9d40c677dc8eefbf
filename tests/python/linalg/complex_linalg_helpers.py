"""What test_complex_linalg_*.py share: seeded complex inputs of the shapes linalg wants, ember
copies of torch tensors, comparisons with torch 1.13 (dtype, shape, values), and the gradient of
one real loss of an op's outputs computed by both libraries (torch's conjugate Wirtinger
convention: a complex leaf's .grad is dL/dRe + i dL/dIm)."""
import warnings

import numpy as np
import torch

import ember

CDTYPES = [torch.complex64, torch.complex128]


def E(t, requires_grad=False):
    if not isinstance(t, torch.Tensor):
        return t
    e = ember.from_numpy(t.detach().resolve_conj().numpy().copy())
    return e.requires_grad_() if requires_grad else e


def rand(*shape, dtype=torch.complex128, seed=0, kind="general"):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(shape, dtype=torch.complex128, generator=g)
    n = shape[-1]
    eye = torch.eye(n, dtype=torch.complex128)
    if kind == "hpd":  # Hermitian positive definite
        a = a @ a.mH + n * eye
    elif kind == "herm":
        a = a + a.mH
    elif kind == "upper":
        a = a.triu() + n * eye
    elif kind == "lower":
        a = a.tril() + n * eye
    return a.to(dtype)


def close(e, t, tol=None):
    """ember's e against torch's t: same dtype, shape, and values within tol x the largest
    magnitude (tuples compared item by item)."""
    if isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            close(a, b, tol)
        return
    t = t.resolve_conj()
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1], (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    single = t.dtype in (torch.float32, torch.complex64)
    tol = tol or (1e-4 if single else 1e-10)
    scale = max(1.0, float(t.abs().max()) if t.numel() else 1.0)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=0, atol=tol * scale)


def _flat(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _loss(lib, outs, cots):
    total = None
    for o, c in zip(outs, cots):
        if c is None:
            continue
        term = (o * c).real.sum() if o.is_complex() else (o * c).sum()
        total = term if total is None else total + term
    return total


def grads_match(fn_t, fn_e, inputs, tol=1e-8, seed=7):
    """The gradients of L = sum Re(c * out) over fn's outputs, for every input, equal torch's."""
    ti = [x.detach().clone().requires_grad_() if isinstance(x, torch.Tensor) else x for x in inputs]
    ei = [E(x, True) if isinstance(x, torch.Tensor) else x for x in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        to = _flat(fn_t(*ti))
        eo = _flat(fn_e(*ei))
    g = torch.Generator().manual_seed(seed)
    cots = [torch.randn(o.shape, dtype=o.dtype, generator=g)
            if o.dtype.is_floating_point or o.dtype.is_complex else None for o in to]
    tg = torch.autograd.grad(_loss(torch, to, cots), [x for x in ti if isinstance(x, torch.Tensor)],
                             allow_unused=True)
    eg = ember.autograd.grad(_loss(ember, eo, [E(c) for c in cots]),
                             [x for x in ei if isinstance(x, ember.Tensor)], allow_unused=True)
    assert len(tg) == len(eg)
    for a, b in zip(eg, tg):
        if b is None:
            assert a is None
            continue
        close(a, b, tol)


def error_of(f):
    """(exception type name, first line of the text) of f(), or None when it returns."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).split("\n")[0]
    return None


def same_error(fe, ft):
    t, e = error_of(ft), error_of(fe)
    assert t is not None, "torch did not raise"
    assert e is not None, f"ember did not raise; torch raised {t}"
    assert e == (t[0], t[1].replace("torch.", "ember.")), (e, t)
