"""Tensor.to and its shorthands, new_*, tolist, and ember.tensor / as_tensor / the factories'
Python signatures, against PyTorch 1.13 on the same inputs."""
import warnings

import numpy as np
import pytest
import torch

import ember


def name(dtype):
    return str(dtype).split(".")[-1]


def same(t, e):
    assert name(e.dtype) == name(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def errors(fn_t, fn_e):
    with pytest.raises(Exception) as et:
        fn_t()
    with pytest.raises(Exception) as ee:
        fn_e()
    assert type(ee.value) is type(et.value), (et.value, ee.value)
    assert str(ee.value) == str(et.value).replace("torch.", "ember.")


# ---- Tensor.to ----

TO_FORMS = [
    lambda L, x: x.to(L.float64),
    lambda L, x: x.to("cpu"),
    lambda L, x: x.to(L.device("cpu")),
    lambda L, x: x.to("cpu", L.int32),
    lambda L, x: x.to(L.ones(1, dtype=L.int16)),
    lambda L, x: x.to(dtype=L.float16),
    lambda L, x: x.to(device="cpu", dtype=L.int64, copy=True),
    lambda L, x: x.to(L.float32, False, True),
    lambda L, x: x.to(L.float32, non_blocking=True),
    lambda L, x: x.to(L.float64, memory_format=L.preserve_format),
    lambda L, x: x.to(None),
    lambda L, x: x.to(),
    lambda L, x: x.to("meta"),
]


@pytest.mark.parametrize("form", range(len(TO_FORMS)))
def test_to_forms_match_torch(form):
    t = TO_FORMS[form](torch, torch.arange(6.0).view(2, 3))
    e = TO_FORMS[form](ember, ember.arange(6.0).view(2, 3))
    assert name(e.dtype) == name(t.dtype) and e.device.type == t.device.type
    assert tuple(e.shape) == tuple(t.shape)
    if t.device.type == "cpu":
        same(t, e)


def test_to_returns_self_when_nothing_changes_and_copies_when_asked():
    x = ember.arange(4.0)
    assert x.to(x.dtype) is x
    assert x.to("cpu") is x
    assert x.to(x) is x
    assert x.to(device=ember.device("cpu"), dtype=ember.float32) is x
    assert x.float() is x and x.cpu() is x and x.type(ember.float32) is x
    c = x.to(ember.float32, copy=True)
    assert c is not x and c.data_ptr() != x.data_ptr()
    assert x.double() is not x


def test_to_records_autograd_and_keeps_transposed_strides():
    x = ember.ones(2, 3, requires_grad=True)
    y = x.double()
    assert y.requires_grad and "ToCopyBackward0" in repr(y)
    tt = torch.arange(6.0).view(2, 3).t().double()
    te = ember.arange(6.0).view(2, 3).t().double()
    assert te.stride() == tt.stride()


@pytest.mark.parametrize("call", [
    lambda L, x: x.to(L.float32, L.float64),
    lambda L, x: x.to(L.float32, "cpu"),
    lambda L, x: x.to(foo=1),
    lambda L, x: x.to(L.float32, True, foo=1, bar=2),
    lambda L, x: x.to(L.float32, 1),
    lambda L, x: x.float(L.contiguous_format),
    lambda L, x: x.type(L.__name__ + ".Foo"),
    lambda L, x: x.new_zeros(2.5),
    lambda L, x: x.new_full(2, 3),
])
def test_to_family_errors_match_torch(call):
    # PyTorch 1.13 names sizes "tuple of SymInts"; ember's parser (and newer PyTorch) "tuple of ints".
    with pytest.raises(Exception) as et:
        call(torch, torch.arange(3.0))
    with pytest.raises(Exception) as ee:
        call(ember, ember.arange(3.0))
    assert type(ee.value) is type(et.value)
    assert str(ee.value) == str(et.value).replace("torch.", "ember.").replace("SymInts", "ints")


SHORTHANDS = ["float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte", "bool"]


@pytest.mark.parametrize("method", SHORTHANDS)
def test_dtype_shorthands(method):
    t = getattr(torch.tensor([0.0, 1.5, -2.0]), method)()
    e = getattr(ember.tensor([0.0, 1.5, -2.0]), method)()
    assert name(e.dtype) == name(t.dtype)
    np.testing.assert_array_equal(e.float().numpy(), t.float().numpy())


def test_type():
    x = ember.arange(3)
    assert x.type() == "ember.LongTensor"
    assert ember.ones(2, dtype=ember.bfloat16).type() == "ember.BFloat16Tensor"
    assert x.type(ember.float64).dtype is ember.float64
    assert x.type("ember.DoubleTensor").dtype is ember.float64
    assert x.type("torch.IntTensor").dtype is ember.int32  # code written for PyTorch


# ---- new_* ----

@pytest.mark.parametrize("call", [
    lambda L, x: x.new_zeros(2, 3),
    lambda L, x: x.new_zeros((2, 3), dtype=L.int64),
    lambda L, x: x.new_ones([2]),
    lambda L, x: x.new_ones(size=(1, 2)),
    lambda L, x: x.new_full((2,), 3),
    lambda L, x: x.new_full((2, 2), 1.5, dtype=L.float64),
    lambda L, x: x.new_empty(0),
    lambda L, x: x.new_tensor([1, 2]),
    lambda L, x: x.new_tensor([[1.5], [2]], dtype=L.int32),
    lambda L, x: x.new_zeros(()),
])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_new_factories_match_torch(call, dtype):
    t = call(torch, torch.ones(1, dtype=getattr(torch, dtype)))
    e = call(ember, ember.ones(1, dtype=getattr(ember, dtype)))
    assert name(e.dtype) == name(t.dtype) and tuple(e.shape) == tuple(t.shape)
    if "empty" not in repr(call.__code__.co_consts):
        same(t, e)


def test_new_factories_requires_grad_and_device():
    x = ember.ones(1)
    assert x.new_zeros(2, requires_grad=True).requires_grad
    assert x.new_ones(2, device="meta").is_meta
    with pytest.warns(UserWarning, match=r"rather than tensor.new_tensor\(sourceTensor\)"):
        x.new_tensor(ember.ones(2))


# ---- tolist / item ----

@pytest.mark.parametrize("values,dtype", [
    ([[1.5, 2.0], [3.25, -4.0]], "float32"), ([0.1, 0.2], "float32"), ([0.1], "float64"),
    ([1, 2, 3], "int64"), ([True, False], "bool"), (7, "int32"), (2.5, "float16"), ([[]], "float32"),
    ([1.1, 2.2], "bfloat16"),
])
def test_tolist_matches_torch(values, dtype):
    t = torch.tensor(values, dtype=getattr(torch, dtype))
    e = ember.tensor(values, dtype=getattr(ember, dtype))
    assert e.tolist() == t.tolist()
    assert [type(v) for v in np.ravel(e.tolist())] == [type(v) for v in np.ravel(t.tolist())]
    assert e.t().tolist() == t.t().tolist() if t.dim() == 2 else True


def test_tolist_of_meta_tensors_fails_as_torch():
    errors(lambda: torch.ones(2, device="meta").tolist(), lambda: ember.ones(2, device="meta").tolist())


# ---- ember.tensor / as_tensor ----

TENSOR_DATA = [
    [1, 2.5], [True, 1], [True, False], [], [[]], [[1, 2], [3, 4]], (1, 2), 3.5, 7, True,
    [np.float64(2), 1], np.float32(2), np.int32(2), np.array([1.0, 2.0]), np.arange(6).reshape(2, 3),
    [np.array([1, 2]), np.array([3, 4])], range(3), [[1.5, 2], [3, 4]],
]


@pytest.mark.parametrize("data", TENSOR_DATA, ids=repr)
def test_tensor_infers_dtype_and_shape_as_torch(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(torch.tensor(data), ember.tensor(data))


@pytest.mark.parametrize("data,dtype", [
    ([1.7, -1.7], "int64"), ([1, 2], "float16"), ([1, 0, 2], "bool"), ([[1, 2]], "float64"), (3, "uint8"),
])
def test_tensor_with_dtype(data, dtype):
    same(torch.tensor(data, dtype=getattr(torch, dtype)), ember.tensor(data, dtype=getattr(ember, dtype)))


def test_tensor_of_one_element_tensors():
    same(torch.tensor([torch.tensor(1.0), 2]), ember.tensor([ember.tensor(1.0), 2]))
    same(torch.tensor([torch.tensor([1.0]), torch.tensor([2.0])]), ember.tensor([ember.tensor([1.0]), ember.tensor([2.0])]))


@pytest.mark.parametrize("data", [
    [[1, 2], [3]], [[1, 2], 3], [1, [2, 3]], "abc", None, [None], 2 ** 70,
    [torch.tensor([1.0, 3]), torch.tensor([2.0, 4])],
], ids=repr)
def test_tensor_errors_match_torch(data):
    def convert(lib):
        if isinstance(data, list) and data and isinstance(data[0], torch.Tensor):
            return lib.tensor([lib.tensor(x.tolist()) for x in data])
        return lib.tensor(data)

    errors(lambda: convert(torch), lambda: convert(ember))


def test_tensor_copies_and_warns_for_tensor_data():
    src = ember.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match=r"rather than ember.tensor\(sourceTensor\)"):
        t = ember.tensor(src)
    assert t.data_ptr() != src.data_ptr() and not t.requires_grad
    arr = np.arange(3.0)
    t = ember.tensor(arr)
    arr[0] = 100
    assert t[0].item() == 0.0


def test_tensor_requires_grad_device_and_default_dtype():
    assert ember.tensor([1.0], requires_grad=True).requires_grad
    assert ember.tensor([1.0], device="meta").is_meta
    with pytest.raises(RuntimeError, match="floating point"):
        ember.tensor(1, requires_grad=True)
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.tensor([1.0]).dtype is ember.float64
        assert ember.tensor([1]).dtype is ember.int64
    finally:
        ember.set_default_dtype(ember.float32)


def test_as_tensor_shares_when_it_can():
    arr = np.arange(3.0)
    t = ember.as_tensor(arr)
    assert t.data_ptr() == arr.ctypes.data
    assert ember.as_tensor(arr, dtype=ember.float32).data_ptr() != arr.ctypes.data
    y = ember.ones(2)
    assert ember.as_tensor(y) is y
    assert ember.as_tensor(y, dtype=ember.float64).dtype is ember.float64
    same(torch.as_tensor([1, 2]), ember.as_tensor([1, 2]))


# ---- factories' Python signatures ----

FACTORIES = [
    lambda L: L.arange(5), lambda L: L.arange(1, 5, 0.5), lambda L: L.arange(1, 4), lambda L: L.arange(5.0),
    lambda L: L.arange(0, 10, 3, dtype=L.float64), lambda L: L.arange(end=3), lambda L: L.eye(3),
    lambda L: L.eye(2, 3), lambda L: L.eye(2, dtype=L.int64), lambda L: L.zeros(2, 3), lambda L: L.zeros((2, 3)),
    lambda L: L.ones([2], dtype=L.int32), lambda L: L.full((2, 2), 1.5), lambda L: L.full((2,), 7),
    lambda L: L.full((1,), True), lambda L: L.linspace(0, 1, 5), lambda L: L.zeros_like(L.ones(2, 3)),
    lambda L: L.ones_like(L.ones(2), dtype=L.int64), lambda L: L.full_like(L.ones(2), 3),
    lambda L: L.empty(2, 3).shape, lambda L: L.zeros(()), lambda L: L.empty(0),
]


@pytest.mark.parametrize("make", range(len(FACTORIES)))
def test_factory_signatures_match_torch(make):
    t, e = FACTORIES[make](torch), FACTORIES[make](ember)
    if isinstance(t, torch.Size):
        assert tuple(e) == tuple(t)
    elif make == 21:
        assert tuple(e.shape) == tuple(t.shape)
    else:
        same(t, e)


def test_random_factories_shapes_dtypes_and_ranges():
    for make in [lambda L: L.rand(2, 3), lambda L: L.randn(4), lambda L: L.randint(0, 10, (3,)),
                 lambda L: L.randint(10, (2, 2)), lambda L: L.randint(3, 5, size=(4,)),
                 lambda L: L.rand_like(L.ones(2, dtype=L.float64)), lambda L: L.randn_like(L.ones(3))]:
        t, e = make(torch), make(ember)
        assert name(e.dtype) == name(t.dtype) and tuple(e.shape) == tuple(t.shape)
    r = ember.randint(3, 5, (100,))
    assert r.min().item() >= 3 and r.max().item() <= 4
    assert ember.rand_like(ember.ones(2), requires_grad=True).requires_grad


def test_identity_of_in_place_and_no_op_results():
    x = ember.ones(3)
    assert x.add_(1) is x
    assert x.to(x.dtype) is x
    assert x.clone(memory_format=ember.preserve_format) is not x
    y = x[0]
    assert y._base is x and y._base is x  # the same Python object each time


def test_hand_written_methods_dispatch_torch_function():
    pytest.importorskip("ember.overrides", reason="the Python-level dispatcher is the overrides area's")
    seen = []

    class Logged(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = ember._C._tensor_from_base(Logged, ember.ones(2))
    assert type(x.to(ember.float64)) is Logged
    x.float()
    x.new_zeros(2)
    x.tolist()
    assert seen == [ember.Tensor.to, ember.Tensor.float, ember.Tensor.new_zeros, ember.Tensor.tolist]
