"""Gradients of ember.linalg on complex128 against torch 1.13 (the same real loss of the outputs
differentiated by both libraries: torch's conjugate Wirtinger convention) and ember's gradcheck:
svd (gauge-invariant losses, and the phase check's text), qr (tall, square, wide), cholesky,
slogdet (sign and log|det|), logdet, det at a singular matrix, lstsq, pinv, solve_triangular,
lu_factor / lu_solve, cholesky_solve / cholesky_inverse, matrix_exp, householder_product, the
norms, eigvalsh and vecdot."""
import math

import pytest
import torch

import ember
from complex_linalg_helpers import E, error_of, grads_match, rand

SHAPES = [(4, 4), (5, 3), (3, 5)]


def svd_invariants(lib):
    # U Vh, |U|, |Vh| and S do not depend on the singular vectors' phases.
    def f(A):
        U, S, Vh = lib.linalg.svd(A, full_matrices=False)
        return S, U @ Vh, U.abs(), Vh.abs()
    return f


@pytest.mark.parametrize("shape", SHAPES + [(2, 3, 3)])
def test_svd(shape):
    A = rand(*shape, seed=1)
    grads_match(svd_invariants(torch), svd_invariants(ember), [A])
    grads_match(torch.linalg.svdvals, ember.linalg.svdvals, [A])
    grads_match(lambda a: torch.svd(a)[1], lambda a: ember.svd(a)[1], [A])
    assert ember.autograd.gradcheck(lambda a: svd_invariants(ember)(a)[1], (E(A, True),))


def test_svd_phase_dependent_loss_refused():
    A = rand(3, 3, seed=2)
    t = error_of(lambda: torch.linalg.svd(A.requires_grad_())[0].sum().real.backward())
    Ae = E(A, True)
    e = error_of(lambda: ember.linalg.svd(Ae)[0].sum().real.backward())
    assert t is not None and e == t, (e, t)


@pytest.mark.parametrize("shape", SHAPES + [(2, 4, 3)])
def test_qr(shape):
    A = rand(*shape, seed=3)
    grads_match(torch.linalg.qr, ember.linalg.qr, [A])
    assert ember.autograd.gradcheck(lambda a: ember.linalg.qr(a), (E(A, True),))
    if shape[-2] <= shape[-1]:
        grads_match(lambda a: torch.linalg.qr(a, "complete"), lambda a: ember.linalg.qr(a, "complete"), [A])


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(upper):
    A = rand(2, 4, 4, seed=4, kind="hpd")
    # through a Hermitian part, as torch's own gradcheck of cholesky
    def f(lib):
        return lambda a: lib.linalg.cholesky(a @ a.mH + 4 * lib.eye(4, dtype=a.dtype), upper=upper)
    grads_match(f(torch), f(ember), [A])
    grads_match(lambda a: torch.linalg.cholesky(a, upper=upper), lambda a: ember.linalg.cholesky(a, upper=upper), [A])
    assert ember.autograd.gradcheck(f(ember), (E(A[0], True),))
    L = torch.linalg.cholesky(A, upper=upper)
    B = rand(2, 4, 2, seed=5)
    grads_match(lambda b, l: torch.cholesky_solve(b, l, upper=upper),
                lambda b, l: ember.cholesky_solve(b, l, upper=upper), [B, L])
    grads_match(lambda l: torch.cholesky_inverse(l, upper=upper),
                lambda l: ember.cholesky_inverse(l, upper=upper), [L[0]])


def test_slogdet_logdet_det():
    A = rand(2, 4, 4, seed=6)
    grads_match(torch.linalg.slogdet, ember.linalg.slogdet, [A])  # the sign's gradient too
    grads_match(lambda a: torch.linalg.slogdet(a)[0], lambda a: ember.linalg.slogdet(a)[0], [A])
    grads_match(lambda a: torch.linalg.slogdet(a)[1], lambda a: ember.linalg.slogdet(a)[1], [A])
    grads_match(torch.logdet, ember.logdet, [A])
    assert ember.autograd.gradcheck(lambda a: ember.linalg.slogdet(a), (E(A[0], True),))
    # det at a singular complex matrix goes through the complex SVD
    S = rand(3, 3, seed=7)
    S[2] = S[0] + 2j * S[1]
    grads_match(torch.linalg.det, ember.linalg.det, [S], tol=1e-6)


@pytest.mark.parametrize("shape", [(5, 3), (4, 4)])
def test_lstsq_pinv(shape):
    A, B = rand(*shape, seed=8), rand(shape[0], 2, seed=9)
    grads_match(lambda a, b: torch.linalg.lstsq(a, b).solution, lambda a, b: ember.linalg.lstsq(a, b).solution, [A, B])
    grads_match(torch.linalg.pinv, ember.linalg.pinv, [A])
    H = rand(4, 4, seed=10, kind="hpd")
    grads_match(lambda a: torch.linalg.pinv(a, hermitian=True), lambda a: ember.linalg.pinv(a, hermitian=True), [H])
    assert ember.autograd.gradcheck(ember.linalg.pinv, (E(A, True),))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("upper", [True, False])
def test_solve_triangular(left, upper):
    A = rand(4, 4, seed=11, kind="upper" if upper else "lower")
    B = rand(4, 3, seed=12) if left else rand(3, 4, seed=12)
    for unit in (False, True):
        grads_match(lambda a, b: torch.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit),
                    lambda a, b: ember.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit), [A, B])


