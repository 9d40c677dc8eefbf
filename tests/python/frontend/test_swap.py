"""ember.utils.swap_tensors (extension-spec § 1) and the ember.__future__ flags (§ 2).

PyTorch 1.13 has neither, so the expected values are the spec's."""
import weakref

import pytest

import ember


def test_swap_exchanges_contents_and_keeps_identity():
    t1, t2 = ember.zeros(2), ember.ones(3)
    i1, i2 = id(t1), id(t2)
    ember.utils.swap_tensors(t1, t2)
    assert (id(t1), id(t2)) == (i1, i2)
    assert tuple(t1.shape) == (3,) and t1.sum().item() == 3.0
    assert tuple(t2.shape) == (2,) and t2.sum().item() == 0.0


def test_swap_moves_class_dict_and_slots():
    class A(ember.Tensor):
        __slots__ = ["s"]

    class B(ember.Tensor):
        __slots__ = ["s"]

    a = ember.zeros(1).as_subclass(A)
    b = ember.ones(2).as_subclass(B)
    a.s, a.x = "a-slot", "a-dict"
    b.y = "b-dict"  # b's slot unset: the slot moves and is deleted from its source
    ember.utils.swap_tensors(a, b)
    assert type(a) is B and type(b) is A
    assert a.__dict__ == {"y": "b-dict"} and b.__dict__ == {"x": "a-dict"}
    assert b.s == "a-slot" and not hasattr(a, "s")
    assert tuple(a.shape) == (2,) and tuple(b.shape) == (1,)


def test_swap_refusals():
    t1, t2 = ember.zeros(1), ember.zeros(1)
    r = weakref.ref(t1)
    with pytest.raises(RuntimeError) as e:
        ember.utils.swap_tensors(t1, t2)
    assert str(e.value) == "Cannot swap t1 because it has weakref associated with it"
    r2 = weakref.ref(t2)
    with pytest.raises(RuntimeError) as e:
        ember.utils.swap_tensors(ember.zeros(1), t2)
    assert str(e.value) == "Cannot swap t2 because it has weakref associated with it"
    del r, r2

    class S(ember.Tensor):
        __slots__ = ["q"]

    with pytest.raises(RuntimeError) as e:
        ember.utils.swap_tensors(ember.zeros(1).as_subclass(S), ember.zeros(1))
    assert str(e.value) == "Cannot swap t1 and t2 if they have different slots"

    # Saved for backward: its graph would read the other's data.
    x = ember.ones(2, requires_grad=True)
    y = x * x
    with pytest.raises(RuntimeError) as e:
        ember.utils.swap_tensors(x, ember.zeros(2))
    assert str(e.value).startswith("Expected use_count of t1 to be 1 or 2 with an AccumulateGrad "
                                   "node but got ")
    assert str(e.value).endswith(" make sure you are not holding references to the tensor in "
                                 "other places.")
    del y


@pytest.mark.skipif(not hasattr(ember.Tensor, "backward"), reason="Tensor.backward not bound")
def test_swapped_leaf_poisons_old_graph():
    x = ember.ones(2, requires_grad=True)
    loss = x.sum()
    ember.utils.swap_tensors(x, ember.zeros(2))
    with pytest.raises(RuntimeError, match="poisoned by swap_tensors"):
        loss.backward()


def test_cpp_swap_path_moves_python_state():
    # Module._apply and load_state_dict call C++ swap_tensors directly; a wrapper subclass's
    # payload (__dict__) must move with the impl there too.
    class W(ember.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = ember.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype)
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            if func is ember.ops.aten._to_copy.default:
                return W(func(args[0].elem, **kwargs))
            raise NotImplementedError(str(func))

    w = W(ember.ones(2))
    w2 = ember._C._boxed_call("aten::_to_copy", [w], {"dtype": ember.float64})
    assert type(w2) is W and w2.elem.dtype is ember.float64
    ident = id(w)
    ember._C._swap_tensors(w, w2)
    assert id(w) == ident and w.dtype is ember.float64 and w.elem.dtype is ember.float64
    assert w2.elem.dtype is ember.float32


def test_future_flags():
    f = ember.__future__
    assert f.get_swap_module_params_on_conversion() is False
    assert f.get_overwrite_module_params_on_conversion() is False
    try:
        f.set_swap_module_params_on_conversion(True)
        f.set_overwrite_module_params_on_conversion(True)
        assert f.get_swap_module_params_on_conversion() is True
        assert f.get_overwrite_module_params_on_conversion() is True
    finally:
        f.set_swap_module_params_on_conversion(False)
        f.set_overwrite_module_params_on_conversion(False)
    assert f.get_swap_module_params_on_conversion() is False
