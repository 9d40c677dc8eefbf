"""Sorting, searching and counting ops against torch 1.13: unique / unique_consecutive in all
their result forms, searchsorted / bucketize, mode's named result, quantile, histc, bincount."""
import numpy as np
import pytest
import torch

import ember


def E(t):
    return ember.tensor(t.numpy())


def same(e, t):
    if isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            same(a, b)
        return
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kw", [{}, {"return_inverse": True}, {"return_counts": True},
                                {"return_inverse": True, "return_counts": True}])
def test_unique_forms(kw):
    t = torch.tensor([[3, 1, 2], [1, 3, 3]])
    same(ember.unique(E(t), **kw), torch.unique(t, **kw))
    same(E(t).unique(**kw), t.unique(**kw))
    rows = torch.tensor([[1, 2], [0, 5], [1, 2], [0, 4]])
    same(ember.unique(E(rows), dim=0, **kw), torch.unique(rows, dim=0, **kw))
    same(ember.unique(E(rows), dim=1, **kw), torch.unique(rows, dim=1, **kw))
    c = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    same(ember.unique_consecutive(E(c), **kw), torch.unique_consecutive(c, **kw))
    same(E(rows).unique_consecutive(dim=0, **kw), rows.unique_consecutive(dim=0, **kw))


def test_unique_dtypes_and_empty():
    for t in [torch.tensor([2.5, -1.0, 2.5]), torch.tensor([True, False, True]), torch.zeros(0, dtype=torch.int64)]:
        same(ember.unique(E(t), return_counts=True), torch.unique(t, return_counts=True))


def test_searchsorted_and_bucketize():
    seq = torch.tensor([1, 3, 5, 7, 9])
    v = torch.tensor([[3, 6, 9], [3, 6, 10]])
    for kw in [{}, {"right": True}, {"side": "right"}, {"out_int32": True}]:
        same(ember.searchsorted(E(seq), E(v), **kw), torch.searchsorted(seq, v, **kw))
    seq2 = torch.tensor([[1, 3, 5], [2, 4, 6]])
    same(ember.searchsorted(E(seq2), E(torch.tensor([[2, 5], [1, 7]]))),
         torch.searchsorted(seq2, torch.tensor([[2, 5], [1, 7]])))
    same(ember.searchsorted(E(seq), 4), torch.searchsorted(seq, 4))
    unsorted = torch.tensor([5, 1, 9, 3])
    sorter = torch.argsort(unsorted)
    same(ember.searchsorted(E(unsorted), E(torch.tensor([4, 9])), sorter=E(sorter)),
         torch.searchsorted(unsorted, torch.tensor([4, 9]), sorter=sorter))
    same(ember.bucketize(E(v), E(seq)), torch.bucketize(v, seq))
    same(ember.bucketize(E(v.float()), E(seq), right=True), torch.bucketize(v.float(), seq, right=True))
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        ember.searchsorted(E(seq), E(v), right=True, side="left")
    with pytest.raises(RuntimeError, match=r"boundaries tensor must be 1 dimension, but got dim\(2\)"):
        ember.bucketize(E(v), E(seq2))


def test_mode_named_result():
    t = torch.tensor([[1, 2, 2, 1, 3], [4, 4, 0, 0, 4]])
    r = E(t).mode()
    assert type(r).__name__ == "mode" and type(r).__module__.startswith("ember.return_types")
    same((r.values, r.indices), t.mode())
    same(ember.mode(E(t), 0, keepdim=True), torch.mode(t, 0, keepdim=True))
    with pytest.raises(IndexError, match=r"mode\(\): Expected reduction dim 0 to have non-zero size."):
        ember.mode(ember.zeros(0))


def test_quantile():
    t = torch.randn(4, 6, dtype=torch.float64)
    for q in [0.0, 0.25, 1.0, torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64)]:
        qe = E(q) if isinstance(q, torch.Tensor) else q
        for kw in [{}, {"dim": 1}, {"dim": 0, "keepdim": True}, {"interpolation": "nearest"},
                   {"dim": -1, "interpolation": "midpoint"}, {"keepdim": True}]:
            same(ember.quantile(E(t), qe, **kw), torch.quantile(t, q, **kw))
    t[0, 1] = float("nan")
    same(ember.nanquantile(E(t), 0.5, dim=1), torch.nanquantile(t, 0.5, dim=1))
    same(E(t).quantile(0.5, dim=1), t.quantile(0.5, dim=1))
    with pytest.raises(RuntimeError, match=r"quantile\(\) q must be in the range \[0, 1\] but got 1.5"):
        ember.quantile(E(t), 1.5)
    with pytest.raises(RuntimeError, match=r"quantile\(\) input tensor must be either float or double dtype"):
        ember.quantile(ember.tensor([1, 2]), 0.5)


def test_histc_bincount():
    t = torch.tensor([1., 2, 1, 4, -3, 7])
    same(ember.histc(E(t), bins=4, min=0, max=3), torch.histc(t, bins=4, min=0, max=3))
    same(ember.histc(E(t), bins=5), torch.histc(t, bins=5))
    i = torch.tensor([0, 1, 1, 4])
    same(ember.bincount(E(i)), torch.bincount(i))
    same(ember.bincount(E(i), minlength=7), torch.bincount(i, minlength=7))
    same(ember.bincount(E(i), E(torch.tensor([0.5, 1., 2., 3.]))), torch.bincount(i, torch.tensor([0.5, 1., 2., 3.])))
    with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative integral inputs."):
        ember.bincount(ember.tensor([-1]))
    with pytest.raises(RuntimeError, match="\"histogram_cpu\" not implemented for 'Long'"):
        ember.histc(ember.tensor([1, 2]))


def test_argsort_msort():
    t = torch.randn(3, 5)
    same(E(t).argsort(), t.argsort())
    same(ember.argsort(E(t), dim=0, descending=True), torch.argsort(t, dim=0, descending=True))
    same(ember.msort(E(t)), torch.msort(t))
    d = torch.tensor([2, 1, 2, 1, 2])
    same(ember.argsort(E(d), stable=True), torch.argsort(d, stable=True))
