"""ember.randperm and ember.multinomial (the samplers' ops) against torch 1.13: dtypes, shapes,
rules and error texts; values are ember's own stream (reproducible under manual_seed)."""
import numpy as np
import pytest
import torch

import ember


def raises_like(fe, ft):
    with pytest.raises(Exception) as t:
        ft()
    with pytest.raises(type(t.value)) as e:
        fe()
    assert str(e.value) == str(t.value)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "float32", "float64", "float16"])
def test_randperm_is_a_permutation_of_dtype(dtype):
    p = ember.randperm(100, dtype=getattr(ember, dtype))
    assert p.dtype == getattr(ember, dtype) and p.shape == (100,)
    assert sorted(p.tolist()) == list(range(100))


def test_randperm_edges_and_errors_as_torch():
    assert ember.randperm(0).tolist() == [] and ember.randperm(0).dtype == ember.int64
    assert ember.randperm(1).tolist() == [0]
    assert ember.randperm(4, device="meta").shape == (4,)
    ember.manual_seed(11)
    a = ember.randperm(50).tolist()
    ember.manual_seed(11)
    assert ember.randperm(50, generator=ember.default_generator).tolist() == a
    assert a != list(range(50))
    for n, dt in [(-1, "int64"), (129, "int8"), (257, "uint8"), (32769, "int16"), (2050, "float16"),
                  (3, "bool")]:
        raises_like(lambda: ember.randperm(n, dtype=getattr(ember, dt)),
                    lambda: torch.randperm(n, dtype=getattr(torch, dt)))
    assert sorted(ember.randperm(128, dtype=ember.int8).tolist()) == list(range(128))


def test_multinomial_shapes_and_rules():
    ember.manual_seed(0)
    w = ember.tensor([0.0, 1.0, 0.0, 3.0])
    s = ember.multinomial(w, 1000, True)
    assert s.dtype == ember.int64 and s.shape == (1000,)
    counts = np.bincount(s.numpy(), minlength=4)
    assert counts[0] == counts[2] == 0 and 650 < counts[3] < 850
    s = w.multinomial(4)
    assert sorted(s.tolist()[:2]) == [1, 3] and sorted(s.tolist()[2:]) == [0, 2]  # zero weights last
    rows = ember.multinomial(ember.ones(3, 5, dtype=ember.float64), 5)
    assert rows.shape == (3, 5) and all(sorted(r) == list(range(5)) for r in rows.tolist())
    assert ember.multinomial(ember.ones(2, 4, device="meta"), 3).shape == (2, 3)


@pytest.mark.parametrize("args", [
    ([1.0, 2.0], 3, False), ([1.0, -2.0], 1, True), ([0.0, 0.0], 1, True), ([1.0, float("inf")], 1, True),
    ([1.0, float("nan")], 1, True), ([1.0, 2.0], 0, True), ([1.0, 2.0], -1, True), ([], 1, True),
])
def test_multinomial_errors_as_torch(args):
    w, n, repl = args
    raises_like(lambda: ember.multinomial(ember.tensor(w), n, repl), lambda: torch.multinomial(torch.tensor(w), n, repl))


def test_multinomial_dtype_and_rank_errors_as_torch():
    raises_like(lambda: ember.multinomial(ember.tensor([1, 2]), 1), lambda: torch.multinomial(torch.tensor([1, 2]), 1))
    raises_like(lambda: ember.multinomial(ember.ones(2, 2, 2), 1), lambda: torch.multinomial(torch.ones(2, 2, 2), 1))
    raises_like(lambda: ember.multinomial(ember.ones(()), 1), lambda: torch.multinomial(torch.ones(()), 1))
