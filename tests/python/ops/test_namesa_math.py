"""fmax / fmin, ldexp, frexp, igamma / igammac, isin, histogram / histogramdd, gradient, trapezoid /
trapz / cumulative_trapezoid, combinations, sum_to_size, index_reduce, fill_diagonal_ and cumsum_
against torch 1.13 (values, dtypes, errors, gradients)."""
import math

import numpy as np
import pytest
import torch

import ember
from namesa_testing import E, same_error  # noqa: F401



def same(e, t, rtol=1e-6, atol=1e-7):
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1], (e.dtype, t.dtype)
    if t.dtype == torch.bool or not t.dtype.is_floating_point:
        assert e.tolist() == t.tolist()
    else:
        np.testing.assert_allclose(e.detach().float().numpy(), t.detach().float().numpy(), rtol=rtol, atol=atol,
                                   equal_nan=True)



nan, inf = float("nan"), float("inf")
g = torch.Generator().manual_seed(3)


# ---- fmax / fmin ----

@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_nan_rules_and_dtypes(name):
    a = torch.tensor([1., nan, nan, -0., 2., inf])
    b = torch.tensor([nan, 2., nan, 0., -inf, 3.])
    same(getattr(ember, name)(E(a), E(b)), getattr(torch, name)(a, b))
    assert [math.copysign(1, v) for v in getattr(ember, name)(E(a), E(b)).tolist()[3:4]] == \
        [math.copysign(1, v) for v in getattr(torch, name)(a, b).tolist()[3:4]]
    for x, y in [(torch.tensor([1, 5, 3]), torch.tensor([2.5, 0., nan])), (torch.tensor([True, False]), torch.tensor([False, False])),
                 (torch.tensor([3, -2], dtype=torch.int8), torch.tensor([1, 1], dtype=torch.int16)),
                 (torch.randn(2, 3, generator=g).half(), torch.randn(3, generator=g).half())]:
        same(getattr(ember, name)(E(x), E(y)), getattr(torch, name)(x, y))
    same_error(lambda: getattr(torch, name)(torch.tensor([1j]), torch.tensor([1j])),
               lambda: getattr(ember, name)(ember.tensor([1j]), ember.tensor([1j])))


