"""torch.vander and the deterministic-algorithms flag, against torch 1.13.

vander: values and dtypes (integer and bool inputs give int64) for every N from 0 to past the
length, both column orders; the errors; gradients against the derivative (torch 1.13's own vander backward fails), and
gradcheck.
use_deterministic_algorithms & co.: the flag's round trips through every setter and getter, the
debug-mode names and numbers, and the texts of the bad arguments."""
import numpy as np
import pytest
import torch

import ember


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool", "complex64"])
@pytest.mark.parametrize("N", [None, 0, 1, 2, 3, 5])
@pytest.mark.parametrize("increasing", [False, True])
def test_vander_values_and_dtype(dtype, N, increasing):
    data = [True, False, True] if dtype == "bool" else [2, -1, 3]
    t = torch.vander(torch.tensor(data, dtype=getattr(torch, dtype)), N=N, increasing=increasing)
    e = ember.vander(ember.tensor(data, dtype=getattr(ember, dtype)), N=N, increasing=increasing)
    assert str(e.dtype) == str(t.dtype).replace("torch.", "ember.")
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_vander_positional_and_empty():
    np.testing.assert_array_equal(ember.vander(ember.tensor([1.5, 2.0]), 3).numpy(),
                                  torch.vander(torch.tensor([1.5, 2.0]), 3).numpy())
    assert tuple(ember.vander(ember.tensor([], dtype=ember.float32)).shape) == (0, 0)


@pytest.mark.parametrize("call, text", [
    (lambda m: m.vander(m.ones(2, 2)), "x must be a one-dimensional tensor."),
    (lambda m: m.vander(m.ones(())), "x must be a one-dimensional tensor."),
    (lambda m: m.vander(m.ones(3), N=-1), "N must be non-negative."),
])
def test_vander_errors(call, text):
    for mod in (torch, ember):
        with pytest.raises(RuntimeError, match=text):
            call(mod)


@pytest.mark.parametrize("increasing", [False, True])
def test_vander_gradient(increasing):
    # torch 1.13's own backward fails here (its cumprod writes into a slice of the result it
    # then flips: "modified by an inplace operation"), so the reference is the derivative
    # itself: d/dx sum_p w[:, p] x^e(p) = sum_p w[:, p] e(p) x^(e(p)-1).
    x = np.array([0.5, -1.25, 2.0])
    w = np.arange(12.0).reshape(3, 4)
    powers = np.arange(4) if increasing else np.arange(4)[::-1]
    want = (w * powers * x[:, None] ** np.maximum(powers - 1, 0)).sum(1)
    ex = ember.tensor(x, requires_grad=True)
    (ember.vander(ex, N=4, increasing=increasing) * ember.tensor(w)).sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), want, rtol=1e-14)
    assert ember.autograd.gradcheck(lambda a: ember.vander(a, N=4, increasing=increasing),
                                    (ex.detach().requires_grad_(),))


@pytest.fixture
def restore_flag():
    yield
    ember.use_deterministic_algorithms(False)
    torch.use_deterministic_algorithms(False)


def state(mod):
    return (mod.are_deterministic_algorithms_enabled(),
            mod.is_deterministic_algorithms_warn_only_enabled(),
            mod.get_deterministic_debug_mode())


def test_deterministic_flag_round_trips(restore_flag):
    steps = [
        lambda m: None,
        lambda m: m.use_deterministic_algorithms(True),
        lambda m: m.use_deterministic_algorithms(True, warn_only=True),
        lambda m: m.set_deterministic_debug_mode("error"),
        lambda m: m.set_deterministic_debug_mode(1),
        lambda m: m.set_deterministic_debug_mode("default"),
        lambda m: m.set_deterministic_debug_mode(2),
        lambda m: m.use_deterministic_algorithms(False),
    ]
    for step in steps:
        step(torch)
        step(ember)
        assert state(ember) == state(torch)
    # ember's ops run as before with the flag on (all its kernels are deterministic)
    ember.use_deterministic_algorithms(True)
    x = ember.zeros(3).index_add_(0, ember.tensor([0, 0, 2]), ember.ones(3))
    assert x.tolist() == [2.0, 0.0, 1.0]


@pytest.mark.parametrize("call", [
    lambda m: m.set_deterministic_debug_mode("sometimes"),
    lambda m: m.set_deterministic_debug_mode(3),
    lambda m: m.use_deterministic_algorithms(1),
])
def test_deterministic_flag_errors(call, restore_flag):
    with pytest.raises(Exception) as t:
        call(torch)
    with pytest.raises(type(t.value)) as e:
        call(ember)
    assert str(e.value) == str(t.value)
