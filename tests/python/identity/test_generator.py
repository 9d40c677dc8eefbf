"""ember.Generator, the default generator and generator= on the random ops, against torch 1.13's
API (the numbers are ember's own stream: same seed, same numbers, not PyTorch's)."""
import copy
import pickle

import numpy as np
import pytest
import torch

import ember


def test_constructible_with_torch_defaults():
    g = ember.Generator()
    assert g.initial_seed() == torch.Generator().initial_seed() == 67280421310721
    assert g.device == ember.device("cpu")
    assert ember.Generator(device="cpu").device.type == "cpu"
    assert ember.Generator(device=ember.device("cpu")).initial_seed() == 67280421310721
    assert type(g) is ember.Generator
    assert repr(g).startswith("<ember._C.Generator object at 0x")


@pytest.mark.parametrize("device, name", [("cuda", "CUDA"), ("meta", "META"), (0, "CUDA")])
def test_other_devices_refused(device, name):
    with pytest.raises(RuntimeError) as e:
        torch.Generator(device=device)
    assert str(e.value) == f"Device type {name} is not supported for torch.Generator() api."
    with pytest.raises(RuntimeError, match=f"^Device type {name} is not supported for ember.Generator"):
        ember.Generator(device=device)


def test_manual_seed_returns_self_and_seeds():
    g = ember.Generator()
    assert g.manual_seed(3) is g
    assert g.initial_seed() == 3
    a = ember.rand(5, generator=g)
    g.manual_seed(3)
    assert ember.equal(ember.rand(5, generator=g), a)
    g.manual_seed(-1)
    assert g.initial_seed() == torch.Generator().manual_seed(-1).initial_seed() == 2 ** 64 - 1
    g.manual_seed(np.int64(7))
    assert g.initial_seed() == 7


@pytest.mark.parametrize("seed", [3.5, "5", True, 2 ** 64, -2 ** 63 - 1])
def test_manual_seed_errors_as_torch(seed):
    with pytest.raises(Exception) as t_err:
        torch.Generator().manual_seed(seed if not isinstance(seed, str) else seed)
    g = ember.Generator().manual_seed(11)
    with pytest.raises(type(t_err.value)) as e_err:
        g.manual_seed(seed)
    assert str(e_err.value) == str(t_err.value).replace("torch.", "ember.")
    assert g.initial_seed() == 11  # unchanged


def test_module_manual_seed_takes_int_convertible_as_torch():
    assert ember.manual_seed(3.5) is ember.default_generator
    assert ember.initial_seed() == 3 == torch.manual_seed(3.5).initial_seed()
    assert ember.manual_seed("5").initial_seed() == 5


def test_seed_is_fresh_and_returned():
    g = ember.Generator()
    s = g.seed()
    assert isinstance(s, int) and 0 <= s < 2 ** 64
    assert g.initial_seed() == s
    assert ember.seed() == ember.initial_seed()


def test_state_round_trip_replays_the_stream():
    g = ember.Generator().manual_seed(5)
    ember.randn(3, generator=g)  # leaves a cached normal behind: the state must carry it
    state = g.get_state()
    assert state.dtype == ember.uint8 and state.dim() == 1
    a = ember.randn(7, generator=g), ember.rand(4, generator=g), ember.randint(0, 9, (3,), generator=g)
    assert g.set_state(state) is g
    b = ember.randn(7, generator=g), ember.rand(4, generator=g), ember.randint(0, 9, (3,), generator=g)
    for x, y in zip(a, b):
        assert ember.equal(x, y)
    # The state is a copy: drawing does not change it, and it moves to other generators.
    assert ember.equal(state, g.set_state(state).get_state())
    h = ember.Generator().set_state(state)
    assert h.initial_seed() == 5
    assert ember.equal(ember.randn(7, generator=h), a[0])


def test_set_state_errors_leave_generator_unchanged():
    g = ember.Generator().manual_seed(9)
    before = g.get_state()
    with pytest.raises(TypeError, match="^RNG state must be a ember.ByteTensor$"):
        g.set_state(ember.zeros(10))
    with pytest.raises(TypeError, match="^expected a ember.ByteTensor, but got int$"):
        g.set_state(5)
    with pytest.raises(RuntimeError, match="found the input RNG state size to be 10$"):
        g.set_state(ember.zeros(10, dtype=ember.uint8))
    bad = before.clone()
    bad[312 * 8] = 255  # engine position out of range
    with pytest.raises(RuntimeError, match="Invalid RNG state"):
        g.set_state(bad)
    assert ember.equal(g.get_state(), before)
    # torch raises the same exception types for the same mistakes
    with pytest.raises(TypeError):
        torch.Generator().set_state(torch.zeros(10))
    with pytest.raises(RuntimeError):
        torch.Generator().set_state(torch.zeros(10, dtype=torch.uint8))