def test_fmax_gradient_goes_to_the_picked_operand():
    a = torch.tensor([1., nan, 3., 2.], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([nan, 2., 1., 2.], dtype=torch.float64, requires_grad=True)
    for name in ("fmax", "fmin"):
        ta, tb = a.detach().clone().requires_grad_(), b.detach().clone().requires_grad_()
        out = getattr(torch, name)(ta, tb)
        out.sum().backward()
        ea, eb = E(ta).requires_grad_(), E(tb).requires_grad_()
        eo = getattr(ember, name)(ea, eb)
        assert eo.grad_fn.name() == out.grad_fn.name()
        eo.sum().backward()
        same(ea.grad, ta.grad)
        same(eb.grad, tb.grad)


# ---- ldexp / frexp ----

def test_ldexp_promotes_like_torch():
    for x, e in [(torch.tensor([1., -2.5]), torch.tensor([3, -4])), (torch.tensor([1, 2]), torch.tensor([3, 4])),
                 (torch.tensor([1., 2.], dtype=torch.float64), torch.tensor([3, 4])),
                 (torch.tensor([1.5]).half(), torch.tensor([40]))]:
        same(ember.ldexp(E(x), E(e)), torch.ldexp(x, e))
        same(E(x).ldexp(E(e)), x.ldexp(e))
    t = ember.tensor([1., 2.])
    assert t.ldexp_(ember.tensor([1, 2])) is t and t.tolist() == [2., 8.]
    same_error(lambda: torch.tensor([1, 2]).ldexp_(torch.tensor([1, 2])),
               lambda: ember.tensor([1, 2]).ldexp_(ember.tensor([1, 2])))


def test_frexp_values_dtypes_and_errors():
    x = torch.tensor([0., 1., -3., 8.5, inf, -inf, nan, 1e-40, 3e38, -0.75])
    for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        xt = x.to(dt)
        m, e = ember.frexp(E(xt.float()).to(getattr(ember, str(dt).split(".")[1])))
        tm, te = torch.frexp(xt)
        same(m, tm)
        same(e, te)
    r = ember.frexp(ember.tensor([4.]))
    assert type(r).__name__ == "frexp" and r.mantissa.tolist() == [0.5] and r.exponent.tolist() == [3]
    same_error(lambda: torch.frexp(torch.tensor([1, 2])), lambda: ember.frexp(ember.tensor([1, 2])))


def test_frexp_gradient():
    x = torch.tensor([1.5, -6., 0.3], dtype=torch.float64, requires_grad=True)
    m, _ = torch.frexp(x)
    m.sum().backward()
    ex = E(x).requires_grad_()
    em, ee = ember.frexp(ex)
    assert em.grad_fn.name() == "FrexpBackward0" and not ee.requires_grad
    em.sum().backward()
    same(ex.grad, x.grad)


# ---- igamma / igammac ----

def _grid():
    a = torch.tensor([1e-3, 0.1, 0.5, 1., 1.5, 3., 9.5, 10., 25., 100., 199., 250., 1e3, 1e4, 1e5], dtype=torch.float64)
    x = torch.tensor([1e-4, 1e-2, 0.3, 0.9, 1., 1.1, 2.5, 9., 11., 24., 30., 95., 110., 240., 1e3, 1.01e4, 9.9e4, 1e6],
                     dtype=torch.float64)
    return a[:, None].expand(len(a), len(x)).contiguous(), x[None, :].expand(len(a), len(x)).contiguous()


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_igamma_accuracy_over_a_wide_range(name):
    a, x = _grid()
    want = getattr(torch, name)(a, x)
    got = getattr(ember, name)(E(a), E(x))
    # torch 1.13's Temme expansion (a ~ x) is good to ~1.5e-9 relative; elsewhere both agree to ~1e-12.
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=3e-9, atol=1e-300)
    assert (getattr(ember, name)(E(a.float()), E(x.float())).numpy() - want.float().numpy()).__abs__().max() < 1e-5


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_igamma_against_an_exact_reference(name):
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    a, x = _grid()
    got = getattr(ember, name)(E(a), E(x)).numpy()
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            ai, xi = mpmath.mpf(a[i, j].item()), mpmath.mpf(x[i, j].item())
            ref = float(mpmath.gammainc(ai, 0, xi, regularized=True) if name == "igamma"
                        else mpmath.gammainc(ai, xi, mpmath.inf, regularized=True))
            if ref > 1e-290:
                assert abs(got[i, j] - ref) <= 1e-12 * ref, (a[i, j].item(), x[i, j].item(), got[i, j], ref)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_igamma_edges(name):
    a = torch.tensor([0., 0., 1., -1., 1., inf, inf, 2., nan, 2., 0.5])
    x = torch.tensor([0., 1., 0., 1., -1., 1., inf, inf, 1., nan, 0.5])
    same(getattr(ember, name)(E(a), E(x)), getattr(torch, name)(a, x))


def test_igamma_inplace_gradient_and_complement():
    a, x = torch.tensor([0.5, 2., 7.], dtype=torch.float64), torch.tensor([1., 3., 5.], dtype=torch.float64, requires_grad=True)
    for name in ("igamma", "igammac"):
        tx = x.detach().clone().requires_grad_()
        out = getattr(torch, name)(a, tx)
        out.sum().backward()
        ex = E(tx).requires_grad_()
        eo = getattr(ember, name)(E(a), ex)
        assert eo.grad_fn.name() == out.grad_fn.name()
        eo.sum().backward()
        same(ex.grad, tx.grad, rtol=1e-10)
        t = E(a)
        assert getattr(t, name + "_")(E(x.detach())) is t
        same(t, getattr(torch, name)(a, x.detach()), rtol=1e-12)
    ea = E(a).requires_grad_()
    with pytest.raises(NotImplementedError, match="the derivative for 'igamma: input' is not implemented."):
        ember.igamma(ea, E(x.detach())).sum().backward()
    same(ember.igamma(E(a), E(x.detach())) + ember.igammac(E(a), E(x.detach())), torch.ones(3, dtype=torch.float64))


# ---- isin ----

