"""Views and shape queries of the shape family against torch 1.13: view identity (_base,
storage sharing, version counters), the ops torch 1.13 lacks (squeeze.dims, any.dims,
sym_is_contiguous) against their definitions, resize_, and the Python forms of
torch.functional (atleast_Nd, broadcast_tensors, meshgrid)."""
import warnings

import numpy as np
import pytest
import torch

import ember


def E(t):
    return ember.tensor(t.numpy()) if t.dtype != torch.bfloat16 else ember.tensor(t.float().numpy()).bfloat16()


def same(e, t):
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_diagonal_is_a_view_sharing_storage():
    t = torch.arange(24.).reshape(2, 3, 4)
    e = E(t)
    for args in [(), (1,), (-1, 0, 2), (2, -1, 1), (5,)]:
        d, td = e.diagonal(*args), t.diagonal(*args)
        same(d, td)
        assert d._base is e
        assert d.stride() == td.stride() and d.storage_offset() == td.storage_offset()
    d = e.diagonal()
    d.add_(100)
    assert e[0, 0, 0].item() == 100.0 and e._version == d._version


def test_diagonal_gradient_and_errors():
    x = ember.randn(3, 4, requires_grad=True)
    x.diagonal(1).sum().backward()
    want = torch.zeros(3, 4)
    want.diagonal(1).fill_(1)
    same(x.grad, want)
    assert x.diagonal().grad_fn.name() == "DiagonalBackward0"
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 0, -2"):
        ember.zeros(2, 2).diagonal(0, 0, -2)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)"):
        ember.zeros(3).diagonal()


def test_squeeze_dims_keeps_non_singleton_dims():
    t = torch.zeros(1, 3, 1, 2)
    e = E(t)
    for dims in [[0], [0, 2], [-2, 1], [], [3]]:
        s = ember.ops.aten.squeeze.dims(e, dims)
        expect = t
        for d in sorted({d % 4 for d in dims if t.shape[d] == 1}, reverse=True):
            expect = expect.squeeze(d)
        assert tuple(s.shape) == tuple(expect.shape)
        assert s._base is e
    x = ember.randn(1, 3, 1, requires_grad=True)
    y = ember.ops.aten.squeeze.dims(x, [0, 2])
    assert y.grad_fn.name() == "SqueezeBackward2"
    y.sum().backward()
    assert tuple(x.grad.shape) == (1, 3, 1)
    assert ember.ops.aten.squeeze.dims(ember.tensor(2.0), [0]).shape == ()


def test_any_dims_matches_repeated_any():
    t = torch.tensor([[[0, 1], [0, 0]], [[0, 0], [0, 0]], [[1, 0], [0, 0]]])
    e = E(t)
    for dims, keep in [([0, 2], False), ([1], True), ([-1, 0], True), (None, False), (None, True), ([], False)]:
        got = ember.ops.aten.any.dims(e, dims, keep)
        if not dims:
            want = t.any()
            want = want.reshape([1] * t.dim()) if keep else want
        else:
            want = t
            for d in sorted({d % 3 for d in dims}, reverse=True):
                want = want.any(d, keep)
        same(got, want)


def test_sym_queries_return_the_concrete_values():
    e = ember.zeros(4, 6)[1:, ::2]
    aten = ember.ops.aten
    assert aten.sym_size.int(e, 0) == 3 and aten.sym_size.int(e, -1) == 3
    assert aten.sym_stride.int(e, 1) == 2 and aten.sym_stride.int(e, 0) == 6
    assert aten.sym_numel.default(e) == 9
    assert aten.sym_storage_offset.default(e) == 6
    assert aten.sym_is_contiguous.default(e) is False
    assert aten.sym_is_contiguous.default(ember.zeros(2, 3)) is True
    assert aten.sym_is_contiguous.default(ember.zeros(2, 4, 5, 3).permute(0, 3, 1, 2),
                                          ember.channels_last) is True


def test_resize_():
    e = ember.arange(6.)
    t = torch.arange(6.)
    same(e.resize_(2, 3), t.resize_(2, 3))
    assert e.resize_(2, 3) is e
    e.resize_(4)
    same(e, torch.arange(4.))
    e.resize_(3, 4)  # grows: the first elements keep their values
    same(e.reshape(-1)[:4], torch.arange(4.))
    assert tuple(e.shape) == (3, 4) and e.is_contiguous()
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        ember.zeros(3, requires_grad=True).resize_(2)
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -1"):
        ember.zeros(3).resize_(-1)


