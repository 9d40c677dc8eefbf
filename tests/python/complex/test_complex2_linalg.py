"""linalg on complex matrices against torch 1.13: linalg.eig / eigvals (real and complex input,
batches, error texts, LinalgEigBackward0), and inv / det / solve on complex64 / complex128 with
their gradients (torch's conjugate Wirtinger convention)."""
import numpy as np
import pytest
import torch

import ember
from complex2_helpers import E, error_of, rand
from complex2_helpers import close as _close


def close(e, t, tol=None):
    _close(e, t, tol, single_tol=1e-4, double_tol=1e-10)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64, torch.complex128])
def test_eig_values_and_vectors(dtype):
    for shape in [(1, 1), (4, 4), (2, 3, 5, 5)]:
        A = rand(*shape, dtype=dtype, seed=shape[-1])
        Lt, Vt = torch.linalg.eig(A)
        Le, Ve = ember.linalg.eig(E(A))
        # LAPACK's own results: the same routine and ordering, so the same numbers.
        close(Le, Lt)
        close(Ve, Vt)
        close(ember.linalg.eigvals(E(A)), torch.linalg.eigvals(A))
        # The defining relation, A V = V diag(L).
        lhs = ember.matmul(E(A).to(Ve.dtype), Ve)
        rhs = Ve * Le.unsqueeze(-2)
        np.testing.assert_allclose(lhs.numpy(), rhs.numpy(), atol=1e-3 if dtype in (torch.float32, torch.complex64) else 1e-9)


def test_eig_rotation_has_complex_pair():
    A = torch.tensor([[0.0, 1.0], [-1.0, 0.0]])
    L, V = ember.linalg.eig(E(A))
    assert L.dtype == ember.complex64 and V.dtype == ember.complex64
    close(L, torch.linalg.eig(A)[0])
    close(V, torch.linalg.eig(A)[1])
    assert repr(ember.linalg.eig(E(A))).startswith("ember.return_types.linalg_eig(\neigenvalues=tensor(")


def test_eig_errors():
    for args in [(torch.ones(2, 3),), (torch.ones(3),), (torch.ones(3, 3, dtype=torch.long),),
                 (torch.full((3, 3), float("nan")),)]:
        # (torch 1.13's eigvals of a NaN matrix trips an internal assert: eig's text is the one)
        for name in ["eig", "eigvals"] if not args[0].isnan().any() else ["eig"]:
            t = error_of(lambda: getattr(torch.linalg, name)(*args))
            e = error_of(lambda: getattr(ember.linalg, name)(*[E(a) for a in args]))
            assert t is not None and e is not None
            assert e[0] == t[0] and e[1] == t[1].replace("torch.", "ember."), (t, e)


def test_eig_empty_and_meta():
    L, V = ember.linalg.eig(ember.ones(0, 0))
    assert tuple(L.shape) == (0,) and tuple(V.shape) == (0, 0) and L.dtype == ember.complex64
    L, V = ember.linalg.eig(ember.empty(2, 4, 4, device="meta", dtype=ember.float64))
    assert tuple(L.shape) == (2, 4) and L.dtype == ember.complex128 and V.is_meta


def _eig_loss(lib, A):
    L, V = lib.linalg.eig(A)
    # Invariant under the phase of each eigenvector: |V| and the eigenvalues.
    return V.abs().sum() + (L * L).real.sum() + L.imag.sum()


@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128])
def test_eig_backward_matches_torch(dtype):
    A = rand(2, 4, 4, dtype=dtype, seed=3)
    At = A.clone().requires_grad_()
    _eig_loss(torch, At).backward()
    Ae = E(A, True)
    out = ember.linalg.eig(Ae)
    assert type(out[0].grad_fn).__name__ == "LinalgEigBackward0"
    _eig_loss(ember, Ae).backward()
    close(Ae.grad, At.grad, 1e-8)
    # eigvals alone (the values-only shortcut of the backward)
    At.grad = None
    Ae.grad = None
    (torch.linalg.eigvals(At) ** 2).real.sum().backward()
    (ember.linalg.eigvals(Ae) ** 2).real.sum().backward()
    close(Ae.grad, At.grad, 1e-8)


