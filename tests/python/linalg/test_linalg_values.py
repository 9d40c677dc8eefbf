"""ember.linalg against torch 1.13: values (up to the sign conventions LAPACK leaves free),
batches, empty matrices, named results, meta shapes."""
import math

import pytest
import torch

import ember
from linalg_helpers import assert_close, random_matrix, to_ember

DTYPES = [torch.float32, torch.float64]
SQUARE = [(3, 3), (2, 4, 4), (2, 1, 3, 3), (0, 0), (2, 0, 0), (0, 3, 3), (1, 1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SQUARE)
def test_inv_det_slogdet(dtype, shape):
    A = random_matrix(shape, dtype, kind="wellcond")
    a = to_ember(A)
    assert_close(ember.linalg.inv(a), torch.linalg.inv(A))
    assert_close(ember.inverse(a), torch.inverse(A))
    assert_close(ember.linalg.inv_ex(a), tuple(torch.linalg.inv_ex(A)))
    assert_close(ember.linalg.det(a), torch.linalg.det(A))
    assert_close(ember.det(a), torch.det(A))
    assert_close(a.det(), A.det())
    assert_close(tuple(ember.linalg.slogdet(a)), tuple(torch.linalg.slogdet(A)))
    assert_close(tuple(ember.slogdet(a)), tuple(torch.slogdet(A)))
    assert_close(ember.logdet(a), torch.logdet(A))


def test_det_signs_and_singular():
    A = torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=torch.float64)   # a row swap: det -1
    S = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64)   # singular
    for M in (A, S, -torch.eye(3, dtype=torch.float64), torch.zeros(2, 2, dtype=torch.float64)):
        m = to_ember(M)
        assert_close(ember.linalg.det(m), torch.linalg.det(M))
        assert_close(tuple(ember.linalg.slogdet(m)), tuple(torch.linalg.slogdet(M)))
        assert_close(ember.logdet(m), torch.logdet(M))
    info = ember.linalg.inv_ex(to_ember(S)).info
    assert info.dtype == ember.int32 and info.item() == torch.linalg.inv_ex(S).info.item()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left", [True, False])
def test_solve(dtype, left):
    A = random_matrix((2, 3, 3), dtype, kind="wellcond")
    shapes = [(2, 3, 4), (3, 4), (1, 3, 2), (2, 3), (3,)] if left else [(2, 4, 3), (4, 3), (1, 2, 3)]
    for bshape in shapes:
        B = random_matrix(bshape, dtype, seed=1)
        if not left and B.dim() == 1:
            continue
        got = ember.linalg.solve(to_ember(A), to_ember(B), left=left)
        assert_close(got, torch.linalg.solve(A, B, left=left))
        res, info = ember.linalg.solve_ex(to_ember(A), to_ember(B), left=left)
        tres, tinfo = torch.linalg.solve_ex(A, B, left=left)
        assert_close(res, tres)
        assert_close(info, tinfo)


