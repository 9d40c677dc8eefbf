"""The BLAS family beyond mm / bmm / addmm (src/ops/blas_more.cpp) against torch 1.13: addmv, addr,
baddbmm, addbmm and the in-place forms (addmm_ too), with beta / alpha, dtype rules, errors,
gradients (grad_fn names, values, gradcheck) and meta tensors."""
import numpy as np
import pytest
import torch

import ember
from namesa_testing import E, same_error  # noqa: F401



def close(e, t, rtol=1e-5, atol=1e-6):
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1], (e.dtype, t.dtype)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


g = torch.Generator().manual_seed(7)


def rnd(*shape, dtype=torch.float64):
    return torch.randn(shape, generator=g, dtype=dtype)


CASES = [
    ("addmv", (3,), (3, 4), (4,)), ("addmv", (1,), (3, 4), (4,)), ("addmv", (), (3, 4), (4,)),
    ("addmv", (3,), (3, 0), (0,)),
    ("addr", (3, 4), (3,), (4,)), ("addr", (4,), (3,), (4,)), ("addr", (), (3,), (4,)),
    ("baddbmm", (2, 3, 5), (2, 3, 4), (2, 4, 5)), ("baddbmm", (3, 5), (2, 3, 4), (2, 4, 5)),
    ("baddbmm", (2, 3, 5), (2, 3, 0), (2, 0, 5)),
    ("addbmm", (3, 5), (2, 3, 4), (2, 4, 5)), ("addbmm", (5,), (2, 3, 4), (2, 4, 5)),
    ("addbmm", (3, 5), (0, 3, 4), (0, 4, 5)),
]


@pytest.mark.parametrize("name,s0,s1,s2", CASES)
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, -2.0), (0, 3)])
def test_values_match_torch(name, s0, s1, s2, beta, alpha):
    a, b, c = rnd(*s0), rnd(*s1), rnd(*s2)
    # (beta 0 ignores self: compared with torch's result for a zero self, as torch 1.13's baddbmm
    # with beta 0 reads its uninitialised output at times and returns NaN there)
    want = getattr(torch, name)(a if beta else torch.zeros_like(a), b, c, beta=beta if beta else 1, alpha=alpha)
    close(getattr(ember, name)(E(a), E(b), E(c), beta=beta, alpha=alpha), want)
    close(getattr(E(a), name)(E(b), E(c), beta=beta, alpha=alpha), want)


@pytest.mark.parametrize("name,s0,s1,s2", CASES)
def test_float32_and_column_major_operands(name, s0, s1, s2):
    a, b, c = rnd(*s0, dtype=torch.float32), rnd(*s1, dtype=torch.float32), rnd(*s2, dtype=torch.float32)
    # the product's first operand column-major (its last two dims transposed in memory)
    tb = b.transpose(-1, -2).contiguous().transpose(-1, -2) if b.dim() >= 2 else b
    eb = E(b).transpose(-1, -2).contiguous().transpose(-1, -2) if b.dim() >= 2 else E(b)
    want = getattr(torch, name)(a, tb, c, beta=0.25, alpha=1.5)
    close(getattr(ember, name)(E(a), eb, E(c), beta=0.25, alpha=1.5), want, rtol=1e-4, atol=1e-5)


def test_beta_zero_ignores_nan_in_self():
    nan = float("nan")
    close(ember.addmv(ember.full((2,), nan), ember.ones(2, 3), ember.ones(3), beta=0),
          torch.addmv(torch.full((2,), nan), torch.ones(2, 3), torch.ones(3), beta=0))
    close(ember.addr(ember.full((2, 2), nan), ember.ones(2), ember.ones(2), beta=0),
          torch.addr(torch.full((2, 2), nan), torch.ones(2), torch.ones(2), beta=0))
    close(ember.baddbmm(ember.full((1, 2, 2), nan), ember.ones(1, 2, 3), ember.ones(1, 3, 2), beta=0),
          torch.bmm(torch.ones(1, 2, 3), torch.ones(1, 3, 2)))
    close(ember.addbmm(ember.full((2, 2), nan), ember.ones(1, 2, 3), ember.ones(1, 3, 2), beta=0),
          torch.addbmm(torch.full((2, 2), nan), torch.ones(1, 2, 3), torch.ones(1, 3, 2), beta=0))


