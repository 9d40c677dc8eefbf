"""What the test_complex2_*.py files share: torch tensors to ember, comparison with torch's
result (dtype, shape, values within a tolerance scaled by the largest magnitude), seeded random
inputs, and the outcome of a call that may raise."""
import warnings

import numpy as np
import torch

import ember


def E(t, requires_grad=False):
    e = ember.from_numpy(t.detach().resolve_conj().numpy().copy())
    return e.requires_grad_() if requires_grad else e


def close(e, t, tol=None, single_tol=2e-5, double_tol=1e-11):
    """ember's e against torch's t (None: both None)."""
    if t is None:
        assert e is None
        return
    t = t.resolve_conj()
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1], (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    single = t.dtype in (torch.float32, torch.complex64)
    tol = tol or (single_tol if single else double_tol)
    scale = max(1.0, float(t.abs().max()) if t.numel() else 1.0)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=0, atol=tol * scale)


def rand(*shape, dtype=torch.float64, seed=0):
    return torch.randn(shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))


def error_of(f):
    """(exception type name, text) of f(), or None when it returns."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None
