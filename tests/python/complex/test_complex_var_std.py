"""var / std / var_mean / std_mean of complex tensors: a real result, E|x - mean|^2, as torch 1.13."""
import numpy as np
import pytest
import torch

import ember


@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("kwargs", [{}, {"dim": 1}, {"dim": 0, "keepdim": True, "correction": 0},
                                    {"dim": (0, 1), "correction": 2}])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_values_and_dtypes_match_torch(fn, kwargs, dtype):
    t = torch.randn(4, 5, dtype=getattr(torch, dtype), generator=torch.Generator().manual_seed(1))
    e = ember.from_numpy(t.numpy().copy())
    want = getattr(torch, fn)(t, **kwargs)
    got = getattr(ember, fn)(e, **kwargs)
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    for w, g in zip(want, got):
        assert str(g.dtype).split(".")[1] == str(w.dtype).split(".")[1]
        tol = 1e-5 if dtype == "complex64" else 1e-12
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("fn", ["var", "std"])
def test_gradient_matches_torch(fn):
    t = torch.randn(3, 6, dtype=torch.complex128, generator=torch.Generator().manual_seed(2))
    e = ember.from_numpy(t.numpy().copy())
    tt, ee = t.clone().requires_grad_(), e.clone().requires_grad_()
    (getattr(torch, fn)(tt, dim=1) * torch.arange(3.0, dtype=torch.float64)).sum().backward()
    (getattr(ember, fn)(ee, dim=1) * ember.arange(3.0, dtype=ember.float64)).sum().backward()
    assert ee.grad.dtype == ember.complex128
    np.testing.assert_allclose(ee.grad.numpy(), tt.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_integer_input_is_refused_with_torchs_text():
    with pytest.raises(RuntimeError, match="^std and var only support floating point and complex dtypes$"):
        ember.var(ember.tensor([1, 2]))