def test_integer_and_bool_products():
    i = lambda lib, *s: lib.ones(*s, dtype=lib.int64)  # noqa: E731
    for name, shapes in [("baddbmm", ((2, 2, 2), (2, 2, 3), (2, 3, 2))), ("addbmm", ((2, 2), (2, 2, 3), (2, 3, 2))),
                         ("addmv", ((2,), (2, 3), (3,))), ("addr", ((2, 3), (2,), (3,)))]:
        want = getattr(torch, name)(*[i(torch, *s) for s in shapes], beta=2, alpha=3)
        got = getattr(ember, name)(*[i(ember, *s) for s in shapes], beta=2, alpha=3)
        assert got.dtype == ember.int64 and got.tolist() == want.tolist()
    b = torch.tensor([True, False])
    for beta in (True, False):
        want = torch.addr(torch.tensor([[False, True], [False, False]]), b, torch.tensor([True, True]), beta=beta)
        got = ember.addr(ember.tensor([[False, True], [False, False]]), ember.tensor([True, False]),
                         ember.tensor([True, True]), beta=beta)
        assert got.tolist() == want.tolist()


def test_addr_promotes_and_addmv_takes_vecs_dtype():
    m, u, v = rnd(2, 3, dtype=torch.float32), rnd(2, dtype=torch.float32), rnd(3, dtype=torch.float64)
    close(ember.addr(E(m), E(u), E(v)), torch.addr(m, u, v))
    s, mat, vec = rnd(2), rnd(2, 3, dtype=torch.float32), rnd(3, dtype=torch.float32)
    close(ember.addmv(E(s), E(mat), E(vec)), torch.addmv(s, mat, vec))


ERRORS = [
    ("addmv", ((2,), (2, 3), (4,)), {}), ("addmv", ((3,), (2, 3), (3,)), {}), ("addmv", ((2,), (2, 3), (1, 3)), {}),
    ("addmv", ((2, 2), (2, 3), (3,)), {}),
    ("addr", ((3, 3), (2,), (3,)), {}), ("addr", ((2, 3), (2, 1), (3,)), {}), ("addr", ((2, 3), (2,), (3, 1)), {}),
    ("baddbmm", ((4, 2, 5), (4, 2, 3), (4, 4, 5)), {}), ("baddbmm", ((4, 2, 5), (4, 2, 3), (3, 3, 5)), {}),
    ("baddbmm", ((3, 2, 5), (4, 2, 3), (4, 3, 5)), {}),
    ("addbmm", ((3, 5), (4, 2, 3), (4, 3, 5)), {}), ("addbmm", ((2, 5), (4, 2, 3), (3, 3, 5)), {}),
    ("addbmm", ((2, 5), (4, 2, 3), (4, 4, 5)), {}),
]


@pytest.mark.parametrize("name,shapes,kw", ERRORS)
def test_errors_match_torch(name, shapes, kw):
    args = [rnd(*s, dtype=torch.float32) for s in shapes]
    with pytest.raises(RuntimeError) as want:
        getattr(torch, name)(*args, **kw)
    with pytest.raises(RuntimeError) as got:
        getattr(ember, name)(*[E(a) for a in args], **kw)
    assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0].replace("torch.", "ember.")


