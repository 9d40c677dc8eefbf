"""Shape ops that copy and the products / stacks of torch.functional, through their Python forms
(variadic methods, einsum's equation and sublist forms, tensordot's dims forms), against torch
1.13, and the gradients of the composites (einsum, tensordot, kron, cov, diag, trace, ...)
against torch's."""
import numpy as np
import pytest
import torch

import ember


def E(t):
    return ember.tensor(t.numpy())


def same(e, t, tol=1e-6):
    if isinstance(t, (tuple, list)):
        for a, b in zip(e, t):
            same(a, b, tol)
        return
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def test_method_forms():
    t = torch.arange(24).reshape(2, 3, 4)
    e = E(t)
    same(e.flip(0, 2), t.flip(0, 2))
    same(e.flip([1]), t.flip([1]))
    same(e.repeat(2, 1, 1, 2), t.repeat(2, 1, 1, 2))
    same(e.roll(1), t.roll(1))
    same(e.roll((1, -1), (0, 2)), t.roll((1, -1), (0, 2)))
    same(e.rot90(1, (1, 2)), t.rot90(1, (1, 2)))
    same(e.tile((2,)), t.tile((2,)))
    same(e.repeat_interleave(2, dim=1), t.repeat_interleave(2, dim=1))
    same(ember.repeat_interleave(ember.tensor([1, 0, 2])), torch.repeat_interleave(torch.tensor([1, 0, 2])))
    same(e[0].tril(-1), t[0].tril(-1))
    same(e[0].triu(1), t[0].triu(1))
    m = E(t[0].float())
    v = m._version
    assert m.tril_() is m and m._version > v
    same(m, t[0].float().tril())
    same(ember.fliplr(e), torch.fliplr(t))
    same(ember.flipud(e), torch.flipud(t))
    same(ember.tril_indices(3, 4, 1), torch.tril_indices(3, 4, 1))
    same(ember.triu_indices(4, 3, -1), torch.triu_indices(4, 3, -1))


def test_diag_family():
    v, m = torch.tensor([1., 2., 3.]), torch.arange(12.).reshape(3, 4)
    same(ember.diag(E(v), 1), torch.diag(v, 1))
    same(E(m).diag(-1), m.diag(-1))
    same(ember.diag_embed(E(m), 1, 0, 2), torch.diag_embed(m, 1, 0, 2))
    same(ember.diagflat(E(m)), torch.diagflat(m))
    same(E(m).trace(), m.trace())
    same(ember.trace(E(m.long())), torch.trace(m.long()))
    same(ember.block_diag(E(m), E(v), ember.tensor(5.)), torch.block_diag(m, v, torch.tensor(5.)))
    with pytest.raises(RuntimeError, match="matrix or a vector expected"):
        ember.diag(ember.zeros(2, 2, 2))


def test_stacks_and_products():
    a, b = torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6])
    for name in ("hstack", "vstack", "dstack", "column_stack", "row_stack"):
        same(getattr(ember, name)([E(a), E(b)]), getattr(torch, name)([a, b]))
        same(getattr(ember, name)((E(a.reshape(3, 1)), E(b.reshape(3, 1)))), getattr(torch, name)((a.reshape(3, 1), b.reshape(3, 1))))
    same(ember.cartesian_prod(E(a), E(b[:2])), torch.cartesian_prod(a, b[:2]))
    same(ember.outer(E(a), E(b)), torch.outer(a, b))
    same(E(a).ger(E(b)), a.ger(b))
    x, y = torch.randn(2, 3), torch.randn(3, 2)
    same(ember.kron(E(x), E(y)), torch.kron(x, y))
    with pytest.raises(RuntimeError, match="hstack expects a non-empty TensorList"):
        ember.hstack([])