def test_isin_forms():
    cases = [(torch.tensor([1, 2, 3]), torch.tensor([2., 3.5])), (torch.tensor([[1., nan], [3., 2.]]), torch.tensor([nan, 2.])),
             (torch.arange(12).reshape(3, 4), torch.tensor([11, 0, 5, 5])), (torch.tensor([1, 2]), torch.tensor([], dtype=torch.long))]
    for e, t in cases:
        for invert in (False, True):
            same(ember.isin(E(e), E(t), invert=invert), torch.isin(e, t, invert=invert))
            same(ember.isin(E(e), E(t), assume_unique=True, invert=invert), torch.isin(e, t, assume_unique=True, invert=invert))
    same(ember.isin(ember.tensor([1, 2, 3]), 2), torch.isin(torch.tensor([1, 2, 3]), 2))
    same(ember.isin(2, ember.tensor([1, 2, 3])), torch.isin(2, torch.tensor([1, 2, 3])))
    same_error(lambda: torch.isin(torch.tensor([1, 2]), torch.tensor([True])),
               lambda: ember.isin(ember.tensor([1, 2]), ember.tensor([True])))


# ---- histograms ----

def test_histogram_forms():
    x = torch.tensor([1., 2, 1, 4, 2.5, -1, 7])
    w = torch.tensor([1., 2, 3, 4, 5, 6, 7])
    for kw in [dict(bins=3), dict(bins=4, range=(0., 4.)), dict(bins=3, weight=w), dict(bins=3, density=True),
               dict(bins=5, range=(0., 3.), weight=w, density=True)]:
        want = torch.histogram(x, **kw)
        got = ember.histogram(E(x), **{k: (E(v) if isinstance(v, torch.Tensor) else v) for k, v in kw.items()})
        same(got.hist, want.hist)
        same(got.bin_edges, want.bin_edges)
    edges = torch.tensor([0., 1.5, 4.])
    want = torch.histogram(x, bins=edges, weight=w, density=True)
    got = ember.histogram(E(x), E(edges), weight=E(w), density=True)
    same(got[0], want[0])
    same(got[1], want[1])
    for xs in [torch.tensor([1., 1.]), torch.tensor([]), torch.tensor([[1., 5.], [2., 3.]]).double()]:
        want, got = torch.histogram(xs, bins=2), ember.histogram(E(xs), bins=2)
        same(got.hist, want.hist)
        same(got.bin_edges, want.bin_edges)


def test_histogram_errors():
    x = torch.tensor([1., 2., 3.])
    for kw in [dict(bins=3, range=(3., 0.)), dict(bins=-1), dict(bins=2, weight=torch.tensor([1.]))]:
        same_error(lambda: torch.histogram(x, **kw),
                   lambda: ember.histogram(E(x), **{k: (E(v) if isinstance(v, torch.Tensor) else v) for k, v in kw.items()}))
    same_error(lambda: torch.histogram(torch.tensor([1., inf]), bins=2), lambda: ember.histogram(ember.tensor([1., inf]), bins=2))
    same_error(lambda: torch.histogram(torch.tensor([1, 2]), bins=2), lambda: ember.histogram(ember.tensor([1, 2]), bins=2))
    same_error(lambda: torch.histogram(x, bins=torch.tensor([0., 4.]).double()),
               lambda: ember.histogram(E(x), bins=ember.tensor([0., 4.]).double()))


def test_histogramdd():
    pts = torch.tensor([[1., 2], [3, 4], [2, 2], [0.5, 3.9]])
    for args, kw in [((pts, [2, 2]), {}), ((pts, 2), dict(range=[0., 4., 0., 4.], density=True)),
                     ((pts, [3, 1]), dict(weight=torch.tensor([1., 2, 3, 4]))),
                     ((pts, [torch.tensor([0., 2., 4.]), torch.tensor([0., 3, 5])]), {})]:
        want = torch.histogramdd(*args, **kw)
        conv = lambda v: E(v) if isinstance(v, torch.Tensor) else [conv(i) for i in v] if isinstance(v, list) else v  # noqa: E731
        got = ember.histogramdd(*[conv(a) for a in args], **{k: conv(v) for k, v in kw.items()})
        same(got.hist, want.hist)
        assert len(got.bin_edges) == len(want.bin_edges)
        for e, t in zip(got.bin_edges, want.bin_edges):
            same(e, t)
    assert repr(ember.histogramdd(ember.tensor([[1., 2.]]), bins=1)).startswith("ember.return_types.histogramdd(\nhist=")


# ---- gradient and the trapezoid rules ----

@pytest.mark.parametrize("kw", [{}, dict(spacing=2.0), dict(dim=1), dict(dim=[0]), dict(spacing=[0.5, 2.0]),
                                dict(spacing=0.5, dim=[1, 0]), dict(edge_order=2), dict(spacing=3, dim=1, edge_order=2)])