def test_dtype_errors_and_scalar_checks_match_torch():
    f, d = torch.float32, torch.float64
    calls = [
        ("addmv", [rnd(2, dtype=f), rnd(2, 3, dtype=f), rnd(3, dtype=d)], {}),
        ("baddbmm", [rnd(1, 2, 2, dtype=f), rnd(1, 2, 3, dtype=f), rnd(1, 3, 2, dtype=d)], {}),
        ("addbmm", [rnd(2, 2, dtype=d), rnd(1, 2, 3, dtype=f), rnd(1, 3, 2, dtype=f)], {}),
        ("addbmm", [rnd(2, 2, dtype=f), rnd(1, 2, 3, dtype=d), rnd(1, 3, 2, dtype=f)], {}),
        ("addr", [torch.ones(2, 2, dtype=torch.long), torch.ones(2, dtype=torch.long), torch.ones(2, dtype=torch.long)],
         {"beta": 0.5}),
        ("addr", [torch.ones(2, 2, dtype=torch.long), torch.ones(2, dtype=torch.long), torch.ones(2, dtype=torch.long)],
         {"alpha": 1.5}),
        ("addr", [torch.ones(2, 2), torch.ones(2), torch.ones(2)], {"beta": True}),
        ("addmv", [torch.ones(2, dtype=torch.bool), torch.ones(2, 3, dtype=torch.bool), torch.ones(3, dtype=torch.bool)], {}),
        ("baddbmm", [torch.ones(1, 2, 2, dtype=torch.bool), torch.ones(1, 2, 3, dtype=torch.bool),
                     torch.ones(1, 3, 2, dtype=torch.bool)], {}),
    ]
    for name, args, kw in calls:
        with pytest.raises(RuntimeError) as want:
            getattr(torch, name)(*args, **kw)
        with pytest.raises(RuntimeError) as got:
            getattr(ember, name)(*[E(a) for a in args], **kw)
        assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0], name


@pytest.mark.parametrize("name,s0,s1,s2", [
    ("addmm_", (3, 5), (3, 4), (4, 5)), ("addmv_", (3,), (3, 4), (4,)), ("addr_", (3, 4), (3,), (4,)),
    ("baddbmm_", (2, 3, 5), (2, 3, 4), (2, 4, 5)), ("addbmm_", (3, 5), (2, 3, 4), (2, 4, 5))])
def test_inplace_forms(name, s0, s1, s2):
    a, b, c = rnd(*s0), rnd(*s1), rnd(*s2)
    want = getattr(a.clone(), name)(b, c, beta=0.5, alpha=2)
    e = E(a)
    v = e._version
    r = getattr(e, name)(E(b), E(c), beta=0.5, alpha=2)
    assert r is e and e._version > v
    close(e, want)


@pytest.mark.parametrize("name,s0,s1,s2", [
    ("addmm_", (5,), (3, 4), (4, 5)), ("addmv_", (1,), (3, 4), (4,)), ("addr_", (1, 4), (3,), (4,)),
    ("baddbmm_", (1, 3, 5), (2, 3, 4), (2, 4, 5))])
def test_inplace_refuses_a_broadcast_self_and_leaves_it(name, s0, s1, s2):
    a, b, c = rnd(*s0), rnd(*s1), rnd(*s2)
    with pytest.raises(RuntimeError) as want:
        getattr(a.clone(), name)(b, c)
    e = E(a)
    with pytest.raises(RuntimeError) as got:
        getattr(e, name)(E(b), E(c))
    assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]
    np.testing.assert_array_equal(e.numpy(), a.numpy())


def test_addbmm_inplace_keeps_selfs_shape():
    # torch 1.13 resizes a broadcastable self of addbmm_ to the product's shape (its out= path
    # resizes the output); ember refuses it like the other in-place products and leaves self.
    e = ember.zeros(5)
    with pytest.raises(RuntimeError, match=r"Bad in-place call: input tensor size \[5\] and output tensor size \[3, 5\]"):
        e.addbmm_(ember.ones(2, 3, 4), ember.ones(2, 4, 5))
    assert e.shape == (5,)