@pytest.mark.parametrize("args", [
    ("ij,jk->ik", (3, 4), (4, 5)), ("ij,jk", (3, 4), (4, 5)), ("ii->i", (3, 3)), ("ii", (3, 3)),
    ("i,i->", (4,), (4,)), ("...ij,...jk->...ik", (2, 3, 4), (4, 5)), ("b i j , b j k -> b i k", (2, 3, 4), (2, 4, 2)),
    ("ijk->", (2, 3, 4)), ("Ab,bC->AC", (2, 3), (3, 4)), ("i,j,k->ijk", (2,), (3,), (2,)), ("ij,ij->ij", (1, 3), (2, 3)),
])
def test_einsum_values_and_gradients(args):
    eq, shapes = args[0], args[1:]
    ts = [torch.randn(*s, dtype=torch.float64, requires_grad=True) for s in shapes]
    es = [ember.tensor(t.detach().numpy(), requires_grad=True) for t in ts]
    out_t, out_e = torch.einsum(eq, *ts), ember.einsum(eq, *es)
    same(out_e, out_t, 1e-10)
    g = torch.randn(out_t.shape, dtype=torch.float64)
    grads_t = torch.autograd.grad(out_t, ts, g)
    grads_e = ember.autograd.grad(out_e, es, E(g))
    same(grads_e, grads_t, 1e-10)


def test_einsum_forms_and_errors():
    a, b = torch.randn(2, 3), torch.randn(3, 4)
    same(ember.einsum("ij,jk", [E(a), E(b)]), torch.einsum("ij,jk", [a, b]))
    same(ember.einsum(E(a), [0, 1], E(b), [1, 2], [0, 2]), torch.einsum(a, [0, 1], b, [1, 2], [0, 2]))
    same(ember.einsum("ij,jk", E(a.long()), E(b.long())), torch.einsum("ij,jk", a.long(), b.long()))
    with pytest.raises(RuntimeError, match="einsum\\(\\): more operands were provided than specified in the equation"):
        ember.einsum("ij", E(a), E(b))
    with pytest.raises(RuntimeError, match="einsum\\(\\): output subscript k does not appear"):
        ember.einsum("ij->k", E(a))


def test_tensordot_dims_forms():
    a, b = torch.randn(2, 3, 4), torch.randn(3, 4, 5)
    same(ember.tensordot(E(a), E(b), dims=2), torch.tensordot(a, b, dims=2), 1e-5)
    same(ember.tensordot(E(a), E(b), dims=([1, 2], [0, 1])), torch.tensordot(a, b, dims=([1, 2], [0, 1])), 1e-5)
    same(ember.tensordot(E(a), E(b), dims=([1], [0])), torch.tensordot(a, b, dims=([1], [0])), 1e-5)
    same(ember.tensordot(E(a), E(b), dims=0), torch.tensordot(a, b, dims=0), 1e-5)
    with pytest.raises(RuntimeError, match="tensordot expects dims >= 0, but got dims=-1"):
        ember.tensordot(E(a), E(b), dims=-1)


@pytest.mark.parametrize("fn", [
    lambda m, x: m.kron(x[:2, :2], x), lambda m, x: m.tensordot(x, x.t(), dims=1),
    lambda m, x: m.cov(x), lambda m, x: m.corrcoef(x), lambda m, x: m.diag(x, 1), lambda m, x: m.diag(x[0]),
    lambda m, x: m.trace(x), lambda m, x: m.diag_embed(x), lambda m, x: m.block_diag(x, x[0]),
    lambda m, x: m.rot90(x, 1, [0, 1]), lambda m, x: m.cartesian_prod(x[0], x[1]),
    lambda m, x: m.diff(x, 2, 0), lambda m, x: m.quantile(x, 0.3, dim=1),
    lambda m, x: m.take_along_dim(x, m.argsort(x, dim=1), dim=1),
])
def test_composite_gradients(fn):
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    xe = ember.tensor(x.detach().numpy(), requires_grad=True)
    out_t, out_e = fn(torch, x), fn(ember, xe)
    same(out_e, out_t, 1e-10)
    g = torch.randn(out_t.shape, dtype=torch.float64)
    (gt,) = torch.autograd.grad(out_t, x, g)
    (ge,) = ember.autograd.grad(out_e, xe, E(g))
    same(ge, gt, 1e-10)
