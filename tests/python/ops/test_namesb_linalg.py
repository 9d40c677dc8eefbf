"""linalg.ldl_factor(_ex) / ldl_solve, linalg.diagonal / vander, geqrf / ormqr, symeig and
torch.lu / Tensor.lu (namesb), against torch 1.13: values, layouts, return types, warnings and
error texts."""
import warnings

import numpy as np
import pytest
import torch

import ember


def e(t):
    return ember.from_numpy(t.numpy().copy())


def same(got, want, rtol=1e-10, atol=1e-10):
    assert str(got.dtype).replace("ember.", "") == str(want.dtype).replace("torch.", "")
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=atol)


def sym(*shape, dtype=torch.float64):
    g = torch.Generator().manual_seed(0)
    a = torch.randn(*shape, generator=g, dtype=dtype)
    return a + a.mT


@pytest.mark.parametrize("shape", [(3, 3), (2, 5, 5), (0, 0)])
def test_ldl_factor_and_solve_match_torch(shape):
    A = sym(*shape)
    LD, piv, info = torch.linalg.ldl_factor_ex(A)
    r = ember.linalg.ldl_factor_ex(e(A))
    assert type(r).__name__ == "linalg_ldl_factor_ex" and len(r) == 3
    same(r.LD, LD)
    assert r.LD.stride() == LD.stride()
    assert r.pivots.tolist() == piv.tolist() and r.pivots.dtype == ember.int32
    assert r.info.tolist() == info.tolist()
    LD2, piv2 = ember.linalg.ldl_factor(e(A))
    B = torch.randn(*shape[:-1], 2, dtype=torch.float64)
    same(ember.linalg.ldl_solve(LD2, piv2, e(B)), torch.linalg.ldl_solve(LD, piv, B))
    for dt in (torch.float32,):
        same(ember.linalg.ldl_factor(e(A.to(dt)))[0], torch.linalg.ldl_factor(A.to(dt))[0], 1e-5, 1e-5)


def test_ldl_errors():
    with pytest.raises(RuntimeError, match="ember.linalg.ldl_factor_ex: A must be batches of square matrices, but they are 3 by 2 matrices"):
        ember.linalg.ldl_factor_ex(ember.zeros(3, 2))
    with pytest.raises(RuntimeError, match="ember.linalg.ldl_factor_ex: Expected a floating point or complex tensor as input. Got Long"):
        ember.linalg.ldl_factor_ex(ember.zeros(3, 3, dtype=ember.int64))
    assert ember.linalg.ldl_factor_ex(ember.zeros(3, 3)).info.item() == torch.linalg.ldl_factor_ex(torch.zeros(3, 3)).info.item()
    with pytest.raises(RuntimeError, match="ember.linalg.ldl_factor: Unknown error code: 1."):
        ember.linalg.ldl_factor(ember.zeros(3, 3))


def test_vander_and_diagonal_match_torch():
    for x in (torch.tensor([1, 2, 3]), torch.tensor([1.5, -2.0]), torch.randn(2, 3, dtype=torch.float64),
              torch.tensor([1, 2], dtype=torch.int8)):
        same(ember.linalg.vander(e(x)), torch.linalg.vander(x))
        same(ember.linalg.vander(e(x), N=4), torch.linalg.vander(x, N=4))
    same(ember.linalg.vander(ember.tensor(3.0), N=3), torch.linalg.vander(torch.tensor(3.0), N=3))
    with pytest.raises(RuntimeError, match="N must be greater than 1."):
        ember.linalg.vander(ember.tensor(3.0))
    with pytest.raises(RuntimeError, match="N must be greater than 1."):
        ember.linalg.vander(ember.zeros(3), N=1)
    with pytest.raises(RuntimeError, match="linalg.vander supports floating point, complex, and integer tensors, but got Bool"):
        ember.linalg.vander(ember.tensor([True]))
    x = torch.randn(3, 4, 5)
    for kw in ({}, {"offset": 1}, {"dim1": 0, "dim2": 2, "offset": -1}):
        same(ember.linalg.diagonal(e(x), **kw), torch.linalg.diagonal(x, **kw))
    d = ember.linalg.diagonal(ex := e(x))
    d[0, 0] = 100.0  # a view, as torch's
    assert ex[0, 0, 0].item() == 100.0


def test_geqrf_ormqr_match_torch():
    for shape in ((5, 3), (3, 5), (2, 4, 4)):
        M = torch.randn(*shape, dtype=torch.float64)
        a, tau = torch.geqrf(M)
        r = ember.geqrf(e(M))
        assert type(r).__name__ == "geqrf" and len(r) == 2
        same(r.a, a)
        same(r.tau, tau)
        same(e(M).geqrf()[0], a)
        m = shape[-2]
        C = torch.randn(*shape[:-2], m, 2, dtype=torch.float64)
        for left, transpose in ((True, False), (True, True)):
            same(ember.ormqr(r.a, r.tau, e(C), left, transpose), torch.ormqr(a, tau, C, left, transpose))
        Ct = C.mT.contiguous()
        same(r.a.ormqr(r.tau, e(Ct), left=False, transpose=True), a.ormqr(tau, Ct, left=False, transpose=True))


def test_symeig_and_lu_deprecated_forms():
    A = sym(4, 4)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        want = torch.symeig(A)
        got = ember.symeig(e(A))
    assert type(got).__name__ == "symeig" and len(got) == 2
    same(got.eigenvalues, want.eigenvalues)
    same(got.eigenvectors, want.eigenvectors)
    w = torch.symeig(A, eigenvectors=True, upper=False)
    g = e(A).symeig(eigenvectors=True, upper=False)
    same(g.eigenvalues, w.eigenvalues)
    np.testing.assert_allclose(np.abs(g.eigenvectors.numpy()), np.abs(w.eigenvectors.numpy()), atol=1e-10)
    M = torch.randn(3, 3, dtype=torch.float64)
    LU, piv = ember.lu(e(M))
    tLU, tpiv = torch.lu(M)
    same(LU, tLU)
    assert piv.tolist() == tpiv.tolist()
    r = ember.lu(e(M), get_infos=True)
    assert type(r).__name__ == "_lu_with_info" and len(r) == 3 and r.info.item() == 0
    LU2, piv2 = e(M).lu()
    same(LU2, tLU)
    assert len(e(M).lu(get_infos=True)) == 3
    LU3, piv3, info3 = ember.lu(ember.zeros(2, 2), get_infos=True)  # singular: an info, no error
    assert info3.item() == 1
    out = (ember.empty(0, dtype=ember.float64), ember.empty(0, dtype=ember.int32))
    assert ember.lu(e(M), out=out) is out
    same(out[0], tLU)
