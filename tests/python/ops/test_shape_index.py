"""Indexing and scatter ops against torch 1.13: duplicate indices with accumulate, in-place
version bumps and failures that leave self unchanged, non-contiguous self, error texts, and the
Tensor method / out= forms."""
import numpy as np
import pytest
import torch

import ember


def E(t):
    return ember.tensor(t.numpy())


def same(e, t):
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)


def test_index_add_duplicates_and_alpha():
    t = torch.arange(12.).reshape(3, 4)
    idx, src = torch.tensor([0, 2, 0, 0]), torch.arange(16.).reshape(4, 4)
    same(E(t).index_add(0, E(idx), E(src), alpha=2), t.index_add(0, idx, src, alpha=2))
    same(ember.index_add(E(t), 1, E(torch.tensor([3, 3])), E(torch.ones(3, 2))),
         torch.index_add(t, 1, torch.tensor([3, 3]), torch.ones(3, 2)))
    e = E(t)
    v = e._version
    assert e.index_add_(0, E(idx), E(src)) is e and e._version > v
    same(e, t.clone().index_add_(0, idx, src))


def test_index_add_noncontiguous_self_and_error_leaves_self():
    t = torch.arange(12.).reshape(4, 3).t()
    e = E(torch.arange(12.).reshape(4, 3)).t()
    e.index_add_(1, E(torch.tensor([1, 1, 3])), E(torch.ones(3, 3)))
    same(e, t.index_add(1, torch.tensor([1, 1, 3]), torch.ones(3, 3)))
    before = e.clone()
    with pytest.raises(IndexError):
        e.index_add_(1, E(torch.tensor([9])), E(torch.ones(3, 1)))
    same(e, torch.tensor(before.numpy()))


def test_index_copy_fill():
    t = torch.zeros(3, 4)
    same(E(t).index_copy(1, E(torch.tensor([2, 0])), E(torch.ones(3, 2))),
         t.index_copy(1, torch.tensor([2, 0]), torch.ones(3, 2)))
    same(E(t).index_fill(0, E(torch.tensor([0, 2])), -1), t.index_fill(0, torch.tensor([0, 2]), -1))
    same(E(t).index_fill(1, E(torch.tensor([1])), ember.tensor(5.)), t.index_fill(1, torch.tensor([1]), torch.tensor(5.)))
    with pytest.raises(RuntimeError, match="index_fill_ only supports a 0-dimensional value tensor, but got tensor "
                                           "with 1 dimension"):
        E(t).index_fill(1, E(torch.tensor([1])), ember.ones(1))
    with pytest.raises(RuntimeError, match="index_copy_\\(\\): Expected a long tensor for index, but got Int"):
        E(t).index_copy(0, ember.tensor([0], dtype=ember.int32), ember.ones(1, 4))


def test_index_put_functional_keeps_self():
    t = torch.zeros(3, 4)
    e = E(t)
    i = torch.tensor([0, 2, 0])
    got = e.index_put((E(i),), ember.ones(3, 4), accumulate=True)
    same(got, t.index_put((i,), torch.ones(3, 4), accumulate=True))
    same(e, t)
    same(ember.ops.aten.index_put.default(e, [None, E(torch.tensor([1, 3]))], ember.tensor(7.)),
         torch.ops.aten.index_put(t, [None, torch.tensor([1, 3])], torch.tensor(7.)))


def test_masked_select_and_scatter():
    t = torch.arange(12.).reshape(3, 4)
    m = torch.tensor([True, False, True, True])
    same(E(t).masked_select(E(m)), t.masked_select(m))
    same(ember.masked_select(E(t[:, :1]), E(m)), torch.masked_select(t[:, :1], m))
    src = torch.arange(100., 120.)
    same(E(t).masked_scatter(E(m), E(src)), t.masked_scatter(m, src))
    e = E(t)
    e.masked_scatter_(E(m), E(src))
    same(e, t.clone().masked_scatter_(m, src))
    with pytest.raises(RuntimeError, match="masked_select: expected BoolTensor or ByteTensor for mask"):
        E(t).masked_select(E(m.float()))
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        E(t).masked_scatter(E(m), ember.zeros(2))
    before = E(t)
    with pytest.raises(RuntimeError):
        before.masked_scatter_(E(m), ember.zeros(2))
    same(before, t)


