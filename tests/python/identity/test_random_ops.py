"""The random ops added with generators (randperm, exponential_, normal's four forms, random_'s
to / plain forms): torch 1.13's signatures, shapes, dtypes and errors; values from ember's own
stream (reproducible by seed, checked for their distribution)."""
import math

import pytest
import torch

import ember


def same_error(call):
    with pytest.raises(Exception) as t_err:
        call(torch)
    with pytest.raises(type(t_err.value)) as e_err:
        call(ember)
    assert str(e_err.value) == str(t_err.value).replace("torch.", "ember.")


@pytest.mark.parametrize("kwargs", [{}, dict(dtype="int32"), dict(dtype="float32"),
                                    dict(dtype="float64"), dict(dtype="uint8"), dict(dtype="int16")])
def test_randperm_is_a_permutation(kwargs):
    kw = {k: getattr(ember, v) for k, v in kwargs.items()}
    for n in [0, 1, 2, 7, 100]:
        p = ember.randperm(n, **kw)
        t = torch.randperm(n, **{k: getattr(torch, v) for k, v in kwargs.items()})
        assert str(p.dtype) == str(t.dtype).replace("torch.", "ember.")
        assert p.shape == (n,)
        assert sorted(int(v) for v in p.tolist()) == list(range(n))


def test_randperm_with_generator_and_default():
    g = ember.Generator().manual_seed(3)
    a = ember.randperm(50, generator=g)
    b = ember.randperm(50, generator=ember.Generator().manual_seed(3))
    assert ember.equal(a, b)
    ember.manual_seed(3)
    assert ember.equal(ember.randperm(50), a)
    assert not ember.equal(ember.randperm(50), a)
    m = ember.randperm(5, device="meta")
    assert m.is_meta and m.shape == (5,) and m.dtype is ember.int64
    # every position takes every value about equally often
    counts = [[0] * 4 for _ in range(4)]
    g = ember.Generator().manual_seed(0)
    for _ in range(2000):
        for i, v in enumerate(ember.randperm(4, generator=g).tolist()):
            counts[i][v] += 1
    assert all(400 < c < 600 for row in counts for c in row), counts


@pytest.mark.parametrize("call", [
    lambda m: m.randperm(-1),
    lambda m: m.randperm(257, dtype=m.uint8),
    lambda m: m.randperm(129, dtype=m.int8),
    lambda m: m.randperm(3, dtype=m.bool),
    lambda m: m.randperm(4000, dtype=m.float16),
])
def test_randperm_errors(call):
    same_error(call)


def test_exponential():
    x = ember.empty(20000).exponential_(2.0, generator=ember.Generator().manual_seed(1))
    assert float(x.min()) >= 0
    assert abs(float(x.mean()) - 0.5) < 0.02
    y = ember.empty(20000, dtype=ember.float64).exponential_(generator=ember.Generator().manual_seed(1))
    assert abs(float(y.mean()) - 1.0) < 0.04
    assert ember.equal(ember.empty(5).exponential_(lambd=0), ember.full((5,), math.inf))
    z = ember.empty(3)
    assert z.exponential_() is z
    same_error(lambda m: m.empty(3).exponential_(-1))
    same_error(lambda m: m.empty(3, dtype=m.int64).exponential_())


def test_normal_forms():
    g = ember.Generator().manual_seed(0)
    a = ember.normal(ember.full((20000,), 3.0), 2.0, generator=g)
    assert abs(float(a.mean()) - 3) < 0.06 and abs(float(a.std()) - 2) < 0.06
    b = ember.normal(-1.0, ember.full((20000,), 0.5), generator=g)
    assert abs(float(b.mean()) + 1) < 0.02 and abs(float(b.std()) - 0.5) < 0.02
    c = ember.normal(ember.zeros(3, 1), ember.ones(4))
    assert c.shape == torch.normal(torch.zeros(3, 1), torch.ones(4)).shape
    d = ember.normal(2.0, 3.0, (2, 5), generator=g)
    assert d.shape == (2, 5) and d.dtype is ember.float32
    e = ember.normal(2.0, 3.0, size=(4,), dtype=ember.float64)
    assert e.dtype is ember.float64
    assert ember.normal(ember.zeros(2, dtype=ember.float64), 1.0).dtype is ember.float64
    for m, seed_a, seed_b in [(ember, ember.Generator().manual_seed(5), ember.Generator().manual_seed(5))]:
        assert m.equal(m.normal(m.zeros(4), 1.0, generator=seed_a), m.normal(m.zeros(4), 1.0, generator=seed_b))
    same_error(lambda m: m.normal(m.zeros(2), -1.0))
    same_error(lambda m: m.normal(0.0, m.tensor([1.0, -1.0])))


def test_random_forms_bind_like_torch():
    for m in (torch, ember):
        x = m.empty(100, dtype=m.int64)
        assert int(x.random_(3).max()) <= 2
        assert int(x.random_(5, 7).min()) >= 5
        assert int(x.random_(to=4).max()) <= 3
        assert int(x.random_(**{"from": 2, "to": 4}).min()) >= 2
        x.random_()
    same_error(lambda m: m.empty(3, dtype=m.int64).random_(5, 2))
