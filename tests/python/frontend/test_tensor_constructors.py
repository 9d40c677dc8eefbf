"""PyTorch 1.13's legacy constructor: ember.Tensor(...), subclasses without their own __new__,
and Tensor.new(...), with torch's results and errors."""
import numpy as np
import pytest
import torch

import ember


def outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).replace("torch.", "ember.")
    return type(r).__name__, str(r.dtype).split(".")[-1], tuple(r.shape)


FORMS = [
    lambda m, t: m.Tensor(),
    lambda m, t: m.Tensor(2, 3),
    lambda m, t: m.Tensor(m.Size([2, 3])),
    lambda m, t: m.Tensor([1, 2]),
    lambda m, t: m.Tensor((1, 2)),
    lambda m, t: m.Tensor([[1, 2], [3, 4]]),
    lambda m, t: m.Tensor(t),
    lambda m, t: m.Tensor(t.long()),
    lambda m, t: m.Tensor(np.array([1, 2])),
    lambda m, t: m.Tensor(2, device="cpu"),
    lambda m, t: m.Tensor(0),
    lambda m, t: m.Tensor(2.5),
    lambda m, t: m.Tensor("a"),
    lambda m, t: m.Tensor(None),
    lambda m, t: m.Tensor(-1),
    lambda m, t: m.Tensor(3, "a"),
    lambda m, t: m.Tensor(2, device="meta"),
    lambda m, t: t.new(),
    lambda m, t: t.new(2, 3),
    lambda m, t: t.new([1, 2]),
    lambda m, t: t.new((2, 3)),
    lambda m, t: t.new(m.Size([2])),
    lambda m, t: t.new(t),
    lambda m, t: t.new(2.5),
    lambda m, t: t.long().new([1.5]),
    lambda m, t: t.new(2, device="meta"),
    lambda m, t: m.Tensor(m.arange(4.0).storage()),
    lambda m, t: m.Tensor(m.arange(3).storage()),
    lambda m, t: m.Tensor(m.arange(4.0).storage().untyped()),
    lambda m, t: t.new(t.storage()),
]


@pytest.mark.parametrize("i", range(len(FORMS)))
def test_forms_as_torch(i):
    e = outcome(lambda: FORMS[i](ember, ember.arange(4.0, dtype=ember.float64)))
    t = outcome(lambda: FORMS[i](torch, torch.arange(4.0, dtype=torch.float64)))
    assert e == t


def test_invalid_combinations_name_the_signatures():
    for fn in (lambda m: m.Tensor(2, dtype=m.float64), lambda m: m.Tensor(m.ones(1), 2),
               lambda m: m.Tensor([1, 2], 3)):
        e, t = outcome(lambda: fn(ember)), outcome(lambda: fn(torch))
        assert e == t


def test_new_with_other_dtype_tensor():
    e = outcome(lambda: ember.arange(4.0, dtype=ember.float64).new(ember.arange(3)))
    t = outcome(lambda: torch.arange(4.0, dtype=torch.float64).new(torch.arange(3)))
    assert e[0] == t[0] == "TypeError"
    assert e[1] == t[1]


def test_alias_semantics():
    t = ember.arange(4.0)
    a = ember.Tensor(t)
    assert a is not t and a.data_ptr() == t.data_ptr() and a._base is t
    x = ember.ones(2, requires_grad=True)
    y = ember.Tensor(x)
    assert y.requires_grad and type(y.grad_fn).__name__ == "AliasBackward0"
    n = t.new(t)
    assert n.data_ptr() == t.data_ptr()
    s = ember.Tensor(t.storage())
    assert s.data_ptr() == t.data_ptr() and s.untyped_storage() is t.untyped_storage()


def test_subclass_legacy_constructor():
    class MySub(ember.Tensor):
        pass

    t = ember.arange(3.0)
    s = MySub(t)
    assert type(s) is MySub and s.data_ptr() == t.data_ptr() and s._base is t
    assert not s.requires_grad
    s2 = MySub([1, 2])
    assert type(s2) is MySub and s2.tolist() == [1.0, 2.0]
    assert type(MySub(2, 3)) is MySub and tuple(MySub(2, 3).shape) == (2, 3)

    class WithInit(ember.Tensor):
        def __init__(self, data, tag):
            self.tag = tag

    with pytest.raises(TypeError, match=r"got \(Tensor, str\)"):
        WithInit(t, "hi")  # the legacy constructor sees both arguments, as in torch

    class WithNew(ember.Tensor):
        def __new__(cls, data, scale=2.0):
            return super().__new__(cls, data * scale)

    n = WithNew(t)
    assert type(n) is WithNew and n.tolist() == [0.0, 2.0, 4.0]


def test_default_dtype_applies():
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.Tensor(2).dtype is ember.float64
        assert ember.Tensor([1, 2]).dtype is ember.float64
    finally:
        ember.set_default_dtype(ember.float32)
