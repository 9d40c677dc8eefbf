"""unfold, adjoint / H, the in-place views (squeeze_, unsqueeze_, t_, transpose_, swapaxes_,
swapdims_, as_strided_), as_strided_scatter, the unsafe splits, the *_copy family, resize_as_ and
the deprecated resize / resize_as, against torch 1.13."""
import warnings

import numpy as np
import pytest
import torch

import ember
from namesa_testing import E, same_error  # noqa: F401



def same(e, t):
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-12)



# ---- unfold ----

@pytest.mark.parametrize("shape,args", [((10,), (0, 3, 2)), ((10,), (0, 3, 3)), ((4, 5), (1, 2, 1)), ((4, 5), (-2, 4, 1)),
                                        ((2, 3, 4), (2, 4, 4)), ((), (0, 1, 1)), ((), (-1, 0, 1)), ((3, 0), (1, 0, 1))])
def test_unfold_is_a_view_with_torchs_geometry(shape, args):
    t = torch.arange(float(np.prod(shape))).reshape(shape)
    e = E(t)
    u, tu = e.unfold(*args), t.unfold(*args)
    same(u, tu)
    assert u._base is e
    if t.numel():
        assert u.stride() == tu.stride()


def test_unfold_errors():
    t = torch.arange(10.)
    for args in [(0, 11, 1), (0, 3, 0), (1, 2, 1)]:
        same_error(lambda: t.unfold(*args), lambda: E(t).unfold(*args), (RuntimeError, IndexError))


@pytest.mark.parametrize("shape,args", [((10,), (0, 3, 2)), ((10,), (0, 4, 1)), ((4, 5), (1, 2, 3)), ((), (0, 1, 1))])
def test_unfold_gradient(shape, args):
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    out = x.unfold(*args)
    go = torch.randn(out.shape, dtype=torch.float64)
    out.backward(go)
    ex = E(x).requires_grad_()
    eo = ex.unfold(*args)
    assert eo.grad_fn.name() == "UnfoldBackward0"
    eo.backward(E(go))
    same(ex.grad, x.grad)
    assert ember.autograd.gradgradcheck(lambda a: a.unfold(*args), [E(x).requires_grad_()])


# ---- adjoint and H ----

def test_adjoint_and_H():
    x = torch.randn(4, 2, 3, dtype=torch.float64)
    same(E(x).adjoint(), x.adjoint())
    same(ember.adjoint(E(x)), torch.adjoint(x))
    same(E(x[0]).H, x[0].H)
    assert E(torch.tensor(2.)).H.item() == 2.0
    c = torch.randn(2, 3, dtype=torch.complex128)
    same(ember.from_numpy(c.numpy()).adjoint().resolve_conj(), c.adjoint().resolve_conj())
    same_error(lambda: torch.randn(3).adjoint(), lambda: ember.randn(3).adjoint())
    same_error(lambda: torch.randn(3).H, lambda: ember.randn(3).H)
    same_error(lambda: torch.randn(2, 3, 4).H, lambda: ember.randn(2, 3, 4).H)


# ---- in-place views ----

@pytest.mark.parametrize("name,shape,args,node", [
    ("squeeze_", (3, 1, 2), (), "SqueezeBackward2"), ("squeeze_", (3, 1, 2), (1,), "SqueezeBackward3"),
    ("unsqueeze_", (3, 2), (1,), "UnsqueezeBackward1"), ("t_", (3, 2), (), "TBackward1"),
    ("transpose_", (2, 3, 4), (0, 2), "TransposeBackward1"), ("swapaxes_", (2, 3), (0, 1), "TransposeBackward1"),
    ("swapdims_", (2, 3, 4), (-1, 0), "TransposeBackward1")])
