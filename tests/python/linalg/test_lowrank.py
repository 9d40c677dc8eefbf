"""ember.svd_lowrank / pca_lowrank (randomized, as torch._lowrank): shapes and dtypes as torch's,
orthonormal factors, exact recovery of a low-rank matrix, agreement with the leading singular
values of a full SVD, centring, the M argument, seeding, and the argument errors."""
import numpy as np
import pytest
import torch

import ember


def low_rank(m, n, r, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((m, r)) @ rng.standard_normal((r, n))).astype(dtype)


@pytest.mark.parametrize("shape", [(40, 25), (25, 40), (30, 30)])
def test_recovers_a_low_rank_matrix(shape):
    a = low_rank(*shape, r=4)
    ember.manual_seed(0)
    U, S, V = ember.svd_lowrank(ember.from_numpy(a), q=6)
    assert tuple(U.shape) == (shape[0], 6) and tuple(S.shape) == (6,) and tuple(V.shape) == (shape[1], 6)
    rec = (U.numpy() * S.numpy()) @ V.numpy().T
    np.testing.assert_allclose(rec, a, atol=1e-9)
    np.testing.assert_allclose(U.numpy().T @ U.numpy(), np.eye(6), atol=1e-10)
    np.testing.assert_allclose(S.numpy()[:4], np.linalg.svd(a, compute_uv=False)[:4], rtol=1e-10)
    # torch gives the same factorisation up to signs
    tU, tS, tV = torch.svd_lowrank(torch.from_numpy(a), q=6)
    np.testing.assert_allclose(S.numpy()[:4], tS.numpy()[:4], rtol=1e-10)


def test_batched_and_float32():
    a = np.stack([low_rank(20, 12, 3, seed=s, dtype=np.float32) for s in range(3)])
    U, S, V = ember.svd_lowrank(ember.from_numpy(a), q=5, niter=3)
    assert U.dtype == ember.float32 and tuple(U.shape) == (3, 20, 5) and tuple(V.shape) == (3, 12, 5)
    rec = np.einsum("bik,bk,bjk->bij", U.numpy(), S.numpy(), V.numpy())
    np.testing.assert_allclose(rec, a, atol=2e-4)


def test_M_is_subtracted():
    a = low_rank(30, 20, 3)
    mean = np.full((30, 20), 0.75)
    U, S, V = ember.svd_lowrank(ember.from_numpy(a + mean), q=4, M=ember.from_numpy(mean))
    np.testing.assert_allclose((U.numpy() * S.numpy()) @ V.numpy().T, a, atol=1e-9)


def test_pca_lowrank_centres_and_matches_torch():
    rng = np.random.default_rng(3)
    a = low_rank(50, 8, 2) + rng.standard_normal((1, 8)) * 5  # rank 2 around a column offset
    U, S, V = ember.pca_lowrank(ember.from_numpy(a))
    assert tuple(S.shape) == (6,)
    tU, tS, tV = torch.pca_lowrank(torch.from_numpy(a))
    np.testing.assert_allclose(S.numpy()[:2], tS.numpy()[:2], rtol=1e-10)
    centred = a - a.mean(0, keepdims=True)
    np.testing.assert_allclose((U.numpy() * S.numpy()) @ V.numpy().T, centred, atol=1e-9)
    _, S2, _ = ember.pca_lowrank(ember.from_numpy(a), q=3, center=False)
    np.testing.assert_allclose(S2.numpy()[:2], np.linalg.svd(a, compute_uv=False)[:2], rtol=1e-6)


def test_seeded_calls_repeat():
    x = ember.from_numpy(low_rank(15, 9, 5))
    ember.manual_seed(5)
    a = ember.svd_lowrank(x, q=3, niter=0)[0]
    ember.manual_seed(5)
    b = ember.svd_lowrank(x, q=3, niter=0)[0]
    assert ember.equal(a, b)


def test_errors_match_torch():
    for lib in (torch, ember):
        x = lib.ones(4, 3, dtype=lib.float64)
        with pytest.raises(ValueError, match=r"q\(=5\) must be non-negative integer and not greater than "
                                             r"min\(m, n\)=3"):
            lib.pca_lowrank(x, q=5)
        with pytest.raises(ValueError, match=r"niter\(=-1\) must be non-negative integer"):
            lib.pca_lowrank(x, niter=-1)