def test_solve_empty_and_vector():
    A = torch.zeros(0, 0, dtype=torch.float64)
    B = torch.zeros(0, 2, dtype=torch.float64)
    assert_close(ember.linalg.solve(to_ember(A), to_ember(B)), torch.linalg.solve(A, B))
    A = random_matrix((3, 3), kind="wellcond")
    b = random_matrix((3,), seed=2)
    assert_close(ember.linalg.solve(to_ember(A), to_ember(b)), torch.linalg.solve(A, b))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(dtype, upper):
    for shape in [(4, 4), (2, 3, 3), (0, 0)]:
        A = random_matrix(shape, dtype, kind="spd")
        a = to_ember(A)
        assert_close(ember.linalg.cholesky(a, upper=upper), torch.linalg.cholesky(A, upper=upper))
        assert_close(tuple(ember.linalg.cholesky_ex(a, upper=upper)), tuple(torch.linalg.cholesky_ex(A, upper=upper)))
        L = torch.linalg.cholesky(A, upper=upper)
        B = random_matrix(shape[:-1] + (2,), dtype, seed=3)
        assert_close(ember.cholesky_solve(to_ember(B), to_ember(L), upper), torch.cholesky_solve(B, L, upper))
        assert_close(ember.cholesky_inverse(to_ember(L), upper), torch.cholesky_inverse(L, upper)) if L.dim() == 2 else None
    info = ember.linalg.cholesky_ex(to_ember(-torch.eye(3))).info
    assert info.item() == 1


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 5, 3), (0, 3), (3, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(dtype, shape, mode):
    A = random_matrix(shape, dtype)
    Q, R = ember.linalg.qr(to_ember(A), mode=mode)
    tQ, tR = torch.linalg.qr(A, mode=mode)
    # geqrf's Householder convention fixes the signs: the same LAPACK routine gives the same Q, R.
    assert_close(Q, tQ)
    assert_close(R, tR)
    assert type(ember.linalg.qr(to_ember(A))).__name__ == "linalg_qr"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 5, 3), (0, 3), (3, 0), (2, 0, 0)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(dtype, shape, full):
    A = random_matrix(shape, dtype)
    U, S, Vh = ember.linalg.svd(to_ember(A), full_matrices=full)
    tU, tS, tVh = torch.linalg.svd(A, full_matrices=full)
    assert_close(S, tS)
    assert tuple(U.shape) == tuple(tU.shape) and tuple(Vh.shape) == tuple(tVh.shape)
    # The singular vectors are unique up to sign: compare |U|, |Vh| on the k leading columns
    # and the reconstruction.
    k = min(shape[-2:])
    assert_close(U[..., :k].abs(), tU[..., :k].abs())
    assert_close(Vh[..., :k, :].abs(), tVh[..., :k, :].abs())
    rec = (U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]
    assert_close(rec, A)
    assert_close(ember.linalg.svdvals(to_ember(A)), torch.linalg.svdvals(A))
    tu, ts, tv = torch.svd(A, some=not full)
    u, s, v = ember.svd(to_ember(A), some=not full)
    assert_close(s, ts)
    assert tuple(u.shape) == tuple(tu.shape) and tuple(v.shape) == tuple(tv.shape)
    assert_close(tuple(ember.svd(to_ember(A), compute_uv=False)), tuple(torch.svd(A, compute_uv=False)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(dtype, uplo):
    for shape in [(4, 4), (2, 3, 3), (0, 0)]:
        A = random_matrix(shape, dtype)  # not symmetric: UPLO picks the triangle read
        L, V = ember.linalg.eigh(to_ember(A), UPLO=uplo)
        tL, tV = torch.linalg.eigh(A, UPLO=uplo)
        assert_close(L, tL)
        assert_close(V.abs(), tV.abs())
        assert_close(ember.linalg.eigvalsh(to_ember(A), UPLO=uplo), torch.linalg.eigvalsh(A, UPLO=uplo))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("shapes", [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 5, 3), (1, 5, 2)), ((5, 3), (5,)),
                                    ((4, 4), (4, 1))])
def test_lstsq(dtype, driver, shapes):
    if driver == "gels" and shapes[0][-2] < shapes[0][-1]:
        pass  # gels solves the minimum-norm problem for wide full-rank A too
    A = random_matrix(shapes[0], dtype)
    B = random_matrix(shapes[1], dtype, seed=4)
    got = ember.linalg.lstsq(to_ember(A), to_ember(B), driver=driver)
    want = torch.linalg.lstsq(A, B, driver=driver)
    assert type(got).__name__ == "linalg_lstsq"
    assert_close(tuple(got), tuple(want), rtol=1e-3 if dtype == torch.float32 else 1e-8,
                 atol=1e-3 if dtype == torch.float32 else 1e-8)