def test_inplace_views(name, shape, args, node):
    t = torch.arange(float(np.prod(shape))).reshape(shape)
    e = E(t)
    v = e._version
    assert getattr(e, name)(*args) is e
    getattr(t, name)(*args)
    same(e, t)
    assert e.stride() == t.stride() and e._version == v + 1
    # gradients flow back through the changed geometry
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    y = x.clone()
    getattr(y, name)(*args)
    go = torch.randn(y.shape, dtype=torch.float64)
    y.backward(go)
    ex = E(x).requires_grad_()
    ey = ex.clone()
    getattr(ey, name)(*args)
    assert ey.grad_fn.name() == y.grad_fn.name() == node
    ey.backward(E(go))
    same(ex.grad, x.grad)


@pytest.mark.parametrize("name,args", [("squeeze_", ()), ("squeeze_", (1,)), ("unsqueeze_", (0,)), ("t_", ()),
                                       ("transpose_", (0, 1)), ("as_strided_", ((2,), (2,)))])
def test_inplace_views_of_views_carry_gradients_to_the_base(name, args):
    grads = []
    for lib in (torch, ember):
        x = lib.arange(6., dtype=lib.float64, requires_grad=True)
        v = x.clone().view(3, 2)[:, :1]
        getattr(v, name)(*args)
        weight = lib.arange(1., 1. + v.numel(), dtype=lib.float64).reshape(v.shape)
        (v * weight).sum().backward()
        grads.append(x.grad)
    same(grads[1], grads[0])


def test_inplace_views_on_leaves_and_errors():
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        ember.zeros(3, 1, requires_grad=True).squeeze_()
    same_error(lambda: torch.zeros(2, 3, 4).t_(), lambda: ember.zeros(2, 3, 4).t_())
    same_error(lambda: torch.zeros(2, 3).unsqueeze_(5), lambda: ember.zeros(2, 3).unsqueeze_(5), IndexError)
    a = ember.zeros(3, 1)
    b = a[1:]
    b.squeeze_()
    assert b.shape == (2,) and a.shape == (3, 1) and b._base is a
    assert ember.zeros(3).t_().shape == (3,)


def test_as_strided_():
    t = torch.arange(12.)
    e = E(t)
    assert e.as_strided_((2, 2), (1, 3), 1) is e
    t.as_strided_((2, 2), (1, 3), 1)
    same(e, t)
    assert e.stride() == t.stride() and e.storage_offset() == 1
    x = torch.randn(6, dtype=torch.float64, requires_grad=True)
    y = x.clone()
    y.as_strided_((2, 2), (2, 1))
    y.sum().backward()
    ex = E(x).requires_grad_()
    ey = ex.clone()
    ey.as_strided_((2, 2), (2, 1))
    ey.sum().backward()
    same(ex.grad, x.grad)


def test_as_strided_scatter():
    a, src = torch.zeros(3, 4), torch.arange(4.).reshape(2, 2)
    for size, stride, off in [((2, 2), (1, 2), 1), ((2, 2), (4, 1), None), ((2, 2), (4, 1), 5)]:
        same(ember.as_strided_scatter(E(a), E(src), size, stride, off), torch.as_strided_scatter(a, src, size, stride, off))
    same_error(lambda: torch.as_strided_scatter(a, torch.zeros(3), (2, 2), (1, 2)),
               lambda: ember.as_strided_scatter(E(a), ember.zeros(3), (2, 2), (1, 2)))
    # (torch 1.13's own backward of as_strided_scatter returns uninitialised memory for self: the
    # derivative is compared instead) d/dself: w outside the written region, d/dsrc: w inside it
    w = torch.arange(12.).reshape(3, 4).double()
    ex, es = ember.randn(3, 4, dtype=ember.float64, requires_grad=True), ember.randn(2, 2, dtype=ember.float64, requires_grad=True)
    (ember.as_strided_scatter(ex, es, (2, 2), (1, 2), 1) * E(w)).sum().backward()
    want_x = w.clone()
    want_x.view(-1).as_strided((2, 2), (1, 2), 1).zero_()
    same(ex.grad, want_x)
    same(es.grad, w.reshape(-1).as_strided((2, 2), (1, 2), 1))
    assert ember.autograd.gradcheck(lambda a, b: ember.as_strided_scatter(a, b, (2, 2), (1, 2), 1),
                                    [ember.randn(3, 4, dtype=ember.float64, requires_grad=True),
                                     ember.randn(2, 2, dtype=ember.float64, requires_grad=True)])