@pytest.mark.parametrize("name,s0,s1,s2", [c for c in CASES if 0 not in c[2]])
def test_gradients_match_torch(name, s0, s1, s2):
    a, b, c = (rnd(*s).requires_grad_() for s in (s0, s1, s2))
    out = getattr(torch, name)(a, b, c, beta=0.5, alpha=-1.5)
    go = rnd(*out.shape)
    out.backward(go)
    ea, eb, ec = (E(t).requires_grad_() for t in (a, b, c))
    eo = getattr(ember, name)(ea, eb, ec, beta=0.5, alpha=-1.5)
    assert eo.grad_fn.name() == out.grad_fn.name()
    eo.backward(E(go))
    for e, t in ((ea, a), (eb, b), (ec, c)):
        close(e.grad, t.grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,s0,s1,s2", [("addmv", (3,), (3, 4), (4,)), ("addr", (3, 4), (3,), (4,)),
                                           ("baddbmm", (3, 5), (2, 3, 4), (2, 4, 5)),
                                           ("addbmm", (5,), (2, 3, 4), (2, 4, 5))])
def test_gradcheck_and_gradgradcheck(name, s0, s1, s2):
    args = [E(rnd(*s)).requires_grad_() for s in (s0, s1, s2)]
    fn = lambda *a: getattr(ember, name)(*a, beta=0.7, alpha=1.3)  # noqa: E731
    assert ember.autograd.gradcheck(fn, args)
    assert ember.autograd.gradgradcheck(fn, args)


def test_inplace_gradient_and_grad_fn():
    a = rnd(3, 5).requires_grad_()
    b, c = rnd(3, 4).requires_grad_(), rnd(4, 5).requires_grad_()
    t = a.clone()
    t.addmm_(b, c, beta=2)
    t.sum().backward()
    ea, eb, ec = (E(x).requires_grad_() for x in (a, b, c))
    et = ea.clone()
    et.addmm_(eb, ec, beta=2)
    assert et.grad_fn.name() == t.grad_fn.name() == "AddmmBackward0"
    et.sum().backward()
    for e, x in ((ea, a), (eb, b), (ec, c)):
        close(e.grad, x.grad, rtol=1e-10)


def test_meta_shapes():
    m = lambda *s: ember.empty(*s, device="meta")  # noqa: E731
    assert ember.addmv(m(3), m(3, 4), m(4)).shape == (3,)
    assert ember.addr(m(3, 4), m(3), m(4)).shape == (3, 4)
    assert ember.baddbmm(m(2, 3, 5), m(2, 3, 4), m(2, 4, 5)).shape == (2, 3, 5)
    out = ember.addbmm(m(3, 5), m(2, 3, 4), m(2, 4, 5))
    assert out.shape == (3, 5) and out.device.type == "meta"
    with pytest.raises(RuntimeError, match="size mismatch"):
        ember.addmv(m(3), m(3, 4), m(5))


def test_out_argument():
    a, b, c = rnd(3), rnd(3, 4), rnd(4)
    out = ember.empty(0, dtype=ember.float64)
    r = ember.addmv(E(a), E(b), E(c), out=out)
    assert r is out
    close(out, torch.addmv(a, b, c))


def test_deprecated_positional_beta_alpha():
    import warnings
    m, v, s = rnd(2, 3), rnd(3), rnd(2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        close(ember.addmv(0.5, E(s), 2, E(m), E(v)), torch.addmv(0.5, s, 2, m, v))
        close(ember.addmv(0.5, E(s), E(m), E(v)), torch.addmv(0.5, s, m, v))
        close(ember.addr(2, E(m), E(s), E(v)), torch.addr(2, m, s, v))
        b1, b2, c = rnd(2, 2, 3), rnd(2, 3, 4), rnd(2, 4)
        close(ember.addbmm(0.5, E(c), -1, E(b1), E(b2)), torch.addbmm(0.5, c, -1, b1, b2))
        close(ember.baddbmm(0.5, E(c), E(b1), E(b2)), torch.baddbmm(0.5, c, b1, b2))
    # (the deprecation warning is issued once per process, so a test run earlier may have had it)
    assert all(str(x.message).startswith("This overload of") for x in w if "deprecated" in str(x.message))
