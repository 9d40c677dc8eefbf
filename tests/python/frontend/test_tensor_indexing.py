"""Tensor.__getitem__ / __setitem__ against PyTorch 1.13 on the same inputs: values, shapes,
dtypes, view-ness, autograd through indexing, and the errors' types and messages."""
import numpy as np
import pytest
import torch

import ember


def pair(values=None, shape=(3, 4), dtype="float32"):
    """The same tensor in torch and in ember (arange reshaped unless values are given)."""
    if values is None:
        values = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    values = np.asarray(values)
    return torch.tensor(values), ember.tensor(values)


def same(t, e):
    assert str(e.dtype).replace("ember.", "") == str(t.dtype).replace("torch.", "")
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def index_for(lib, spec):
    """Builds an index from a library-neutral spec: ("T", values) becomes a tensor of lib."""
    if isinstance(spec, tuple) and spec and spec[0] == "T":
        return lib.tensor(spec[1])
    if isinstance(spec, tuple):
        return tuple(index_for(lib, s) for s in spec)
    return spec


GET_CASES = [
    1, -1, slice(None), slice(1, None), slice(None, None, 2), slice(1, 3), slice(5, 9),
    slice(-3, -1), (1, 2), (slice(None), 1), (Ellipsis, 1), (None, 1), (1, None, slice(None)),
    Ellipsis, None, True, False, (Ellipsis, None), (slice(None), slice(None, None, 3)),
    [0, 2], [[0, 1], [1, 2]], [True, False, True], ("T", [0, 2]), ("T", [[0], [2]]),
    ("T", [True, False, True]), (("T", [0, 2]), ("T", [1, 3])), (slice(None), ("T", [3, 0])),
    (("T", [0, 2]), slice(None), None), ("T", 1), (1, ("T", [0, 0, 3])), (0, [1, 2]),
    (("T", [[True, False, True, False]] * 3),), (slice(0, 1), ("T", [1]), ),
    (("T", [0, 1]), Ellipsis, ("T", [1, 2])), (1, slice(None, None, 2)),
]


@pytest.mark.parametrize("spec", GET_CASES, ids=repr)
def test_getitem_matches_torch(spec):
    t, e = pair()
    same(t[index_for(torch, spec)], e[index_for(ember, spec)])


def test_getitem_on_3d_with_numpy_integers_and_tensor_slice_bounds():
    t, e = pair(shape=(2, 3, 4))
    same(t[np.int64(1)], e[np.int64(1)])
    same(t[1:torch.tensor(2)], e[1:ember.tensor(2)])
    same(t[..., torch.tensor([0, 3])], e[..., ember.tensor([0, 3])])
    same(t[:, torch.tensor([[0, 1]]), torch.tensor([[2], [3]])], e[:, ember.tensor([[0, 1]]), ember.tensor([[2], [3]])])


def test_basic_indexing_gives_views_that_share_memory():
    base = ember.arange(12.0).view(3, 4).clone()  # not itself a view: it is the _base
    for idx in [0, slice(1, None), (slice(None), 1), (None, 1), Ellipsis, (slice(None, None, 2),)]:
        v = base[idx]
        assert v._base is base
        assert v._is_view()
    row = base[1]
    row[0] = 100.0
    assert base[1, 0].item() == 100.0
    assert base[1].data_ptr() == base.data_ptr() + 4 * 4
    assert base[:, 1].stride() == (4,)
    # advanced indexing copies, as PyTorch's
    adv = base[[0, 1]]
    assert adv._base is None and adv.data_ptr() != base.data_ptr()
    assert base[...] is not base


def test_indexing_records_autograd_nodes():
    x = ember.ones(2, 3, requires_grad=True)
    assert "grad_fn=<SelectBackward0>" in repr(x[0])
    assert "grad_fn=<SliceBackward0>" in repr(x[:, 1:])
    assert "grad_fn=<IndexBackward0>" in repr(x[ember.tensor([0, 0])])
    assert not x[0].is_leaf and x[0].requires_grad


