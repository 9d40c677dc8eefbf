"""ember.finfo / iinfo / promote_types / can_cast / result_type / get_default_dtype /
set_default_dtype / is_tensor / is_floating_point / is_complex / is_nonzero / numel, with torch
1.13's results, reprs and errors."""
import pytest
import torch

import ember

FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
ALL = FLOATS + INTS + ["bool"]


def msg(e):
    return str(e.value).replace("torch.", "ember.")


@pytest.mark.parametrize("name", FLOATS)
def test_finfo(name):
    t, e = torch.finfo(getattr(torch, name)), ember.finfo(getattr(ember, name))
    for field in ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"]:
        assert getattr(e, field) == getattr(t, field), field
        assert type(getattr(e, field)) is type(getattr(t, field)), field
    assert repr(e) == repr(t) and str(e) == str(t)
    assert e == ember.finfo(getattr(ember, name))
    with pytest.raises(AttributeError):
        e.eps = 1.0


def test_finfo_default_and_comparisons():
    assert ember.finfo() == ember.finfo(ember.float32)
    assert ember.finfo(ember.float32) != ember.finfo(ember.float64)
    assert (ember.finfo(ember.float32) == 3) is False
    assert ember.finfo.__hash__ is None and torch.finfo.__hash__ is None
    try:
        ember.set_default_dtype(ember.float64)
        assert ember.finfo().dtype == "float64"
    finally:
        ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("name", INTS)
def test_iinfo(name):
    t, e = torch.iinfo(getattr(torch, name)), ember.iinfo(getattr(ember, name))
    for field in ["bits", "max", "min", "dtype"]:
        assert getattr(e, field) == getattr(t, field)
        assert type(getattr(e, field)) is type(getattr(t, field))
    assert repr(e) == repr(t)
    assert not hasattr(e, "eps")


def test_iinfo_of_quantized_dtypes():
    assert (ember.iinfo(ember.quint8).min, ember.iinfo(ember.quint8).max) == (0, 255)
    assert (ember.iinfo(ember.qint8).min, ember.iinfo(ember.qint8).max) == (-128, 127)
    assert ember.iinfo(ember.qint32).bits == 32


@pytest.mark.parametrize("call", [
    lambda m: m.finfo(m.int32), lambda m: m.finfo(m.bool), lambda m: m.finfo(3),
    lambda m: m.iinfo(m.float32), lambda m: m.iinfo(m.bool), lambda m: m.iinfo(),
])
def test_info_errors(call):
    with pytest.raises(TypeError) as t_err:
        call(torch)
    with pytest.raises(TypeError) as e_err:
        call(ember)
    if "missing" not in str(t_err.value):
        assert str(e_err.value) == msg(t_err)


@pytest.mark.parametrize("a", ALL)
@pytest.mark.parametrize("b", ALL)
def test_promote_types_and_can_cast(a, b):
    ta, tb, ea, eb = getattr(torch, a), getattr(torch, b), getattr(ember, a), getattr(ember, b)
    assert repr(ember.promote_types(ea, eb)) == repr(torch.promote_types(ta, tb)).replace("torch.", "ember.")
    assert ember.promote_types(ea, eb) is getattr(ember, str(torch.promote_types(ta, tb)).split(".")[1])
    assert ember.can_cast(ea, eb) == torch.can_cast(ta, tb)


def test_promotion_errors():
    with pytest.raises(TypeError) as t_err:
        torch.promote_types(torch.int32, 3)
    with pytest.raises(TypeError) as e_err:
        ember.promote_types(ember.int32, 3)
    assert str(e_err.value) == msg(t_err)
    with pytest.raises(TypeError) as t_err:
        torch.can_cast(1, torch.int)
    with pytest.raises(TypeError) as e_err:
        ember.can_cast(1, ember.int)
    assert str(e_err.value) == msg(t_err)
    with pytest.raises(RuntimeError) as t_err:
        torch.promote_types(torch.int32, torch.quint8)
    with pytest.raises(RuntimeError) as e_err:
        ember.promote_types(ember.int32, ember.quint8)
    assert str(e_err.value) == str(t_err.value)
    assert ember.promote_types(type1=ember.int32, type2=ember.bool) is ember.int32
    assert ember.can_cast(**{"from": ember.int32, "to": ember.bool}) is False


