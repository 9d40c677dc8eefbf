"""cauchy_, geometric_, log_normal_, poisson, binomial and randint_like: the distributions by their
statistics (not torch's bits), reproducibility through ember's generators, the argument checks and
texts of torch 1.13; and the tensor attributes of the namesa part (flags, apply_ / map_ / map2_,
volatile, _cdata, is_set_to, names, autocast casts, _assert_async)."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember
from namesa_testing import E, same_error  # noqa: F401

N = 200_000



def test_cauchy_quantiles():
    ember.manual_seed(1)
    x = ember.empty(N, dtype=ember.float64).cauchy_(2.0, 0.5).numpy()
    # median 2 and quartiles 2 -+ sigma
    q = np.quantile(x, [0.25, 0.5, 0.75])
    np.testing.assert_allclose(q, [1.5, 2.0, 2.5], atol=0.01)


def test_log_normal_moments():
    ember.manual_seed(2)
    x = ember.empty(N, dtype=ember.float64).log_normal_(0.5, 0.25).numpy()
    logs = np.log(x)
    assert abs(logs.mean() - 0.5) < 0.003 and abs(logs.std() - 0.25) < 0.003
    assert abs(x.mean() - math.exp(0.5 + 0.25 ** 2 / 2)) < 0.005


@pytest.mark.parametrize("p", [0.05, 0.3, 0.9])
def test_geometric_moments_and_support(p):
    ember.manual_seed(3)
    x = ember.empty(N, dtype=ember.float64).geometric_(p).numpy()
    assert x.min() >= 1 and np.all(x == np.floor(x))
    assert abs(x.mean() - 1 / p) < 0.02 / p
    assert abs((x == 1).mean() - p) < 0.005
    i = ember.empty(1000, dtype=ember.int64).geometric_(0.5)
    assert i.dtype == ember.int64 and i.min().item() >= 1


@pytest.mark.parametrize("rate", [0.0, 0.3, 4.0, 9.99, 10.0, 37.5, 1e4])
def test_poisson_moments(rate):
    ember.manual_seed(4)
    x = ember.poisson(ember.full((N,), rate, dtype=ember.float64)).numpy()
    assert np.all(x == np.floor(x)) and x.min() >= 0
    sd = math.sqrt(rate / N) if rate else 0
    assert abs(x.mean() - rate) <= 5 * sd + 1e-12
    if rate:
        assert abs(x.var() / rate - 1) < 0.03
    if 0 < rate < 5:  # P(0) = e^-rate
        assert abs((x == 0).mean() - math.exp(-rate)) < 0.006


@pytest.mark.parametrize("n,p", [(10, 0.3), (20, 0.5), (100, 0.2), (1000, 0.9), (5, 0.99), (0, 0.5), (7, 0.0), (7, 1.0)])
def test_binomial_moments(n, p):
    ember.manual_seed(5)
    x = ember.binomial(ember.full((N,), float(n)), ember.full((N,), p)).numpy().astype(np.float64)
    assert x.min() >= 0 and x.max() <= n and np.all(x == np.floor(x))
    mean, var = n * p, n * p * (1 - p)
    assert abs(x.mean() - mean) <= 5 * math.sqrt(var / N) + 1e-9
    if var:
        assert abs(x.var() / var - 1) < 0.03


def test_binomial_broadcasts_and_poisson_keeps_shape():
    c, p = ember.tensor([10., 5.]), ember.tensor([0.5])
    assert ember.binomial(c, p).shape == torch.binomial(torch.tensor([10., 5.]), torch.tensor([0.5])).shape
    assert ember.poisson(ember.ones(2, 3)).shape == (2, 3)
    assert ember.binomial(ember.tensor([5.]), ember.tensor([2.])).tolist() == [5.0]
    assert ember.binomial(ember.tensor([-3.]), ember.tensor([0.5])).tolist() == [0.0]


def test_reproducible_through_generators():
    for make in (lambda t, g: t.cauchy_(generator=g), lambda t, g: t.geometric_(0.4, generator=g),
                 lambda t, g: t.log_normal_(generator=g), lambda t, g: ember.poisson(t.fill_(3.0), generator=g),
                 lambda t, g: ember.binomial(t.fill_(20.0), ember.full((50,), 0.3), generator=g)):
        g1, g2 = ember.Generator().manual_seed(9), ember.Generator().manual_seed(9)
        a, b = make(ember.empty(50), g1), make(ember.empty(50), g2)
        assert a.tolist() == b.tolist()
        assert make(ember.empty(50), g1).tolist() != a.tolist()
    ember.manual_seed(11)
    a = ember.empty(20).cauchy_()
    ember.manual_seed(11)
    assert ember.empty(20).cauchy_().tolist() == a.tolist()


def test_random_argument_errors():
    same_error(lambda: torch.empty(3).geometric_(0), lambda: ember.empty(3).geometric_(0))
    same_error(lambda: torch.empty(3).geometric_(1.5), lambda: ember.empty(3).geometric_(1.5))
    same_error(lambda: torch.empty(3).log_normal_(0, 0), lambda: ember.empty(3).log_normal_(0, 0))
    same_error(lambda: torch.empty(3, dtype=torch.long).cauchy_(), lambda: ember.empty(3, dtype=ember.int64).cauchy_())
    same_error(lambda: torch.empty(3, dtype=torch.long).log_normal_(), lambda: ember.empty(3, dtype=ember.int64).log_normal_())
    same_error(lambda: torch.poisson(torch.tensor([-1.])), lambda: ember.poisson(ember.tensor([-1.])))
    same_error(lambda: torch.poisson(torch.tensor([1, 2])), lambda: ember.poisson(ember.tensor([1, 2])))
    same_error(lambda: torch.binomial(torch.tensor([10, 5]), torch.tensor([0.5, 0.2])),
               lambda: ember.binomial(ember.tensor([10, 5]), ember.tensor([0.5, 0.2])))
    same_error(lambda: torch.binomial(torch.tensor([10.]), torch.tensor([0.5]).double()),
               lambda: ember.binomial(ember.tensor([10.]), ember.tensor([0.5]).double()))
    g = ember.Generator().manual_seed(1)
    state = g.get_state()
    with pytest.raises(RuntimeError):
        ember.empty(3).geometric_(2.0, generator=g)
    assert g.get_state().tolist() == state.tolist()


def test_random_fills_have_zero_gradient():
    x = torch.rand(3, requires_grad=True)
    assert x.clone().cauchy_().grad_fn.name() == "CauchyBackward0"
    ex = ember.rand(3, requires_grad=True)
    y = ex.clone()
    y.cauchy_()
    assert y.grad_fn.name() == "CauchyBackward0"
    (y * 2).sum().backward()
    assert ex.grad.tolist() == [0.0, 0.0, 0.0]
    p = ember.poisson(ex * 3)
    assert p.grad_fn.name() == "PoissonBackward0"


def test_randint_like():
    for args, kw in [((5,), {}), ((2, 5), {}), ((3,), dict(dtype=ember.int64))]:
        r = ember.randint_like(ember.empty(2, 3), *args, **kw)
        t = torch.randint_like(torch.empty(2, 3), *args, **{k: torch.int64 for k in kw})
        assert r.shape == t.shape and str(r.dtype)[6:] == str(t.dtype)[6:]
        lo, hi = (0, args[0]) if len(args) == 1 else args
        assert lo <= r.min().item() and r.max().item() < hi
    i = ember.randint_like(ember.empty(1000, dtype=ember.int64), 2, 5)
    assert sorted(set(i.tolist())) == [2, 3, 4]
    same_error(lambda: torch.randint_like(torch.empty(3, dtype=torch.long), 5, 2),
               lambda: ember.randint_like(ember.empty(3, dtype=ember.int64), 5, 2))


# ---- attributes ----

def test_flags_and_legacy_attributes():
    x, t = ember.randn(2, 3), torch.randn(2, 3)
    for flag in ("is_sparse_csr", "is_mps", "is_ipu", "is_xpu", "is_vulkan", "is_ort"):
        assert getattr(x, flag) is getattr(t, flag) is False
    assert x.is_inference() is ember.is_inference(x) is False
    assert x.is_neg() is ember.is_neg(x) is False and ember.is_distributed(x) is False
    with pytest.warns(UserWarning, match=r"volatile was removed \(Variable.volatile is always False\)"):
        assert x.volatile is False
    assert x.names == (None, None) and x.has_names() is False and x.name is None
    y = ember.randn(2, requires_grad=True)
    assert y._grad is None and y._grad_fn is None
    (y * 2).sum().backward()
    assert y._grad is y.grad and (y * 2)._grad_fn.name() == "MulBackward0"
    assert isinstance(x._cdata, int) and x._cdata == x._cdata and x._cdata != ember.randn(1)._cdata


def test_is_set_to():
    x = ember.randn(2, 3)
    assert x.is_set_to(x) and not x.is_set_to(x.view(3, 2)) and not x.is_set_to(x.clone())
    assert x.is_set_to(x.view(2, 3)) and not x[1:].is_set_to(x)


def test_apply_map_map2():
    t, e = torch.ones(3), ember.ones(3)
    assert e.apply_(lambda v: v * 2) is e and e.tolist() == t.apply_(lambda v: v * 2).tolist()
    assert e.map_(ember.ones(3), lambda a, b: a + b + 1).tolist() == t.map_(torch.ones(3), lambda a, b: a + b + 1).tolist()
    assert e.map2_(ember.ones(3), ember.tensor([1., 2., 3.]), lambda a, b, c: a + b * c).tolist() == \
        t.map2_(torch.ones(3), torch.tensor([1., 2., 3.]), lambda a, b, c: a + b * c).tolist()
    i = ember.tensor([[1, 2], [3, 4]])
    assert i.apply_(lambda v: v * 10).tolist() == [[10, 20], [30, 40]] and i.dtype == ember.int64
    same_error(lambda: torch.ones(3, requires_grad=True).apply_(lambda v: v),
               lambda: ember.ones(3, requires_grad=True).apply_(lambda v: v))


def test_autocast_casts_and_assert_async():
    x = ember.randn(2, 3)
    assert x._autocast_to_reduced_precision(True, True, ember.float16, ember.bfloat16).dtype == ember.bfloat16
    assert x._autocast_to_reduced_precision(True, False, ember.float16, ember.bfloat16) is x
    assert x.half()._autocast_to_full_precision(True, True).dtype == ember.float32
    assert ember.ones(2, dtype=ember.int64)._autocast_to_reduced_precision(True, True, ember.half, ember.half).dtype == ember.int64
    assert ember._assert_async(ember.tensor(1)) is None
    for v in (ember.tensor(0), ember.tensor(0.)):
        with pytest.raises(RuntimeError, match="Expected Tensor with single nonzero value, but got zero"):
            ember._assert_async(v)
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        ember._assert_async(ember.tensor([1, 2]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ember.is_inference(ember.ones(1)) is False
