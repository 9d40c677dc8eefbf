"""The binding's core: Python object identity and preservation, op argument binding, dtypes,
devices and sizes, errors. Compared with real PyTorch (Debian's 1.13) where it has the behaviour."""
import gc
import weakref

import numpy as np
import pytest
import torch

ember = pytest.importorskip("ember", reason="the ember package is not built (run `make test`)")
from ember import _C  # noqa: E402


class Sub(ember.Tensor):
    # No __torch_function__: these tests are about the object, not the override protocol.
    __torch_function__ = _C._disabled_torch_function_impl


def make_sub(t):
    return _C._tensor_from_base(Sub, t)


# ---- Note [Python object preservation] ----

def test_same_object_every_time():
    a = ember.zeros(3)
    assert a.add_(1) is a
    v = a.view(3)
    assert v._base is a
    assert v._base is v._base


def test_subclass_survives_while_only_cpp_holds_it():
    x = make_sub(ember.arange(0, 6).to(ember.float32))
    x.tag = "kept"
    xid = id(x)
    v = x.view(2, 3)  # the view's impl holds x's impl: C++ is now the only other owner
    del x
    gc.collect()
    base = v._base
    assert type(base) is Sub
    assert base.tag == "kept"
    assert id(base) == xid


def test_preserved_object_is_freed_with_the_last_cpp_owner():
    x = make_sub(ember.ones(4))
    ref = weakref.ref(x)
    v = x.view(2, 2)
    del x
    gc.collect()
    assert ref() is not None  # owned by the impl the view holds
    del v
    gc.collect()
    assert ref() is None


def test_dict_cycle_survives_gc_while_cpp_holds_the_tensor():
    x = make_sub(ember.ones(2))
    x.me = x  # a cycle through __dict__
    v = x.view(2)
    del x
    gc.collect()
    assert v._base.me is v._base
    base_ref = weakref.ref(v._base)
    v._base.me = None
    del v
    gc.collect()
    assert base_ref() is None


def test_plain_tensor_is_freed_without_gc():
    gc.disable()
    try:
        x = ember.ones(3)
        ref = weakref.ref(x)
        del x
        assert ref() is None  # no cycle: refcounting frees it at once
    finally:
        gc.enable()


def test_use_count_counts_cpp_owners():
    a = ember.ones(3)
    assert a._use_count() == 1
    v = a.view(3)
    assert a._use_count() == 2
    del v
    assert a._use_count() == 1


# ---- argument binding (Note [Binding Python arguments]) ----

def test_varargs_sizes_and_single_int_dims():
    assert ember.zeros(2, 3).shape == (2, 3)
    assert ember.zeros((2, 3)).shape == ember.Size([2, 3])
    assert ember.ones(2, 3).view(3, 2).shape == (3, 2)
    assert ember.ones(2, 3).view([6]).shape == (6,)
    assert ember.ones(2, 3).sum(0).shape == (3,)
    assert ember.ones(2, 3).sum((0, 1)).shape == ()


@pytest.mark.parametrize("dtype", ["int32", "float16", "bfloat16", "float64", "uint8", "bool"])
@pytest.mark.parametrize("scalar", [2, 2.5, True])
def test_python_numbers_promote_weakly_like_torch(dtype, scalar):
    e = ember.ones(3, dtype=getattr(ember, dtype)) * scalar
    t = torch.ones(3, dtype=getattr(torch, dtype)) * scalar
    assert str(e.dtype).replace("ember.", "torch.") == str(t.dtype)
    np.testing.assert_allclose(np.array([float(v) for v in e]),
                               np.array([float(v) for v in t]))


def test_keywords_and_input_alias():
    a = ember.arange(0, 4).to(ember.float32)
    assert ember.add(input=a, other=a, alpha=3).sum().item() == 24.0
    assert ember.sum(a, dim=0, keepdim=True).shape == (1,)


def test_one_signature_names_the_bad_argument_like_torch():
    with pytest.raises(TypeError) as e:
        ember.add(ember.ones(1), "x")
    with pytest.raises(TypeError) as t:
        torch.add(torch.ones(1), "x")
    assert str(e.value) == str(t.value)


def test_invalid_combination_is_a_type_error_listing_signatures():
    with pytest.raises(TypeError) as e:
        ember.pow(ember.ones(1), "x")
    msg = str(e.value)
    assert msg.startswith("pow() received an invalid combination of arguments - got (Tensor, str), "
                          "but expected one of:\n * (Tensor input, Tensor exponent, *, Tensor out)")
    assert "\n * (Tensor input, Number exponent, *, Tensor out)" in msg  # as torch lists them


def test_factory_requires_grad_keyword():
    t = ember.zeros(2, requires_grad=True)
    assert t.requires_grad and t.is_leaf


# ---- dtypes, devices, sizes ----

def test_dtypes_are_singletons_with_torch_reprs():
    assert ember.ones(1).dtype is ember.float32
    assert ember.float is ember.float32 and ember.long is ember.int64
    for name in ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16",
                 "int32", "int64", "bool"]:
        assert repr(getattr(ember, name)) == repr(getattr(torch, name)).replace("torch.", "ember.")
        assert getattr(ember, name).is_floating_point == getattr(torch, name).is_floating_point


def test_device_objects_and_context_manager():
    assert ember.device("cpu") == ember.device("cpu")
    assert repr(ember.device("meta")) == repr(torch.device("meta"))
    assert str(ember.device("cpu")) == "cpu"
    with ember.device("meta"):
        t = ember.zeros(5, 3)
    assert t.device == ember.device("meta") and t.is_meta
    assert ember.zeros(1).device.type == "cpu"


def test_size_is_a_tuple_with_torch_repr():
    s = ember.ones(2, 3).shape
    assert isinstance(s, tuple) and s == (2, 3)
    assert repr(s) == repr(torch.ones(2, 3).shape).replace("torch.", "ember.")
    assert isinstance(s[0:1], ember.Size) and s.numel() == 6


# ---- errors ----

def test_cpp_errors_become_torch_exception_types_and_messages():
    with pytest.raises(RuntimeError) as e:
        ember.ones(2, 3).view(5)
    with pytest.raises(RuntimeError) as t:
        torch.ones(2, 3).view(5)
    assert str(e.value) == str(t.value)


def test_cpp_warning_is_a_python_user_warning():
    with pytest.warns(UserWarning, match="from C"):
        _C._warn("from C++")


# ---- predicates that answer Python bools ----

@pytest.mark.parametrize("lib_args", [
    ([1.0, 2.0], [1.0, 2.0 + 1e-9], {}),
    ([1.0, 2.0], [1.0, 2.1], {}),
    ([1.0, 2.0], [1.0, 2.1], {"atol": 0.2}),
    ([1.0, float("nan")], [1.0, float("nan")], {}),
    ([1.0, float("nan")], [1.0, float("nan")], {"equal_nan": True}),
])
def test_allclose_and_equal_like_torch(lib_args):
    a, b, kw = lib_args
    assert ember.allclose(ember.tensor(a), ember.tensor(b), **kw) == torch.allclose(
        torch.tensor(a), torch.tensor(b), **kw)
    assert ember.tensor(a).allclose(ember.tensor(b), **kw) == torch.tensor(a).allclose(
        torch.tensor(b), **kw)
    assert ember.equal(ember.tensor(a), ember.tensor(b)) == torch.equal(torch.tensor(a),
                                                                        torch.tensor(b))
    assert type(ember.allclose(ember.tensor(a), ember.tensor(b))) is bool