@pytest.mark.parametrize("name,args", [("unsafe_chunk", (3,)), ("unsafe_chunk", (2, 1)), ("unsafe_split", (2,)),
                                       ("unsafe_split", (3, 1)), ("unsafe_split_with_sizes", ([1, 3],)),
                                       ("unsafe_split_with_sizes", ([2, 2], 1))])
def test_unsafe_splits(name, args):
    t = torch.arange(16.).reshape(4, 4)
    got, want = getattr(ember, name)(E(t), *args), getattr(torch, name)(t, *args)
    assert len(got) == len(want)
    for e, w in zip(got, want):
        same(e, w)
    x = ember.randn(4, 4, requires_grad=True)
    pieces = getattr(x.clone(), name)(*args)
    pieces[0].mul_(2)  # unlike split's outputs, these may be written in place
    sum(p.sum() for p in pieces).backward()
    assert x.grad is not None


# ---- the *_copy family ----

COPIES = [("view_copy", (3, 4), ([4, 3],)), ("permute_copy", (2, 3, 4), ([2, 0, 1],)), ("select_copy", (3, 4), (1, -1)),
          ("slice_copy", (5, 4), (0, 1, 4, 2)), ("squeeze_copy", (3, 1, 2), ()), ("squeeze_copy", (3, 1, 2), (1,)),
          ("unsqueeze_copy", (3, 2), (0,)), ("t_copy", (3, 2), ()), ("transpose_copy", (2, 3, 4), (0, 2)),
          ("unfold_copy", (10,), (0, 3, 2)), ("expand_copy", (3, 1), ([3, 4],)), ("diagonal_copy", (3, 4), (1,)),
          ("detach_copy", (3, 4), ()), ("alias_copy", (3, 4), ()), ("as_strided_copy", (3, 4), ((2, 2), (1, 2), 1)),
          ("_reshape_alias_copy", (3, 4), ((4, 3), (3, 1))), ("_neg_view_copy", (3, 4), ())]


@pytest.mark.parametrize("name,shape,args", COPIES)
def test_copies_are_fresh_contiguous_tensors(name, shape, args):
    t = torch.randn(shape, dtype=torch.float64)
    e = E(t)
    got, want = getattr(ember, name)(e, *args), getattr(torch, name)(t, *args)
    same(got, want)
    assert got.is_contiguous() and got._base is None
    if got.numel():
        assert got.untyped_storage().data_ptr() != e.untyped_storage().data_ptr()


@pytest.mark.parametrize("name,args", [("split_copy", (2,)), ("split_with_sizes_copy", ([1, 3],)), ("unbind_copy", (1,))])
def test_list_copies(name, args):
    t = torch.randn(4, 3, dtype=torch.float64)
    got, want = getattr(ember, name)(E(t), *args), getattr(torch, name)(t, *args)
    assert len(got) == len(want)
    for e, w in zip(got, want):
        same(e, w)
        assert e._base is None


def test_copies_carry_gradients():
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    (torch.permute_copy(x, [1, 0]) * torch.arange(12.).reshape(4, 3)).sum().backward()
    ex = E(x).requires_grad_()
    (ember.permute_copy(ex, [1, 0]) * ember.arange(12.).reshape(4, 3)).sum().backward()
    same(ex.grad, x.grad)


# ---- resize_as_, resize, resize_as ----

def test_resize_forms():
    e = ember.arange(6.)
    assert e.resize_as_(ember.zeros(2, 3)) is e and e.shape == (2, 3)
    t = torch.arange(6.).reshape(2, 3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = E(t).resize(3, 2)
    assert "non-inplace resize is deprecated" in str(w[0].message)
    same(r, t.resize(3, 2))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        same(E(t).resize_as(ember.ones(6)), t.resize_as(torch.ones(6)))
    assert "non-inplace resize_as is deprecated" in str(w[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda: t.resize(4, 2), lambda: E(t).resize(4, 2))
