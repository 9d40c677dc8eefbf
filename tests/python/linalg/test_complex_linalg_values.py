"""ember.linalg on complex64 / complex128 against torch 1.13: the decompositions (svd, qr,
cholesky, lu), the solvers (lstsq with each CPU driver, lu_solve, solve_triangular,
cholesky_solve), slogdet / logdet, pinv / matrix_rank, the norms and cond, matrix_power /
matrix_exp, householder_product / geqrf / ormqr, vecdot; dtypes of the results (real singular
values, norms and log|det|), and error texts. ember and torch call the same LAPACK routines, so
even the singular vectors' phases agree."""
import math
import warnings

import pytest
import torch

import ember
from complex_linalg_helpers import CDTYPES, E, close, rand, same_error

SHAPES = [(4, 4), (5, 3), (3, 5), (2, 4, 3)]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_svd(dtype, shape):
    A = rand(*shape, dtype=dtype)
    for full in (True, False):
        U, S, Vh = ember.linalg.svd(E(A), full_matrices=full)
        Ut, St, Vht = torch.linalg.svd(A, full_matrices=full)
        close((U, S, Vh), (Ut, St, Vht))
    assert S.dtype == (ember.float32 if dtype == torch.complex64 else ember.float64)
    close(ember.linalg.svdvals(E(A)), torch.linalg.svdvals(A))
    for some in (True, False):
        close(ember.svd(E(A), some=some), torch.svd(A, some=some))
    # compute_uv=False: zero U and V of the input's complex dtype
    close(ember.svd(E(A), compute_uv=False), torch.svd(A, compute_uv=False))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_qr(dtype, shape):
    A = rand(*shape, dtype=dtype, seed=1)
    for mode in ("reduced", "complete", "r"):
        close(ember.linalg.qr(E(A), mode=mode), torch.linalg.qr(A, mode=mode))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(ember.qr(E(A), some=False), torch.qr(A, some=False))
    close(ember.geqrf(E(A)), torch.geqrf(A))
    a, tau = torch.geqrf(A)
    close(ember.linalg.householder_product(E(a), E(tau)), torch.linalg.householder_product(a, tau)) \
        if shape[-2] >= shape[-1] else None


@pytest.mark.parametrize("dtype", CDTYPES)
def test_householder_ormqr(dtype):
    A = rand(5, 3, dtype=dtype, seed=2)
    tau = rand(2, dtype=dtype, seed=3)
    close(ember.linalg.householder_product(E(A), E(tau)), torch.linalg.householder_product(A, tau))
    close(ember.orgqr(E(A), E(tau)), torch.orgqr(A, tau))
    a, t = torch.geqrf(A)
    C = rand(5, 2, dtype=dtype, seed=4)
    for left in (True, False):
        for transpose in (True, False):
            c = C if left else C.mT.contiguous()
            c = rand(*(5, 2) if left else (2, 5), dtype=dtype, seed=4)
            close(ember.ormqr(E(a), E(t), E(c), left=left, transpose=transpose),
                  torch.ormqr(a, t, c, left=left, transpose=transpose))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_cholesky_family(dtype):
    A = rand(2, 4, 4, dtype=dtype, kind="hpd")
    B = rand(2, 4, 3, dtype=dtype, seed=5)
    for upper in (False, True):
        L = torch.linalg.cholesky(A, upper=upper)
        close(ember.linalg.cholesky(E(A), upper=upper), L)
        close(ember.linalg.cholesky_ex(E(A), upper=upper), torch.linalg.cholesky_ex(A, upper=upper))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            close(ember.cholesky(E(A), upper=upper), torch.cholesky(A, upper=upper))
        close(ember.cholesky_solve(E(B), E(L), upper=upper), torch.cholesky_solve(B, L, upper=upper))
        close(ember.cholesky_inverse(E(L[0]), upper=upper), torch.cholesky_inverse(L[0], upper=upper))
    # not positive-definite: the same LinAlgError text, and info where check_errors=False
    N = -A
    same_error(lambda: ember.linalg.cholesky(E(N)), lambda: torch.linalg.cholesky(N))
    close(ember.linalg.cholesky_ex(E(N))[1], torch.linalg.cholesky_ex(N)[1])