def test_eig_backward_phase_dependent_loss_is_refused():
    A = rand(3, 3, dtype=torch.complex128)
    At = A.clone().requires_grad_()
    t = error_of(lambda: torch.linalg.eig(At)[1].real.sum().backward())
    Ae = E(A, True)
    e = error_of(lambda: ember.linalg.eig(Ae)[1].real.sum().backward())
    assert t is not None and e is not None and e[1] == t[1], (t, e)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_inv_det_solve(dtype):
    A = rand(3, 4, 4, dtype=dtype, seed=5) + 2 * torch.eye(4, dtype=dtype)
    B = rand(3, 4, 2, dtype=dtype, seed=6)
    close(ember.linalg.inv(E(A)), torch.linalg.inv(A))
    close(ember.inverse(E(A)), torch.inverse(A))
    close(ember.linalg.det(E(A)), torch.linalg.det(A))
    close(ember.det(E(A)), torch.det(A))
    close(ember.linalg.solve(E(A), E(B)), torch.linalg.solve(A, B))
    close(ember.linalg.solve(E(A), E(B[..., 0])), torch.linalg.solve(A, B[..., 0]))
    close(ember.linalg.solve(E(A), E(B.mT), left=False), torch.linalg.solve(A, B.mT, left=False))
    close(ember.linalg.solve(E(A).mT, E(B)), torch.linalg.solve(A.mT, B))


def test_complex_inv_det_solve_gradients():
    A = rand(2, 3, 3, dtype=torch.complex128, seed=7) + 2 * torch.eye(3, dtype=torch.complex128)
    B = rand(2, 3, 2, dtype=torch.complex128, seed=8)
    fns = [
        lambda lib, a, b: lib.linalg.inv(a).abs().sum(),
        lambda lib, a, b: lib.linalg.det(a).abs().sum() + lib.linalg.det(a).real.sum(),
        lambda lib, a, b: (lib.linalg.solve(a, b) * b.conj()).real.sum(),
        lambda lib, a, b: lib.linalg.solve(a, b, left=False if b.shape[-1] == a.shape[-1] else True).abs().sum(),
    ]
    for f in fns:
        at, bt = A.clone().requires_grad_(), B.clone().requires_grad_()
        f(torch, at, bt).backward()
        ae, be = E(A, True), E(B, True)
        f(ember, ae, be).backward()
        close(ae.grad, at.grad, 1e-9)
        close(be.grad, bt.grad, 1e-9)
    assert ember.autograd.gradcheck(lambda a: ember.linalg.inv(a), (E(A[0], True),))
    assert ember.autograd.gradcheck(lambda a, b: ember.linalg.solve(a, b), (E(A, True), E(B, True)))


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_eigh(dtype):
    X = rand(2, 4, 4, dtype=dtype, seed=9)
    A = X + X.mH
    for uplo in ["L", "U"]:
        Lt, Vt = torch.linalg.eigh(A, UPLO=uplo)
        Le, Ve = ember.linalg.eigh(E(A), UPLO=uplo)
        close(Le, Lt)
        close(Ve, Vt)  # the same LAPACK routine: the same phases
        close(ember.linalg.eigvalsh(E(A), UPLO=uplo), torch.linalg.eigvalsh(A, UPLO=uplo))
    if dtype == torch.complex128:
        At = A.clone().requires_grad_()
        L, V = torch.linalg.eigh(At)
        (V.abs().sum() + L.sum()).backward()
        Ae = E(A, True)
        L, V = ember.linalg.eigh(Ae)
        (V.abs().sum() + L.sum()).backward()
        close(Ae.grad, At.grad, 1e-8)
        At.grad, Ae.grad = None, None
        (torch.linalg.eigvalsh(At) ** 2).sum().backward()
        (ember.linalg.eigvalsh(Ae) ** 2).sum().backward()
        close(Ae.grad, At.grad, 1e-8)