def test_default_generator_and_rng_state():
    assert ember.manual_seed(0) is ember.default_generator
    assert ember.default_generator.initial_seed() == ember.initial_seed() == 0
    state = ember.get_rng_state()
    a = ember.rand(4)
    ember.set_rng_state(state)
    assert ember.equal(ember.rand(4), a)
    assert ember.random.get_rng_state is ember.get_rng_state
    with ember.random.fork_rng():
        ember.rand(10)
    assert ember.equal(ember.get_rng_state(), ember.default_generator.get_state())
    b = ember.rand(3)
    ember.set_rng_state(state)
    ember.rand(4)
    assert ember.equal(ember.rand(3), b)


def test_generator_is_independent_of_the_default():
    ember.manual_seed(1)
    expected = ember.rand(6)
    ember.manual_seed(1)
    g = ember.Generator().manual_seed(123)
    ember.rand(100, generator=g)
    assert ember.equal(ember.rand(6), expected)


def test_same_seed_same_numbers_as_default_generator():
    # A fresh generator with seed s draws what the default generator draws after manual_seed(s).
    ember.manual_seed(42)
    ref = [ember.rand(5), ember.randn(2, 3), ember.randint(0, 100, (4,))]
    g = ember.Generator().manual_seed(42)
    got = [ember.rand(5, generator=g), ember.randn(2, 3, generator=g),
           ember.randint(0, 100, (4,), generator=g)]
    for r, x in zip(ref, got):
        assert ember.equal(r, x)


def draw_all(g):
    x = ember.empty(6)
    return [
        ember.rand(3, generator=g),
        ember.rand((2, 2), generator=g, dtype=ember.float64),
        ember.randn(4, generator=g),
        ember.randint(10, (3,), generator=g),
        ember.randint(3, 10, (3,), generator=g),
        ember.bernoulli(ember.full((5,), 0.5), generator=g),
        x.clone().uniform_(generator=g),
        x.clone().uniform_(2, 3, generator=g),
        x.clone().normal_(generator=g),
        x.clone().normal_(1, 2, generator=g),
        x.clone().bernoulli_(0.3, generator=g),
        x.clone().random_(generator=g),
        x.clone().random_(5, generator=g),
        x.clone().random_(2, 5, generator=g),
        ember.empty(5, dtype=ember.int64).random_(100, generator=g),
    ]


def test_generator_reaches_every_random_op():
    a = draw_all(ember.Generator().manual_seed(8))
    b = draw_all(ember.Generator().manual_seed(8))
    c = draw_all(ember.Generator().manual_seed(9))
    for x, y in zip(a, b):
        assert ember.equal(x, y)
    assert sum(not ember.equal(x, y) for x, y in zip(a, c)) >= len(a) - 2
    # torch takes the same spellings
    tg = torch.Generator().manual_seed(8)
    torch.rand(3, generator=tg), torch.randint(10, (3,), generator=tg)
    torch.empty(6).random_(5, generator=tg), torch.empty(6).random_(generator=tg)


def test_random_to_and_plain_forms_have_torch_ranges():
    x = ember.empty(1000, dtype=ember.int64).random_(5)
    assert int(x.min()) >= 0 and int(x.max()) <= 4
    y = ember.empty(1000, dtype=ember.uint8).random_()
    assert int(y.max()) > 200
    z = ember.empty(1000).random_()
    assert float(z.max()) <= 2 ** 24 and float(z.max()) > 1000
    assert float(z.min()) >= 0


def test_generator_none_is_the_default():
    ember.manual_seed(4)
    a = ember.rand(3, generator=None)
    ember.manual_seed(4)
    assert ember.equal(ember.rand(3), a)


def test_bad_generator_argument_is_a_type_error():
    with pytest.raises(TypeError, match="generator"):
        ember.rand(2, generator=5)
    with pytest.raises(TypeError):
        ember.empty(2).uniform_(generator="g")


def test_generator_not_picklable_as_torch():
    g = ember.Generator()
    with pytest.raises(TypeError, match="cannot pickle 'ember._C.Generator' object"):
        pickle.dumps(g)
    with pytest.raises(TypeError):
        copy.deepcopy(g)


def test_torch_dispatch_sees_the_generator_object():
    seen = {}

    from ember.utils._python_dispatch import TorchDispatchMode as Mode

    class Recorder(Mode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if "generator" in kwargs:
                seen[str(func)] = kwargs["generator"]
            return func(*args, **kwargs)

    g = ember.Generator().manual_seed(2)
    with Recorder():
        a = ember.empty(3).uniform_(generator=g)
        ember.empty(3).normal_(generator=ember.default_generator)
    assert any(v is g for v in seen.values())
    assert any(v is ember.default_generator for v in seen.values())
    g.manual_seed(2)
    assert ember.equal(ember.empty(3).uniform_(generator=g), a)