@pytest.mark.parametrize("dtype", CDTYPES)
def test_slogdet_logdet(dtype):
    A = rand(3, 4, 4, dtype=dtype, seed=6)
    sign, logabs = ember.linalg.slogdet(E(A))
    close((sign, logabs), torch.linalg.slogdet(A))
    assert sign.dtype == E(A).dtype and logabs.dtype == (ember.float32 if dtype == torch.complex64 else ember.float64)
    close(ember.slogdet(E(A)), torch.slogdet(A))
    close(ember.logdet(E(A)), torch.logdet(A))
    # singular: sign 0, log|det| -inf
    S = torch.zeros(3, 3, dtype=dtype)
    s, l = ember.linalg.slogdet(E(S))
    assert s.item() == 0 and l.item() == -math.inf
    close(ember.linalg.slogdet(E(S)), torch.linalg.slogdet(S))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss", None])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_lstsq(dtype, driver, shape):
    if driver == "gels" and shape[-2] < shape[-1]:
        shape = shape[:-2] + (shape[-1], shape[-2])
    A = rand(*shape, dtype=dtype, seed=7)
    B = rand(*shape[:-1], 2, dtype=dtype, seed=8)
    close(ember.linalg.lstsq(E(A), E(B), driver=driver), torch.linalg.lstsq(A, B, driver=driver))
    # a vector right-hand side
    b = rand(*shape[:-1], dtype=dtype, seed=9)
    close(ember.linalg.lstsq(E(A), E(b), driver=driver), torch.linalg.lstsq(A, b, driver=driver))


def test_lstsq_errors():
    A = rand(4, 3)
    same_error(lambda: ember.linalg.lstsq(E(A), E(A.real)), lambda: torch.linalg.lstsq(A, A.real))
    same_error(lambda: ember.linalg.lstsq(E(A), E(A), driver="bad"), lambda: torch.linalg.lstsq(A, A, driver="bad"))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_pinv_matrix_rank(dtype):
    A = rand(2, 5, 3, dtype=dtype, seed=10)
    H = rand(2, 4, 4, dtype=dtype, seed=11, kind="herm")
    close(ember.linalg.pinv(E(A)), torch.linalg.pinv(A))
    close(ember.linalg.pinv(E(H), hermitian=True), torch.linalg.pinv(H, hermitian=True))
    close(ember.pinverse(E(A)), torch.pinverse(A))
    close(ember.linalg.pinv(E(A), rtol=0.5), torch.linalg.pinv(A, rtol=0.5))
    close(ember.linalg.matrix_rank(E(A)), torch.linalg.matrix_rank(A))
    close(ember.linalg.matrix_rank(E(H), hermitian=True), torch.linalg.matrix_rank(H, hermitian=True))
    low = A[..., :1] @ A[..., :1, :].mH.mH  # rank one
    low = A[..., :, :1] @ A[..., :1, :]
    close(ember.linalg.matrix_rank(E(low)), torch.linalg.matrix_rank(low))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_norms(dtype):
    A = rand(2, 3, 4, dtype=dtype, seed=12)
    for ord in ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]:
        close(ember.linalg.matrix_norm(E(A), ord), torch.linalg.matrix_norm(A, ord))
        close(ember.linalg.matrix_norm(E(A), ord, dim=(0, 2), keepdim=True),
              torch.linalg.matrix_norm(A, ord, dim=(0, 2), keepdim=True))
        close(ember.linalg.norm(E(A[0]), ord), torch.linalg.norm(A[0], ord))
    for ord in [2, 1, 0, 3, 0.5, math.inf, -math.inf]:
        close(ember.linalg.vector_norm(E(A), ord), torch.linalg.vector_norm(A, ord))
        close(ember.linalg.vector_norm(E(A), ord, dim=(1, 2)), torch.linalg.vector_norm(A, ord, dim=(1, 2)))
    close(ember.linalg.vector_norm(E(A), dtype=ember.complex128), torch.linalg.vector_norm(A, dtype=torch.complex128))
    close(ember.linalg.norm(E(A)), torch.linalg.norm(A))
    close(ember.norm(E(A)), torch.norm(A))
    close(ember.norm(E(A), p=1, dim=1), torch.norm(A, p=1, dim=1))
    close(ember.norm(E(A), p="fro", dim=(1, 2)), torch.norm(A, p="fro", dim=(1, 2)))
    close(ember.norm(E(A[0]), p="nuc"), torch.norm(A[0], p="nuc"))
    close(ember.frobenius_norm(E(A), (1, 2)), torch.frobenius_norm(A, (1, 2)))
    close(ember.nuclear_norm(E(A[0])), torch.nuclear_norm(A[0]))
    assert ember.linalg.matrix_norm(E(A)).dtype == (ember.float32 if dtype == torch.complex64 else ember.float64)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_cond(dtype):
    A = rand(2, 4, 4, dtype=dtype, seed=13)
    for p in [None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]:
        close(ember.linalg.cond(E(A), p), torch.linalg.cond(A, p), tol=1e-3 if dtype == torch.complex64 else None)
    # singular: inf for the orders through the inverse (0 * inf is inf), real input too
    for S in (torch.zeros(3, 3, dtype=dtype), torch.zeros(3, 3, dtype=torch.float32 if dtype == torch.complex64 else torch.float64)):
        for p in [1, -1, "fro", "nuc", math.inf]:
            close(ember.linalg.cond(E(S), p), torch.linalg.cond(S, p))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_lu_family(dtype):
    A = rand(2, 4, 4, dtype=dtype, seed=14)
    W = rand(3, 5, dtype=dtype, seed=15)
    B = rand(2, 4, 3, dtype=dtype, seed=16)
    close(ember.linalg.lu_factor(E(A)), torch.linalg.lu_factor(A))
    close(ember.linalg.lu_factor_ex(E(A)), torch.linalg.lu_factor_ex(A))
    close(ember.linalg.lu(E(W)), torch.linalg.lu(W))
    LU, piv = torch.linalg.lu_factor(A)
    close(ember.lu_unpack(E(LU), E(piv)), torch.lu_unpack(LU, piv))
    for left in (True, False):
        for adjoint in (True, False):
            rhs = B if left else B.mT.contiguous()
            close(ember.linalg.lu_solve(E(LU), E(piv), E(rhs), left=left, adjoint=adjoint),
                  torch.linalg.lu_solve(LU, piv, rhs, left=left, adjoint=adjoint))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(ember.lu_solve(E(B), E(LU), E(piv)), torch.lu_solve(B, LU, piv))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_solve_triangular(dtype):
    U = rand(2, 4, 4, dtype=dtype, seed=17, kind="upper")
    L = rand(2, 4, 4, dtype=dtype, seed=18, kind="lower")
    B = rand(2, 4, 3, dtype=dtype, seed=19)
    for A, upper in ((U, True), (L, False)):
        for left in (True, False):
            for unit in (True, False):
                rhs = B if left else B.mT.contiguous()
                close(ember.linalg.solve_triangular(E(A), E(rhs), upper=upper, left=left, unitriangular=unit),
                      torch.linalg.solve_triangular(A, rhs, upper=upper, left=left, unitriangular=unit))
        for transpose in (True, False):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                close(ember.triangular_solve(E(B), E(A), upper=upper, transpose=transpose),
                      torch.triangular_solve(B, A, upper=upper, transpose=transpose))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_matrix_power_exp(dtype):
    A = rand(2, 3, 3, dtype=dtype, seed=20) / 2
    for n in [0, 1, 2, 3, 5, -1, -3]:
        close(ember.linalg.matrix_power(E(A), n), torch.linalg.matrix_power(A, n))
    close(ember.linalg.matrix_exp(E(A)), torch.linalg.matrix_exp(A))
    close(ember.matrix_exp(E(4 * A)), torch.matrix_exp(4 * A))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_eigvalsh_vecdot(dtype):
    H = rand(2, 4, 4, dtype=dtype, seed=21, kind="herm")
    close(ember.linalg.eigvalsh(E(H)), torch.linalg.eigvalsh(H))
    close(ember.linalg.eigvalsh(E(H), UPLO="U"), torch.linalg.eigvalsh(H, UPLO="U"))
    x, y = rand(3, 4, dtype=dtype, seed=22), rand(3, 4, dtype=dtype, seed=23)
    # the Hermitian inner product: x conjugated
    close(ember.linalg.vecdot(E(x), E(y)), torch.linalg.vecdot(x, y))
    close(ember.linalg.vecdot(E(x), E(y), dim=0), torch.linalg.vecdot(x, y, dim=0))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_masked_fill_triangles(dtype):
    A = rand(3, 4, dtype=dtype, seed=24)
    m = A.real > 0
    close(E(A).masked_fill(E(m), 2 - 1j), A.masked_fill(m, 2 - 1j))
    close(E(A).masked_fill(E(m), 0.5), A.masked_fill(m, 0.5))
    for k in (-1, 0, 2):
        close(E(A).triu(k), A.triu(k))
        close(E(A).tril(k), A.tril(k))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("hermitian", [False, True])
