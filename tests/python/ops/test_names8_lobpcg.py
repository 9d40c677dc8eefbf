"""torch.lobpcg (names8): ember's Python LOBPCG against torch 1.13's, same starting block X."""
import numpy as np
import pytest
import torch

import ember


def e(t):
    return ember.from_numpy(t.detach().numpy().copy())


def close(got, want, rtol=1e-7, atol=1e-9):
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol, atol=atol)


def spd(n, seed, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(n, n, generator=g, dtype=dtype)
    return a @ a.T + torch.eye(n, dtype=dtype)


@pytest.mark.parametrize("method", ["basic", "ortho"])
@pytest.mark.parametrize("largest", [True, False])
def test_eigenpairs_match_torch(method, largest):
    A = spd(12, 0)
    X = torch.randn(12, 2, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    E, V = torch.lobpcg(A, k=2, X=X.clone(), method=method, largest=largest)
    eE, eV = ember.lobpcg(e(A), k=2, X=e(X), method=method, largest=largest)
    close(eE, E)
    close(eV.abs(), V.abs(), rtol=1e-6, atol=1e-8)
    want = np.linalg.eigvalsh(A.numpy())
    np.testing.assert_allclose(eE.numpy(), want[::-1][:2] if largest else want[:2], rtol=1e-6)


def test_generalized_problem_preconditioner_and_niter_match_torch():
    A, B = spd(15, 2), spd(15, 3)
    iK = torch.linalg.inv(A)
    X = torch.randn(15, 3, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    for kw in ({"B": B}, {"iK": iK, "largest": False}, {"niter": 3}, {"n": 3, "k": 2, "tol": 1e-4}):
        ekw = {k: (e(v) if isinstance(v, torch.Tensor) else v) for k, v in kw.items()}
        for method in ("basic", "ortho"):
            E, V = torch.lobpcg(A, X=X.clone(), method=method, **kw)
            eE, eV = ember.lobpcg(e(A), X=e(X), method=method, **ekw)
            close(eE, E, rtol=1e-6)
            close(eV.abs(), V.abs(), rtol=1e-5, atol=1e-7)


def test_batched_and_tracker():
    A = torch.stack([spd(9, 5), spd(9, 6)])
    X = torch.randn(2, 9, 1, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
    E, V = torch.lobpcg(A, X=X.clone())
    eE, eV = ember.lobpcg(e(A), X=e(X))
    close(eE, E)
    steps = []
    ember.lobpcg(e(A[0]), X=e(X[0]), tracker=lambda worker: steps.append(worker.ivars["istep"]))
    assert steps and steps == list(range(1, len(steps) + 1))


def test_random_start_float32_default():
    ember.manual_seed(0)
    A = spd(12, 8, torch.float32)
    E, V = ember.lobpcg(e(A), k=1)
    assert E.dtype == ember.float32 and tuple(V.shape) == (12, 1)
    np.testing.assert_allclose(E.numpy(), np.linalg.eigvalsh(A.double().numpy())[-1:], rtol=1e-4)


def test_backward_matches_torch():
    A = spd(10, 9)
    X = torch.randn(10, 2, generator=torch.Generator().manual_seed(10), dtype=torch.float64)
    w = torch.randn(10, 2, generator=torch.Generator().manual_seed(11), dtype=torch.float64)
    tA = A.clone().requires_grad_()
    E, V = torch.lobpcg(tA, k=2, X=X.clone())
    (tg,) = torch.autograd.grad(E.sum() + (V * V * w).sum(), tA)
    eA = e(A).requires_grad_()
    eE, eV = ember.lobpcg(eA, k=2, X=e(X))
    assert type(eE.grad_fn).__name__ == "LOBPCGAutogradFunctionBackward"
    (eg,) = ember.autograd.grad(eE.sum() + (eV * eV * e(w)).sum(), eA)
    close(eg, tg, rtol=1e-5, atol=1e-8)


def test_errors_match_torch():
    A = spd(12, 0)
    with pytest.raises(ValueError) as te:
        torch.lobpcg(A, k=5)
    with pytest.raises(ValueError) as ee:
        ember.lobpcg(e(A), k=5)
    assert str(ee.value) == str(te.value)
    with pytest.raises(ValueError, match="B != I"):
        ember.lobpcg(e(A).requires_grad_(), k=1, B=e(spd(12, 1)), X=ember.randn(12, 1, dtype=ember.float64))[0].sum().backward()


def test_lives_in_its_module_as_torch():
    assert ember.lobpcg.__module__ == torch.lobpcg.__module__.replace("torch", "ember") == "ember._lobpcg"
