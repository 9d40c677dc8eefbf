"""torch.dot / vdot / inner / mv / ravel / is_signed / is_same_size / is_nonzero / orgqr and the
Tensor spellings view_as, reshape_as, type_as, ndimension, nelement, get_device, mT, mH, against
torch 1.13: values, dtypes and error texts."""
import numpy as np
import pytest
import torch

import ember


def both(fn):
    """fn(lib) on torch and on ember: the results (as numpy / Python values) or the errors."""
    out = []
    for lib in (torch, ember):
        try:
            r = fn(lib)
            out.append(("ok", r.numpy() if hasattr(r, "numpy") else r))
        except Exception as e:  # noqa: BLE001 - the error itself is compared
            out.append((type(e).__name__, str(e).replace("torch.", "ember.")))
    return out


CASES = [
    lambda L: L.dot(L.arange(3.0), L.arange(3.0) + 1),
    lambda L: L.dot(L.ones(2, 2), L.ones(2)),
    lambda L: L.dot(L.ones(3), L.ones(2)),
    lambda L: L.dot(L.ones(3), L.ones(3, dtype=L.float64)),
    lambda L: L.vdot(L.arange(3.0), L.arange(3.0)),
    lambda L: L.mv(L.arange(6.0).reshape(2, 3), L.arange(3.0)),
    lambda L: L.mv(L.ones(2, 3), L.ones(2)),
    lambda L: L.mv(L.ones(3), L.ones(2)),
    lambda L: L.inner(L.arange(6.0).reshape(2, 3), L.arange(12.0).reshape(4, 3)),
    lambda L: L.inner(L.ones(2, 3), L.ones(4, 2)),
    lambda L: L.inner(L.tensor(2.0), L.ones(2, 2)),
    lambda L: L.ravel(L.arange(6).reshape(2, 3).t()),
    lambda L: L.is_signed(L.ones(2, dtype=L.uint8)),
    lambda L: L.ones(2).is_signed(),
    lambda L: L.is_same_size(L.ones(2, 3), L.ones(2, 3)),
    lambda L: L.ones(1, 1).is_nonzero(),
    lambda L: L.zeros(2).is_nonzero(),
    lambda L: L.zeros(0).is_nonzero(),
    lambda L: L.arange(6.0).view_as(L.ones(2, 3)),
    lambda L: L.arange(6.0).reshape_as(L.ones(3, 2)),
    lambda L: L.arange(3.0).type_as(L.ones(1, dtype=L.int32)),
    lambda L: L.ones(2, 3).ndimension(),
    lambda L: L.ones(2, 3).nelement(),
    lambda L: L.ones(2).get_device(),
    lambda L: L.arange(6.0).reshape(2, 3).mT,
    lambda L: L.arange(6.0).reshape(2, 3).mH,
    lambda L: L.ones(3).mT,
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_as_torch(i):
    (tk, tv), (ek, ev) = both(CASES[i])
    assert ek == tk
    if tk == "ok":
        np.testing.assert_array_equal(np.asarray(ev), np.asarray(tv))
        if hasattr(tv, "dtype"):
            assert str(ev.dtype) == str(tv.dtype)
    else:
        assert ev == tv


def test_orgqr_and_householder_product():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((5, 3))
    tau = rng.standard_normal(3)
    t = torch.linalg.householder_product(torch.tensor(A), torch.tensor(tau))
    e = ember.linalg.householder_product(ember.tensor(A), ember.tensor(tau))
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ember.orgqr(ember.tensor(A), ember.tensor(tau)).numpy(), t.numpy(),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ember.tensor(A).orgqr(ember.tensor(tau)).numpy(), t.numpy(),
                               rtol=1e-12, atol=1e-12)
    # Batched, and the gradient through the composition against torch's.
    Ab = rng.standard_normal((2, 4, 3))
    taub = rng.standard_normal((2, 2))
    ta, tt = torch.tensor(Ab, requires_grad=True), torch.tensor(taub, requires_grad=True)
    ea, et = ember.tensor(Ab, requires_grad=True), ember.tensor(taub, requires_grad=True)
    torch.linalg.householder_product(ta, tt).pow(2).sum().backward()
    ember.linalg.householder_product(ea, et).pow(2).sum().backward()
    np.testing.assert_allclose(ea.grad.numpy(), ta.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(et.grad.numpy(), tt.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_weight_norm_ops():
    rng = np.random.default_rng(1)
    v, g = rng.standard_normal((3, 2, 4)), rng.standard_normal((3, 1, 1))
    for dim in (0, 1, 2, -1):
        np.testing.assert_allclose(ember.norm_except_dim(ember.tensor(v), 2, dim).numpy(),
                                   torch.norm_except_dim(torch.tensor(v), 2, dim).numpy(),
                                   rtol=1e-12)
    np.testing.assert_allclose(ember._weight_norm(ember.tensor(v), ember.tensor(g), 0).numpy(),
                               torch._weight_norm(torch.tensor(v), torch.tensor(g), 0).numpy(),
                               rtol=1e-12)


MORE = [
    lambda L: L.argwhere(L.tensor([[1, 0], [0, 3]])),
    lambda L: L.tensor([[1, 0], [0, 3]]).argwhere(),
    lambda L: L.narrow_copy(L.arange(6).reshape(2, 3), 1, 1, 2),
    lambda L: L.arange(6).reshape(2, 3).narrow_copy(0, 1, 1),
    lambda L: L.concat([L.ones(2), L.zeros(1)]),
    lambda L: L.concatenate([L.ones(2), L.zeros(1)]),
    lambda L: L.rsub(L.ones(2), L.tensor([3.0, 4.0]), alpha=2),
    lambda L: L.rsub(L.arange(3), 5),
    lambda L: L.rsub(L.ones(2), 2.5),
]


@pytest.mark.parametrize("i", range(len(MORE)))
def test_more_as_torch(i):
    (tk, tv), (ek, ev) = both(MORE[i])
    assert ek == tk
    np.testing.assert_array_equal(np.asarray(ev), np.asarray(tv))
    assert str(ev.dtype) == str(tv.dtype)