def test_gradient_uniform(kw):
    f = torch.randn(4, 5, generator=g, dtype=torch.float64)
    want = torch.gradient(f, **kw)
    got = ember.gradient(E(f), **kw)
    assert isinstance(got, tuple) and len(got) == len(want)
    for e, t in zip(got, want):
        same(e, t, rtol=1e-12)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_coordinates(edge_order):
    f = torch.randn(4, 5, generator=g, dtype=torch.float64)
    xs = [torch.tensor([0., 1., 1.5, 3.5], dtype=torch.float64), torch.tensor([-1., 0., 2., 2.5, 4.], dtype=torch.float64)]
    want = torch.gradient(f, spacing=xs, edge_order=edge_order)
    got = ember.gradient(E(f), spacing=[E(x) for x in xs], edge_order=edge_order)
    for e, t in zip(got, want):
        same(e, t, rtol=1e-12)
    want = torch.gradient(f, spacing=[xs[1]], dim=1, edge_order=edge_order)
    got = ember.gradient(E(f), spacing=[E(xs[1])], dim=1, edge_order=edge_order)
    same(got[0], want[0], rtol=1e-12)
    same(ember.gradient(ember.tensor([1, 4, 9, 16]))[0], torch.gradient(torch.tensor([1, 4, 9, 16]))[0])


def test_gradient_errors():
    f = torch.randn(2, 3)
    for kw in [dict(edge_order=3), dict(edge_order=2), dict(spacing=[1., 2., 3.])]:
        same_error(lambda: torch.gradient(f, **kw), lambda: ember.gradient(E(f), **kw))


def test_trapezoid_family():
    y = torch.randn(3, 5, generator=g, dtype=torch.float64)
    x = torch.tensor([0., 0.5, 2., 2.5, 4.], dtype=torch.float64)
    x2 = torch.randn(3, 5, generator=g, dtype=torch.float64).cumsum(1)
    for fn in ("trapezoid", "trapz", "cumulative_trapezoid"):
        same(getattr(ember, fn)(E(y), E(x)), getattr(torch, fn)(y, x), rtol=1e-12)
        same(getattr(ember, fn)(E(y), E(x2), dim=1), getattr(torch, fn)(y, x2, dim=1), rtol=1e-12)
        same(getattr(ember, fn)(E(y), dx=0.5, dim=0), getattr(torch, fn)(y, dx=0.5, dim=0), rtol=1e-12)
        same(getattr(ember, fn)(E(y)), getattr(torch, fn)(y), rtol=1e-12)
        same(getattr(ember, fn)(ember.tensor([1, 2, 4])), getattr(torch, fn)(torch.tensor([1, 2, 4])))
    same(ember.trapezoid(ember.zeros(3, 0)), torch.trapezoid(torch.zeros(3, 0)))
    same_error(lambda: torch.trapezoid(y, torch.ones(4, dtype=torch.float64)),
               lambda: ember.trapezoid(E(y), ember.ones(4, dtype=ember.float64)))
    same_error(lambda: torch.cumulative_trapezoid(torch.ones(3, dtype=torch.bool)),
               lambda: ember.cumulative_trapezoid(ember.ones(3, dtype=ember.bool)))


def test_trapezoid_gradient():
    y = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    torch.trapezoid(y, dx=0.3).sum().backward()
    ey = E(y).requires_grad_()
    ember.trapezoid(ey, dx=0.3).sum().backward()
    same(ey.grad, y.grad, rtol=1e-12)


# ---- combinations, sum_to_size ----

@pytest.mark.parametrize("r,rep", [(2, False), (3, False), (2, True), (1, False), (0, False), (5, False), (3, True)])
def test_combinations(r, rep):
    v = torch.tensor([3., 1., 4., 1.5])
    same(ember.combinations(E(v), r, with_replacement=rep), torch.combinations(v, r, with_replacement=rep))


def test_combinations_errors():
    same_error(lambda: torch.combinations(torch.ones(2, 2)), lambda: ember.combinations(ember.ones(2, 2)))
    same_error(lambda: torch.combinations(torch.ones(2), -1), lambda: ember.combinations(ember.ones(2), -1))