@pytest.mark.skipif(not hasattr(ember.Tensor, "backward"), reason="Tensor.backward is bound by the autograd area")
def test_autograd_flows_through_indexing():
    for lib in (torch, ember):
        x = lib.arange(6.0).view(2, 3).requires_grad_()
        y = x[1, 1:] * 2 + x[lib.tensor([0, 0])].sum()
        y.sum().backward()
        if lib is torch:
            expected = x.grad.numpy()
        else:
            np.testing.assert_array_equal(x.grad.numpy(), expected)


SET_CASES = [
    (1, 7.0), ((slice(None), 1), -1.0), ([0, 2], 5.0), (("T", [True, False, True]), 3.0),
    ((("T", [0, 2]), ("T", [1, 3])), 9.0), ((Ellipsis, 0), 2), (None, 1.5), (slice(None, None, 2), 4.0),
]


@pytest.mark.parametrize("spec,value", SET_CASES, ids=repr)
def test_setitem_matches_torch(spec, value):
    t, e = pair()
    t[index_for(torch, spec)] = value
    e[index_for(ember, spec)] = value
    same(t, e)


def test_setitem_with_tensor_values_and_broadcasting():
    t, e = pair()
    t[:, 1:3] = torch.tensor([10.0, 20.0])
    e[:, 1:3] = ember.tensor([10.0, 20.0])
    t[torch.tensor([0, 2])] = torch.ones(1, 4) * 3
    e[ember.tensor([0, 2])] = ember.ones(1, 4) * 3
    t[0, 0] = torch.tensor(-5.0)
    e[0, 0] = ember.tensor(-5.0)
    same(t, e)


def test_setitem_converts_python_numbers_to_the_tensor_dtype():
    for values, value in [([0, 1, 2], 2.7), ([0, 1, 2], True), ([False, False], 2)]:
        t, e = pair(values)
        t[0] = value
        e[0] = value
        same(t, e)


def test_setitem_on_a_view_writes_the_base_and_bumps_its_version():
    base = ember.zeros(2, 3)
    v0 = base._version
    base[1][2] = 4.0
    assert base[1, 2].item() == 4.0
    assert base._version > v0


def errors(fn_t, fn_e):
    with pytest.raises(Exception) as et:
        fn_t()
    with pytest.raises(Exception) as ee:
        fn_e()
    assert type(ee.value) is type(et.value), (et.value, ee.value)
    assert str(ee.value) == str(et.value).replace("torch.", "ember.")


@pytest.mark.parametrize("spec", [
    5, (0, 7), -4, 1.5, (0, 0, 0), slice(None, None, -1), slice(None, None, 0), ("T", [0.5]),
    {}, "a", (0, "a"), [0, 5], ("T", 5), ("T", [[True]]),
], ids=repr)
def test_getitem_errors_match_torch(spec):
    t, e = pair()
    errors(lambda: t[index_for(torch, spec)], lambda: e[index_for(ember, spec)])


def test_getitem_errors_on_0d():
    errors(lambda: torch.tensor(1.0)[0], lambda: ember.tensor(1.0)[0])
    errors(lambda: torch.tensor(1.0)[:], lambda: ember.tensor(1.0)[:])


@pytest.mark.parametrize("value", [[1, 2], np.array([1.0, 2, 3, 4]), "a", None, np.float32(1)], ids=repr)
def test_setitem_refuses_what_torch_refuses(value):
    t, e = pair()

    def assign(x):
        x[0] = value

    errors(lambda: assign(t), lambda: assign(e))


def test_setitem_shape_mismatch_and_leaf_errors():
    t, e = pair()

    def assign(x, v):
        x[:] = v

    errors(lambda: assign(t, torch.ones(2, 4)), lambda: assign(e, ember.ones(2, 4)))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x = ember.ones(3, requires_grad=True)
        x[0] = 2.0


def test_indexing_dispatches_torch_function():
    pytest.importorskip("ember.overrides", reason="the Python-level dispatcher is the overrides area's")
    seen = []

    class Logged(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = ember._C._tensor_from_base(Logged, ember.arange(4.0))  # Tensor._make_subclass's core
    y = x[1:]
    x[0] = 5.0
    assert seen[:2] == [ember.Tensor.__getitem__, ember.Tensor.__setitem__]
    assert type(y) is Logged
    plain = ember.arange(4.0)
    idx = ember._C._tensor_from_base(Logged, ember.tensor([1]))
    plain[idx]
    assert seen[-1] is ember.Tensor.__getitem__