def test_take_and_put():
    t = torch.arange(12.).reshape(3, 4)
    i = torch.tensor([[0, -1], [5, 11]])
    same(E(t).take(E(i)), t.take(i))
    same(ember.take(E(t).t(), E(i)), torch.take(t.t(), i))
    same(E(t).put(E(torch.tensor([0, 0, 3])), E(torch.tensor([1., 2., 3.])), accumulate=True),
         t.put(torch.tensor([0, 0, 3]), torch.tensor([1., 2., 3.]), accumulate=True))
    e = E(t).t()
    e.put_(E(torch.tensor([1, -2])), E(torch.tensor([9., 8.])))
    same(e, t.t().clone().put_(torch.tensor([1, -2]), torch.tensor([9., 8.])))
    with pytest.raises(IndexError, match="out of range: tried to access index 12 on a tensor of 12 elements."):
        E(t).take(ember.tensor([12]))
    with pytest.raises(IndexError, match="put_\\(\\): Expected source and index to have the same number of "
                                           "elements, but got source.numel\\(\\) = 1, index.numel\\(\\) = 2"):
        E(t).put_(ember.tensor([0, 1]), ember.tensor([1.]))


def test_take_along_dim():
    t = torch.randn(3, 4)
    i = torch.argsort(t, dim=1)
    same(E(t).take_along_dim(E(i), 1), t.take_along_dim(i, 1))
    same(ember.take_along_dim(E(t), E(i)), torch.take_along_dim(t, i))
    same(ember.take_along_dim(E(t), E(i[:1]), dim=1), torch.take_along_dim(t, i[:1], dim=1))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, include_self):
    t = torch.randn(3, 4, dtype=torch.float64)
    idx = torch.tensor([[0, 1, 2, 0], [0, 0, 2, 1], [2, 2, 2, 2]])
    src = torch.randn(3, 4, dtype=torch.float64)
    same(E(t).scatter_reduce(0, E(idx), E(src), reduce, include_self=include_self),
         t.scatter_reduce(0, idx, src, reduce, include_self=include_self))
    ti = torch.arange(12).reshape(3, 4)
    same(E(ti).scatter_reduce(1, E(idx), E(ti * 3 - 5), reduce, include_self=include_self),
         ti.scatter_reduce(1, idx, ti * 3 - 5, reduce, include_self=include_self))


def test_scatter_reduce_errors():
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin."):
        ember.zeros(3).scatter_reduce(0, ember.tensor([0]), ember.ones(1), "max")
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        ember.zeros(3).scatter_reduce(0, ember.tensor([0]), ember.ones(1, dtype=ember.float64), "sum")


def test_select_slice_diagonal_scatter():
    t = torch.zeros(3, 4)
    same(E(t).select_scatter(ember.ones(4), 0, 1), t.select_scatter(torch.ones(4), 0, 1))
    same(ember.slice_scatter(E(t), ember.ones(3, 2), 1, 0, 4, 2), torch.slice_scatter(t, torch.ones(3, 2), 1, 0, 4, 2))
    same(ember.diagonal_scatter(E(t), ember.ones(3), 1), torch.diagonal_scatter(t, torch.ones(3), 1))
    with pytest.raises(RuntimeError, match=r"expected src to have a size equal to the slice of self. src size = "
                                           r"\[3\], slice size = \[4\]"):
        E(t).select_scatter(ember.ones(3), 0, 0)


def test_copy_functional():
    t = torch.zeros(2, 3)
    src = torch.tensor([1., 2., 3.])
    got = ember.ops.aten.copy.default(E(t), E(src))
    same(got, torch.ops.aten.copy(t, src))
    same(E(t), t)


def test_out_variants():
    out = ember.empty(0)
    r = ember.tril(ember.ones(3, 3), out=out)
    assert r is out
    same(out, torch.tril(torch.ones(3, 3)))
    out = ember.empty(0, dtype=ember.int64)
    ember.take(ember.arange(5), ember.tensor([4, 0]), out=out)
    same(out, torch.tensor([4, 0]))