def test_lstsq_rank_deficient():
    A = torch.ones(5, 3, dtype=torch.float64)
    B = random_matrix((5, 2), seed=5)
    for driver in ["gelsy", "gelsd", "gelss"]:
        got = ember.linalg.lstsq(to_ember(A), to_ember(B), driver=driver)
        want = torch.linalg.lstsq(A, B, driver=driver)
        assert_close(tuple(got), tuple(want))


NORM_ORDS = [None, 2, 1, -1, float("inf"), -float("inf"), 0, 3.5, 0.5, -2]


@pytest.mark.parametrize("dtype", DTYPES)
def test_vector_norm(dtype):
    x = random_matrix((2, 3, 4), dtype)
    e = to_ember(x)
    for ord in [2, 1, float("inf"), -float("inf"), 0, 3.5, 0.5, -1]:
        for dim in [None, 1, (0, 2), -1]:
            for keepdim in [False, True]:
                assert_close(ember.linalg.vector_norm(e, ord, dim, keepdim),
                             torch.linalg.vector_norm(x, ord, dim, keepdim))
    assert_close(ember.linalg.vector_norm(e, dtype=ember.float64), torch.linalg.vector_norm(x, dtype=torch.float64))
    assert_close(ember.linalg.vector_norm(to_ember(torch.zeros(0, 3, dtype=dtype))),
                 torch.linalg.vector_norm(torch.zeros(0, 3, dtype=dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_norm_and_norm(dtype):
    A = random_matrix((2, 3, 4), dtype)
    a = to_ember(A)
    for ord in ["fro", "nuc", 2, -2, 1, -1, float("inf"), -float("inf")]:
        for dim in [(-2, -1), (0, 2), (2, 0)]:
            for keepdim in [False, True]:
                assert_close(ember.linalg.matrix_norm(a, ord, dim, keepdim),
                             torch.linalg.matrix_norm(A, ord, dim, keepdim))
    M = A[0]
    m = to_ember(M)
    for ord in [None, "fro", "nuc", 2, 1, float("inf"), -2]:
        assert_close(ember.linalg.norm(m, ord), torch.linalg.norm(M, ord))
    assert_close(ember.linalg.norm(a), torch.linalg.norm(A))
    assert_close(ember.linalg.norm(a, dim=(0, 1)), torch.linalg.norm(A, dim=(0, 1)))
    assert_close(ember.linalg.norm(a, 3, dim=1), torch.linalg.norm(A, 3, dim=1))
    for p in ["fro", "nuc", 2, 1]:
        assert_close(ember.norm(m, p), torch.norm(M, p))
    assert_close(ember.norm(a, "nuc", dim=(1, 2)), torch.norm(A, "nuc", dim=(1, 2)))
    assert_close(ember.norm(a, "fro", dim=(0, 2), keepdim=True), torch.norm(A, "fro", dim=(0, 2), keepdim=True))
    assert_close(ember.frobenius_norm(a, (1, 2)), torch.frobenius_norm(A, (1, 2)))
    assert_close(ember.nuclear_norm(m), torch.nuclear_norm(M))


@pytest.mark.parametrize("dtype", DTYPES)
def test_pinv_rank_cond(dtype):
    for shape in [(5, 3), (3, 5), (2, 4, 4), (0, 3)]:
        A = random_matrix(shape, dtype)
        a = to_ember(A)
        assert_close(ember.linalg.pinv(a), torch.linalg.pinv(A))
        assert_close(ember.pinverse(a), torch.pinverse(A))
        assert_close(ember.linalg.matrix_rank(a), torch.linalg.matrix_rank(A))
        assert_close(ember.linalg.pinv(a, rtol=0.5), torch.linalg.pinv(A, rtol=0.5))
        assert_close(ember.linalg.matrix_rank(a, atol=1.0, rtol=0.0), torch.linalg.matrix_rank(A, atol=1.0, rtol=0.0))
    S = random_matrix((4, 4), dtype, kind="sym")
    assert_close(ember.linalg.pinv(to_ember(S), hermitian=True), torch.linalg.pinv(S, hermitian=True))
    assert_close(ember.linalg.matrix_rank(to_ember(S), hermitian=True), torch.linalg.matrix_rank(S, hermitian=True))
    low = torch.ones(4, 4, dtype=dtype)
    assert ember.linalg.matrix_rank(to_ember(low)).item() == 1
    A = random_matrix((2, 3, 3), dtype, kind="wellcond")
    for p in [None, 2, -2, 1, -1, float("inf"), -float("inf"), "fro", "nuc"]:
        assert_close(ember.linalg.cond(to_ember(A), p), torch.linalg.cond(A, p), rtol=1e-3 if dtype == torch.float32 else 1e-7)
    sing = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=dtype)
    assert math.isinf(ember.linalg.cond(to_ember(sing), 1).item())


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_power_exp(dtype):
    A = random_matrix((2, 3, 3), dtype, kind="wellcond") / 3
    a = to_ember(A)
    for n in [0, 1, 2, 3, 5, 8, -1, -3]:
        assert_close(ember.linalg.matrix_power(a, n), torch.linalg.matrix_power(A, n), rtol=1e-3 if dtype == torch.float32 else 1e-8)
    assert_close(ember.matrix_power(a, 4), torch.matrix_power(A, 4), rtol=1e-4 if dtype == torch.float32 else 1e-9)
    for scale in [0.01, 1.0, 10.0]:
        B = random_matrix((2, 4, 4), dtype, seed=6) * scale
        assert_close(ember.linalg.matrix_exp(to_ember(B)), torch.linalg.matrix_exp(B),
                     rtol=1e-4 if dtype == torch.float32 else 1e-8, atol=1e-4 if dtype == torch.float32 else 1e-8)
    assert_close(ember.matrix_exp(to_ember(torch.zeros(0, 0, dtype=dtype))), torch.matrix_exp(torch.zeros(0, 0, dtype=dtype)))


def test_cross_vecdot_multi_dot():
    a = random_matrix((4, 3), seed=7)
    b = random_matrix((1, 3), seed=8)
    assert_close(ember.linalg.cross(to_ember(a), to_ember(b)), torch.linalg.cross(a, b))
    c = random_matrix((3, 5), seed=9)
    assert_close(ember.linalg.cross(to_ember(c), to_ember(c.flip(1)), dim=0), torch.linalg.cross(c, c.flip(1), dim=0))
    assert_close(ember.cross(to_ember(c), to_ember(c.flip(1)), dim=0), torch.cross(c, c.flip(1), dim=0))
    assert_close(ember.linalg.vecdot(to_ember(a), to_ember(b)), torch.linalg.vecdot(a, b))
    ms = [random_matrix(s, seed=i) for i, s in enumerate([(2, 5), (5, 3), (3, 7), (7, 4)])]
    assert_close(ember.linalg.multi_dot(to_ember(ms)), torch.linalg.multi_dot(ms))
    v = [random_matrix((5,), seed=1), ms[1], random_matrix((3,), seed=2)]
    assert_close(ember.linalg.multi_dot(to_ember(v)), torch.linalg.multi_dot(v))
    assert_close(ember.chain_matmul(*to_ember(ms)), torch.linalg.multi_dot(ms))


def test_lu_family():
    for shape in [(4, 4), (2, 3, 3), (5, 3), (3, 5)]:
        A = random_matrix(shape, seed=10)
        LU, piv = ember.linalg.lu_factor(to_ember(A))
        tLU, tpiv = torch.linalg.lu_factor(A)
        assert_close(LU, tLU)
        assert_close(piv, tpiv)
        assert_close(tuple(ember.linalg.lu(to_ember(A))), tuple(torch.linalg.lu(A)))
        assert_close(tuple(ember.lu_unpack(LU, piv)), tuple(torch.lu_unpack(tLU, tpiv)))
    A = random_matrix((2, 3, 3), kind="wellcond")
    B = random_matrix((2, 3, 2), seed=11)
    tLU, tpiv = torch.linalg.lu_factor(A)
    LU, piv = to_ember(tLU), to_ember(tpiv)
    for left in [True, False]:
        for adjoint in [True, False]:
            BB = B if left else B.mT
            assert_close(ember.linalg.lu_solve(LU, piv, to_ember(BB), left=left, adjoint=adjoint),
                         torch.linalg.lu_solve(tLU, tpiv, BB, left=left, adjoint=adjoint))
    assert_close(ember.lu_solve(to_ember(B), LU, piv), torch.lu_solve(B, tLU, tpiv))


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_solve_triangular(upper, left, unit):
    A = random_matrix((2, 3, 3), kind="upper" if upper else "lower")
    B = random_matrix((2, 3, 4) if left else (2, 4, 3), seed=12)
    assert_close(ember.linalg.solve_triangular(to_ember(A), to_ember(B), upper=upper, left=left, unitriangular=unit),
                 torch.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unit))
    if left:
        assert_close(tuple(ember.triangular_solve(to_ember(B), to_ember(A), upper, False, unit)),
                     tuple(torch.triangular_solve(B, A, upper, False, unit)))
        assert_close(tuple(ember.triangular_solve(to_ember(B), to_ember(A), upper, True, unit)),
                     tuple(torch.triangular_solve(B, A, upper, True, unit)))


def test_tensorinv_tensorsolve():
    A = random_matrix((4, 6), kind="general").reshape(4, 6) @ random_matrix((6, 4), seed=3)
    A = (A + 6 * torch.eye(4, dtype=torch.float64)).reshape(4, 2, 2)
    assert_close(ember.linalg.tensorinv(to_ember(A), 1), torch.linalg.tensorinv(A, 1))
    T = random_matrix((6, 6), kind="wellcond").reshape(2, 3, 6)
    B = random_matrix((2, 3), seed=13)
    assert_close(ember.linalg.tensorsolve(to_ember(T), to_ember(B)), torch.linalg.tensorsolve(T, B))


def test_named_results_and_meta():
    A = random_matrix((2, 5, 3))
    r = ember.linalg.svd(to_ember(A))
    assert type(r).__name__ == "linalg_svd" and r._fields == ("U", "S", "Vh") if hasattr(r, "_fields") else True
    assert repr(ember.linalg.qr(to_ember(A[0]))).startswith("ember.return_types.linalg_qr(")
    assert type(ember.linalg.slogdet(to_ember(A[:, :3]))).__name__ == "linalg_slogdet"
    assert type(ember.linalg.eigh(to_ember(A[:, :3]))).__name__ == "linalg_eigh"
    m = ember.empty(2, 5, 3, device="meta")
    assert tuple(ember.linalg.svd(m, full_matrices=False).U.shape) == (2, 5, 3)
    assert tuple(ember.linalg.qr(m, mode="complete").Q.shape) == (2, 5, 5)
    assert tuple(ember.linalg.lstsq(m, ember.empty(2, 5, 4, device="meta")).solution.shape) == (2, 3, 4)
    sq = ember.empty(4, 3, 3, device="meta")
    for f in (ember.linalg.inv, ember.linalg.det, ember.linalg.cholesky, ember.linalg.matrix_exp):
        out = f(sq)
        assert out.device.type == "meta"
    assert tuple(ember.linalg.eigh(sq).eigenvalues.shape) == (4, 3)
    assert tuple(ember.linalg.solve(sq, ember.empty(4, 3, device="meta")).shape) == (4, 3)
    assert ember.linalg.vector_norm(sq).shape == ()
    assert ember.linalg.LinAlgError is ember._C._LinAlgError
    assert issubclass(ember.linalg.LinAlgError, RuntimeError)