def test_sum_to_size():
    x = torch.randn(2, 3, 4, generator=g)
    for size in [(3, 4), (1, 4), (3, 1), (2, 1, 4), (1,), (2, 3, 4), ()]:
        same(E(x).sum_to_size(size), x.sum_to_size(size), rtol=1e-5)
        same(E(x).sum_to_size(*size) if size else E(x).sum_to_size(size), x.sum_to_size(size), rtol=1e-5)
    same_error(lambda: x.sum_to_size(5), lambda: E(x).sum_to_size(5))


# ---- index_reduce, fill_diagonal_, cumsum_ ----

@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(reduce, include_self):
    s = torch.randn(4, 3, generator=g, dtype=torch.float64)
    src = torch.randn(5, 3, generator=g, dtype=torch.float64)
    idx = torch.tensor([0, 2, 0, 3, 2])
    same(ember.index_reduce(E(s), 0, E(idx), E(src), reduce, include_self=include_self),
         s.index_reduce(0, idx, src, reduce, include_self=include_self), rtol=1e-12)
    s2, src2 = torch.randn(3, 4, generator=g), torch.randn(3, 2, generator=g)
    t = E(s2)
    assert t.index_reduce_(1, ember.tensor([3, 1], dtype=ember.int32), E(src2), reduce, include_self=include_self) is t
    same(t, s2.index_reduce_(1, torch.tensor([3, 1], dtype=torch.int32), src2, reduce, include_self=include_self))
    i = torch.tensor([[1, 2], [3, 4]])
    same(E(i).index_reduce(0, ember.tensor([1, 1]), ember.tensor([[2, 2], [6, 6]]), reduce, include_self=include_self),
         i.index_reduce(0, torch.tensor([1, 1]), torch.tensor([[2, 2], [6, 6]]), reduce, include_self=include_self))


def test_index_reduce_errors_and_gradient():
    s, src = torch.randn(3, 2), torch.randn(2, 2)
    same_error(lambda: s.index_reduce(0, torch.tensor([0, 1]), src, "sum"),
               lambda: E(s).index_reduce(0, ember.tensor([0, 1]), E(src), "sum"))
    same_error(lambda: s.index_reduce(0, torch.tensor([0, 1, 2]), src, "prod"),
               lambda: E(s).index_reduce(0, ember.tensor([0, 1, 2]), E(src), "prod"))
    same_error(lambda: s.index_reduce(0, torch.tensor([0., 1.]), src, "prod"),
               lambda: E(s).index_reduce(0, ember.tensor([0., 1.]), E(src), "prod"))
    a = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    b = torch.randn(2, 2, dtype=torch.float64, requires_grad=True)
    a.index_reduce(0, torch.tensor([2, 0]), b, "prod").sum().backward()
    ea, eb = E(a).requires_grad_(), E(b).requires_grad_()
    ea.index_reduce(0, ember.tensor([2, 0]), eb, "prod").sum().backward()
    same(ea.grad, a.grad, rtol=1e-12)
    same(eb.grad, b.grad, rtol=1e-12)


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((7, 3), False), ((7, 3), True), ((3, 5), True),
                                        ((3, 3, 3), False), ((2, 8), True)])
def test_fill_diagonal_(shape, wrap):
    t = torch.zeros(shape)
    e = ember.zeros(shape)
    assert e.fill_diagonal_(5.0, wrap) is e
    same(e, t.fill_diagonal_(5.0, wrap))
    tt, et = torch.zeros(4, 6).t(), ember.zeros(4, 6).t()
    same(et.fill_diagonal_(2, True), tt.fill_diagonal_(2, True))


def test_fill_diagonal_errors():
    same_error(lambda: torch.zeros(3).fill_diagonal_(1), lambda: ember.zeros(3).fill_diagonal_(1))
    same_error(lambda: torch.zeros(3, 3, 2).fill_diagonal_(1), lambda: ember.zeros(3, 3, 2).fill_diagonal_(1))


def test_cumsum_():
    x = torch.randn(3, 4, generator=g)
    e = E(x)
    assert e.cumsum_(1) is e
    same(e, x.clone().cumsum_(1))
    i = ember.tensor([1, 2, 3])
    same(i.cumsum_(0, dtype=ember.int64), torch.tensor([1, 2, 3]).cumsum_(0, dtype=torch.int64))
    same_error(lambda: torch.tensor([1, 2, 3]).cumsum_(0, dtype=torch.int32),
               lambda: ember.tensor([1, 2, 3]).cumsum_(0, dtype=ember.int32))