def test_movedim_swapaxes_broadcast_to_are_views():
    t = torch.arange(24).reshape(2, 3, 4)
    e = E(t)
    for f in [lambda x: x.movedim(0, -1), lambda x: x.movedim((0, 1), (2, 0)), lambda x: x.moveaxis(1, 0),
              lambda x: x.swapaxes(0, 2), lambda x: x.swapdims(1, 2), lambda x: x[:1].broadcast_to(3, 2, 3, 4)]:
        got, want = f(e), f(t)
        same(got, want)
        assert got.stride() == want.stride()
        assert got._base is e
    with pytest.raises(RuntimeError, match=r"movedim: repeated dim in `source` \(\[0, 0\]\)"):
        e.movedim((0, 0), (1, 2))


def test_atleast_and_broadcast_tensors():
    a, b = ember.tensor(1.0), ember.tensor([1.0, 2.0])
    assert ember.atleast_1d(a).shape == (1,)
    assert ember.atleast_2d(b).shape == (1, 2)
    assert ember.atleast_3d(b).shape == (1, 2, 1)
    assert ember.atleast_3d(ember.zeros(2, 3)).shape == (2, 3, 1)
    m = ember.zeros(2, 3, 4)
    assert ember.atleast_2d(m) is m
    out = ember.atleast_2d(a, b)
    assert isinstance(out, tuple) and [tuple(o.shape) for o in out] == [(1, 1), (1, 2)]
    x, y = ember.broadcast_tensors(ember.zeros(3, 1), ember.zeros(4))
    assert x.shape == (3, 4) and y.shape == (3, 4) and x._base is not None and x.stride() == (1, 0)


def test_meshgrid_forms():
    a, b = torch.tensor([1, 2, 3]), torch.tensor([4, 5])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        grids = ember.meshgrid(E(a), E(b))
    assert any("indexing argument" in str(x.message) for x in w)
    for got, want in zip(grids, torch.meshgrid(a, b, indexing="ij")):
        same(got, want)
    for indexing in ("ij", "xy"):
        for got, want in zip(ember.meshgrid([E(a), E(b)], indexing=indexing), torch.meshgrid(a, b, indexing=indexing)):
            same(got, want)
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij", but received: ab'):
        ember.meshgrid(E(a), indexing="ab")


def test_tensor_split_family_views():
    t = torch.arange(14).reshape(2, 7)
    e = E(t)
    for got, want in zip(e.tensor_split(3, 1), t.tensor_split(3, 1)):
        same(got, want)
        assert got._base is e
    for got, want in zip(e.tensor_split([1, 5], 1), t.tensor_split([1, 5], 1)):
        same(got, want)
    for got, want in zip(e.tensor_split(ember.tensor([2, 3]), 1), t.tensor_split(torch.tensor([2, 3]), 1)):
        same(got, want)
    for got, want in zip(ember.hsplit(E(torch.arange(8)), 4), torch.hsplit(torch.arange(8), 4)):
        same(got, want)
    with pytest.raises(RuntimeError, match="ember.hsplit attempted to split along dimension 1, but the size of the "
                                           "dimension 7 is not divisible by the split_size 2!"):
        ember.hsplit(e, 2)
    with pytest.raises(RuntimeError, match="ember.vsplit requires a tensor with at least 2 dimension, but got a "
                                           "tensor with 1 dimensions!"):
        ember.vsplit(ember.zeros(4), 2)


def test_meta_shapes():
    m = ember.empty(3, 4, device="meta")
    assert m.diagonal().shape == (3,) and m.diagonal().is_meta
    assert m.flip(0).shape == (3, 4) and m.flip(0).is_meta
    assert m.repeat(2, 1, 2).shape == (2, 3, 8)
    assert m.tril().is_meta and m.roll(1, 0).shape == (3, 4)
    assert m.movedim(0, 1).shape == (4, 3)
    assert ember.index_add(m, 0, ember.tensor([0, 1]), ember.empty(2, 4, device="meta")).is_meta