def test_ldl(dtype, hermitian):
    A = rand(2, 4, 4, dtype=dtype, seed=25, kind="herm")
    if not hermitian:
        A = A + A.mT  # complex symmetric
    B = rand(2, 4, 3, dtype=dtype, seed=26)
    LD, piv = torch.linalg.ldl_factor(A, hermitian=hermitian)
    close(ember.linalg.ldl_factor(E(A), hermitian=hermitian), (LD, piv))
    close(ember.linalg.ldl_factor_ex(E(A), hermitian=hermitian), torch.linalg.ldl_factor_ex(A, hermitian=hermitian))
    close(ember.linalg.ldl_solve(E(LD), E(piv), E(B), hermitian=hermitian),
          torch.linalg.ldl_solve(LD, piv, B, hermitian=hermitian))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_cov_corrcoef(dtype):
    # X X^H / (N - 1): Hermitian; corrcoef clips the real and imaginary parts each
    x = rand(3, 6, dtype=dtype, seed=27)
    close(ember.cov(E(x)), torch.cov(x))
    close(ember.cov(E(x), correction=0), torch.cov(x, correction=0))
    w = torch.tensor([1, 2, 1, 3, 1, 1])
    close(ember.cov(E(x), fweights=E(w)), torch.cov(x, fweights=w))
    close(ember.corrcoef(E(x)), torch.corrcoef(x))