def test_lu():
    A, B = rand(2, 4, 4, seed=13), rand(2, 4, 3, seed=14)
    grads_match(torch.linalg.lu_factor, ember.linalg.lu_factor, [A])
    grads_match(lambda a: torch.linalg.lu(a)[1:], lambda a: ember.linalg.lu(a)[1:], [A])
    LU, piv = torch.linalg.lu_factor(A)
    for adjoint in (False, True):
        for left in (True, False):
            rhs = B if left else B.mT.contiguous()
            grads_match(lambda b: torch.linalg.lu_solve(LU, piv, b, left=left, adjoint=adjoint),
                        lambda b: ember.linalg.lu_solve(E(LU), E(piv), b, left=left, adjoint=adjoint), [rhs])


def test_matrix_functions():
    A = rand(2, 3, 3, seed=15) / 2
    grads_match(torch.linalg.matrix_exp, ember.linalg.matrix_exp, [A])
    grads_match(lambda a: torch.linalg.matrix_power(a, -2), lambda a: ember.linalg.matrix_power(a, -2), [A])
    V, tau = rand(5, 3, seed=16), rand(2, seed=17)
    grads_match(torch.linalg.householder_product, ember.linalg.householder_product, [V, tau])
    H = rand(4, 4, seed=18, kind="herm")
    grads_match(torch.linalg.eigvalsh, ember.linalg.eigvalsh, [H])
    x, y = rand(3, 4, seed=19), rand(3, 4, seed=20)
    grads_match(torch.linalg.vecdot, ember.linalg.vecdot, [x, y])


def test_norms():
    A = rand(2, 3, 4, seed=21)
    for ord in [2, 1, 3, 0.5, math.inf, -math.inf]:
        grads_match(lambda a: torch.linalg.vector_norm(a, ord), lambda a: ember.linalg.vector_norm(a, ord), [A])
        grads_match(lambda a: torch.linalg.vector_norm(a, ord, dim=-1), lambda a: ember.linalg.vector_norm(a, ord, dim=-1), [A])
    for ord in ["fro", "nuc", 2, -2, 1, math.inf]:
        grads_match(lambda a: torch.linalg.matrix_norm(a, ord), lambda a: ember.linalg.matrix_norm(a, ord), [A])
    grads_match(lambda a: torch.norm(a, p=3), lambda a: ember.norm(a, p=3), [A])
    grads_match(lambda a: torch.linalg.cond(a[:, :, :3]), lambda a: ember.linalg.cond(a[:, :, :3]), [A], tol=1e-7)
    assert ember.autograd.gradcheck(lambda a: ember.linalg.vector_norm(a, 3), (E(A, True),))


@pytest.mark.parametrize("complex_input", [False, True])
def test_own_backward_nodes(complex_input):
    """cholesky_solve, cholesky_inverse and pinv have torch's own rules (and node names): their
    gradients treat the factor / the matrix as full, also on real input and for hermitian pinv."""
    A = rand(4, 4, seed=22, kind="hpd")
    A = A if complex_input else A.real.contiguous()
    L = torch.linalg.cholesky(A)
    B = rand(4, 2, seed=23)
    B = B if complex_input else B.real.contiguous()
    for upper in (False, True):
        Lu = L.mH.contiguous() if upper else L
        grads_match(lambda b, l: torch.cholesky_solve(b, l, upper=upper),
                    lambda b, l: ember.cholesky_solve(b, l, upper=upper), [B, Lu])
        grads_match(lambda l: torch.cholesky_inverse(l, upper=upper),
                    lambda l: ember.cholesky_inverse(l, upper=upper), [Lu])
    for hermitian in (False, True):
        grads_match(lambda a: torch.linalg.pinv(a, hermitian=hermitian),
                    lambda a: ember.linalg.pinv(a, hermitian=hermitian), [A])
        grads_match(lambda a: torch.linalg.pinv(a, rtol=0.1, hermitian=hermitian),
                    lambda a: ember.linalg.pinv(a, rtol=0.1, hermitian=hermitian), [A])
    grads_match(lambda a: torch.pinverse(a), lambda a: ember.pinverse(a), [A[:, :3]])
    Le, Be, Ae = E(L, True), E(B, True), E(A, True)
    assert type(ember.cholesky_solve(Be, Le).grad_fn).__name__ == "CholeskySolveBackward0"
    assert type(ember.cholesky_inverse(Le).grad_fn).__name__ == "CholeskyInverseBackward0"
    for out in (ember.linalg.pinv(Ae), ember.linalg.pinv(Ae, hermitian=True), ember.pinverse(Ae),
                ember.linalg.pinv(Ae, atol=0.1)):
        assert type(out.grad_fn).__name__ == "LinalgPinvBackward0"


def test_double_backward():
    # the complex rules are written with ember ops, so they differentiate again
    A = E(rand(3, 3, seed=24), True)
    gg = ember.autograd.gradgradcheck
    assert gg(lambda a: ember.linalg.slogdet(a), (A,))
    assert gg(lambda a: ember.linalg.qr(a)[1], (A,))
    assert gg(ember.linalg.pinv, (A,))
    assert gg(ember.linalg.svdvals, (A,))
    assert gg(ember.linalg.matrix_exp, (A,))
    assert gg(lambda a: ember.linalg.vector_norm(a, 3), (A,))
    assert gg(lambda a: ember.linalg.cholesky(a @ a.mH + 3 * ember.eye(3, dtype=a.dtype)), (A,))
    x, w = E(rand(1, 2, 5, seed=25), True), E(rand(3, 2, 2, seed=26), True)
    assert gg(lambda x, w: ember.nn.functional.conv1d(x, w, padding=1), (x, w))