def result_type_cases(m):
    return [
        (m.tensor([1]), 1.0), (m.tensor([1]), m.tensor([1.0])), (1, 2.0), (True, 2), (2, True),
        (m.tensor(1, dtype=m.int8), 1000), (m.tensor([1], dtype=m.int8), m.tensor(1.0)),
        (m.tensor([1], dtype=m.uint8), m.tensor(-1)), (1.5, m.tensor([1], dtype=m.float16)),
        (m.tensor([True]), 1), (m.tensor([True]), True), (m.tensor(1, dtype=m.int32), 1.5),
        (m.tensor([1.0], dtype=m.bfloat16), m.tensor([1.0], dtype=m.float16)),
    ]


def test_result_type():
    for (ta, tb), (ea, eb) in zip(result_type_cases(torch), result_type_cases(ember)):
        assert repr(ember.result_type(ea, eb)) == repr(torch.result_type(ta, tb)).replace("torch.", "ember."), (ta, tb)
    assert ember.result_type(tensor=ember.tensor([1]), other=2.5) is ember.float32
    assert ember.result_type(scalar1=1, scalar2=2) is ember.int64


@pytest.mark.parametrize("args", [("a", 1), (1,), (1, 2, 3)])
def test_result_type_errors(args):
    conv = lambda m: tuple(m.tensor([1]) if a == "T" else a for a in args)  # noqa: E731
    with pytest.raises(TypeError) as t_err:
        torch.result_type(*conv(torch))
    with pytest.raises(TypeError) as e_err:
        ember.result_type(*conv(ember))
    first = lambda s: s.split("\n")[0]  # noqa: E731
    assert first(str(e_err.value)) == first(str(t_err.value))
    assert "(Number scalar1, Number scalar2)" in str(e_err.value)


def test_result_type_reaches_torch_function():
    class Sub(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "handled" if func is ember.result_type else NotImplemented

    assert ember.result_type(ember.ones(1).as_subclass(Sub), 1) == "handled"


def test_default_dtype_effects():
    assert ember.get_default_dtype() is ember.float32
    try:
        for name in ["float64", "float16", "bfloat16"]:
            torch.set_default_dtype(getattr(torch, name))
            ember.set_default_dtype(getattr(ember, name))
            assert ember.get_default_dtype() is getattr(ember, name)
            for make in [lambda m: m.tensor(1.5), lambda m: m.tensor([1, 2.5]), lambda m: m.zeros(2),
                         lambda m: m.ones(1), lambda m: m.rand(2), lambda m: m.randn(2),
                         lambda m: m.arange(3.0), lambda m: m.empty(1), lambda m: m.full((1,), 2.0),
                         lambda m: m.tensor(1), lambda m: m.tensor(1) * 1.5,
                         lambda m: m.tensor([1, 2]) / 2, lambda m: m.linspace(0, 1, 3)]:
                assert str(make(ember).dtype) == str(make(torch).dtype).replace("torch.", "ember.")
    finally:
        torch.set_default_dtype(torch.float32)
        ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("bad", ["int32", 3, "float"])
def test_set_default_dtype_errors(bad):
    conv = lambda m: getattr(m, bad) if bad == "int32" else bad  # noqa: E731
    with pytest.raises(TypeError) as t_err:
        torch.set_default_dtype(conv(torch))
    with pytest.raises(TypeError) as e_err:
        ember.set_default_dtype(conv(ember))
    assert str(e_err.value) == str(t_err.value)
    assert ember.get_default_dtype() is ember.float32


def test_predicates():
    for m in (torch, ember):
        assert m.is_tensor(m.ones(1)) and not m.is_tensor(3) and not m.is_tensor([1])
        assert m.is_floating_point(m.ones(1)) and not m.is_floating_point(m.ones(1, dtype=m.int64))
        assert m.is_complex(m.ones(1)) is False
        assert m.numel(m.zeros(2, 3)) == 6 and m.numel(m.tensor(1)) == 1
        assert m.is_nonzero(m.tensor([1])) is True and m.is_nonzero(m.tensor(0.0)) is False
        assert m.is_storage(3) is False
    for fn in ["is_floating_point", "numel", "is_complex", "is_nonzero"]:
        with pytest.raises(TypeError) as t_err:
            getattr(torch, fn)(3)
        with pytest.raises(TypeError) as e_err:
            getattr(ember, fn)(3)
        assert str(e_err.value) == str(t_err.value)
    for bad in ["[]", "[1, 2]"]:
        with pytest.raises(RuntimeError) as t_err:
            torch.is_nonzero(torch.tensor(eval(bad)))
        with pytest.raises(RuntimeError) as e_err:
            ember.is_nonzero(ember.tensor(eval(bad)))
        assert str(e_err.value) == str(t_err.value)
    class Sub(ember.Tensor):
        pass
    assert ember.is_tensor(ember.ones(1).as_subclass(Sub))
    assert ember.numel(ember.ones(4).as_subclass(Sub)) == 4
