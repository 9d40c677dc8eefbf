"""Shared helpers of the ember.linalg tests: conversions and same-call comparisons with torch."""
import numpy as np
import torch

import ember


def to_ember(x):
    if isinstance(x, torch.Tensor):
        t = ember.from_numpy(x.detach().numpy().copy())
        return t.requires_grad_() if x.requires_grad else t
    if isinstance(x, (list, tuple)):
        return type(x)(to_ember(v) for v in x)
    if isinstance(x, torch.dtype):
        return getattr(ember, str(x).split(".")[1])
    return x


def to_numpy(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def assert_close(e, t, rtol=None, atol=None):
    """ember result `e` equals torch result `t` (tensors, or tuples of them) in shape, dtype, values."""
    if isinstance(t, tuple):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            assert_close(a, b, rtol, atol)
        return
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1], (e.dtype, t.dtype)
    single = t.dtype == torch.float32
    if rtol is None:
        rtol = 1e-4 if single else 1e-9
    if atol is None:
        atol = 1e-4 if single else 1e-9
    np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=rtol, atol=atol)


def random_matrix(shape, dtype=torch.float64, seed=0, kind="general"):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(shape, generator=g, dtype=torch.float64)
    n = shape[-1]
    if kind == "spd":
        a = a @ a.mT + n * torch.eye(n, dtype=torch.float64)
    elif kind == "sym":
        a = a + a.mT
    elif kind == "wellcond":
        a = a + n * torch.eye(n, dtype=torch.float64)
    elif kind == "upper":
        a = a.triu() + n * torch.eye(n, dtype=torch.float64)
    elif kind == "lower":
        a = a.tril() + n * torch.eye(n, dtype=torch.float64)
    return a.to(dtype)


def same_error(call_e, call_t):
    """Both calls raise; the ember message is torch's with ember. for torch. and the same kind."""
    try:
        call_t()
    except Exception as te:  # noqa: BLE001 - the oracle's exception, whatever it is
        terr = te
    else:
        raise AssertionError("torch did not raise")
    try:
        call_e()
    except Exception as ee:  # noqa: BLE001
        eerr = ee
    else:
        raise AssertionError(f"ember did not raise; torch raised {terr!r}")
    tmsg = str(terr).split("\n")[0].replace("torch.", "ember.")
    assert str(eerr).split("\n")[0] == tmsg, (str(eerr), tmsg)
    assert type(eerr).__name__ == type(terr).__name__, (type(eerr), type(terr))
    for base in (RuntimeError, TypeError, ValueError, IndexError):
        assert isinstance(eerr, base) == isinstance(terr, base)
