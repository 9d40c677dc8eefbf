"""Zero-copy interop (numpy(), from_numpy, DLPack with numpy and real PyTorch 1.13), grad mode,
manual_seed and printing, against PyTorch 1.13."""
import gc

import numpy as np
import pytest
import torch

import ember


def errors(fn_t, fn_e):
    with pytest.raises(Exception) as et:
        fn_t()
    with pytest.raises(Exception) as ee:
        fn_e()
    assert type(ee.value) is type(et.value), (et.value, ee.value)
    assert str(ee.value) == str(et.value).replace("torch.", "ember.")


# ---- numpy ----

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "uint8", "int16", "int32", "int64", "bool"])
def test_numpy_roundtrip_dtypes(dtype):
    arr = (np.arange(6) % 2).astype(dtype).reshape(2, 3)
    t = ember.from_numpy(arr)
    assert str(t.dtype) == str(torch.from_numpy(arr).dtype).replace("torch.", "ember.")
    back = t.numpy()
    assert back.dtype == arr.dtype
    np.testing.assert_array_equal(back, arr)


def test_from_numpy_shares_memory_and_keeps_the_array_alive():
    arr = np.arange(6.0).reshape(2, 3)
    t = ember.from_numpy(arr)
    assert t.data_ptr() == arr.ctypes.data
    arr[0, 1] = 42.0
    assert t[0, 1].item() == 42.0
    t[1, 2] = -1.0
    assert arr[1, 2] == -1.0
    tr = ember.from_numpy(arr.T)  # strides come along
    assert tr.stride() == torch.from_numpy(arr.T).stride()
    view = ember.from_numpy(np.arange(10.0)[2::3])
    assert view.tolist() == [2.0, 5.0, 8.0]
    del arr
    gc.collect()
    assert t.sum().item() == 0 + 42 + 2 + 3 + 4 - 1


def test_numpy_shares_memory_and_outlives_the_tensor():
    t = ember.arange(6.0).view(2, 3)
    a = t.numpy()
    assert a.ctypes.data == t.data_ptr()
    a[0, 0] = 9.0
    assert t[0, 0].item() == 9.0
    tt = t.t()
    assert tt.numpy().strides == torch.arange(6.0).view(2, 3).t().numpy().strides
    del t, tt
    gc.collect()
    assert a.sum() == 9 + 1 + 2 + 3 + 4 + 5
    with ember.no_grad():  # as PyTorch: under no_grad a tensor that requires grad converts
        assert ember.ones(2, requires_grad=True).numpy().tolist() == [1.0, 1.0]
    assert ember.ones(2, requires_grad=True).numpy(force=True).tolist() == [1.0, 1.0]
    assert np.asarray(ember.ones(2)).dtype == np.float32


@pytest.mark.parametrize("make", [
    lambda L: L.ones(2, requires_grad=True).numpy(),
    lambda L: L.ones(2, dtype=L.bfloat16).numpy(),
    lambda L: L.ones(2, device="meta").numpy(),
    lambda L: L.from_numpy([1]),
    lambda L: L.from_numpy(np.arange(3)[::-1]),
    lambda L: L.tensor(np.arange(3)[::-1]),
    lambda L: L.as_tensor(np.arange(3)[::-1]),
])
def test_numpy_errors_match_torch(make):
    errors(lambda: make(torch), lambda: make(ember))


def test_from_numpy_refuses_dtypes_ember_lacks():
    with pytest.raises(TypeError, match=r"can't convert np.ndarray of type numpy.uint16\. The only supported"):
        ember.from_numpy(np.arange(3, dtype=np.uint16))
    with pytest.raises(ValueError, match="byte order"):
        ember.from_numpy(np.arange(3, dtype=">f4"))
    ro = np.arange(3.0)
    ro.flags.writeable = False
    t = ember.from_numpy(ro)  # a one-time UserWarning, as PyTorch
    assert t.tolist() == [0.0, 1.0, 2.0]


# ---- DLPack ----

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "uint8", "int16", "int32", "int64"])
def test_dlpack_with_torch_both_ways_without_copies(dtype):
    e = ember.arange(6).to(getattr(ember, dtype)).view(2, 3)
    t = torch.from_dlpack(e)
    assert t.data_ptr() == e.data_ptr() and str(t.dtype) == "torch." + dtype
    t[0, 0] = 5
    assert e[0, 0].item() == 5
    back = ember.from_dlpack(torch.arange(6).to(getattr(torch, dtype)).view(2, 3).t())
    assert back.stride() == (1, 3) and back.tolist() == torch.arange(6).to(getattr(torch, dtype)).view(2, 3).t().tolist()
    src = torch.ones(3, dtype=getattr(torch, dtype))
    shared = ember.from_dlpack(src)
    assert shared.data_ptr() == src.data_ptr()
    shared[1] = 7
    assert src[1].item() == 7


def test_dlpack_with_numpy_and_lifetimes():
    e = ember.arange(4.0)
    a = np.from_dlpack(e)
    assert a.ctypes.data == e.data_ptr()
    del e
    gc.collect()
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]  # the capsule's context keeps the tensor alive
    arr = np.arange(5.0)[1::2]
    t = ember.from_dlpack(arr)
    assert t.data_ptr() == arr.ctypes.data and t.tolist() == [1.0, 3.0]
    del arr
    gc.collect()
    assert t.tolist() == [1.0, 3.0]  # numpy's deleter runs only when t's storage goes
    assert ember.from_dlpack(ember.ones(2, dtype=ember.bfloat16)).dtype is ember.bfloat16
    assert ember.from_dlpack(ember.tensor([True, False])).tolist() == [True, False]


def test_dlpack_capsule_protocol():
    e = ember.ones(2)
    assert e.__dlpack_device__() == (1, 0) == tuple(torch.ones(1).__dlpack_device__())
    cap = e.__dlpack__()
    assert 'capsule object "dltensor"' in repr(cap)
    t = ember.from_dlpack(cap)
    assert 'capsule object "used_dltensor"' in repr(cap) and t.data_ptr() == e.data_ptr()
    errors(lambda: torch.from_dlpack(cap), lambda: ember.from_dlpack(cap))
    errors(lambda: torch.from_dlpack([1]), lambda: ember.from_dlpack([1]))
    errors(lambda: torch.ones(2, requires_grad=True).__dlpack__(), lambda: ember.ones(2, requires_grad=True).__dlpack__())
    errors(lambda: torch.ones(2, device="meta").__dlpack__(), lambda: ember.ones(2, device="meta").__dlpack__())
    errors(lambda: torch.ones(2, device="meta").__dlpack_device__(), lambda: ember.ones(2, device="meta").__dlpack_device__())
    unused = ember.ones(3).__dlpack__()
    del unused  # an unconsumed capsule frees its tensor through the deleter
    gc.collect()
    assert ember.from_dlpack(torch.ones(2).__dlpack__()).tolist() == [1.0, 1.0]


# ---- grad mode ----

def test_grad_mode_context_managers():
    x = ember.ones(2, requires_grad=True)
    with ember.no_grad():
        assert not ember.is_grad_enabled()
        assert not (x * 2).requires_grad
        with ember.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad
    assert ember.is_grad_enabled() and (x * 2).requires_grad
    with ember.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert ember.is_grad_enabled()
    ember.set_grad_enabled(False)  # a plain call switches at once, as torch's
    try:
        assert not ember.is_grad_enabled()
    finally:
        ember.set_grad_enabled(True)
    with ember.inference_mode():
        assert not (x * 2).requires_grad
    with ember.inference_mode(False):
        assert (x * 2).requires_grad
    with pytest.raises(ValueError):
        with ember.no_grad():
            raise ValueError
    assert ember.is_grad_enabled()


def test_grad_mode_decorators_as_torch():
    for lib in (torch, ember):
        x = lib.ones(2, requires_grad=True)

        @lib.no_grad()
        def f(a):
            return a * 2

        @lib.no_grad()
        def gen(a):
            yield (a * 2).requires_grad
            yield lib.is_grad_enabled()

        assert lib.is_grad_enabled()  # decorating changed nothing
        assert not f(x).requires_grad
        assert f.__name__ == "f"
        assert list(gen(x)) == [False, False] and lib.is_grad_enabled()

        with lib.no_grad():
            @lib.enable_grad()
            def h(a):
                return a * 2
            assert h(x).requires_grad

    # Decorating with set_grad_enabled leaves the caller's mode alone (PyTorch 2; 1.13 left grad
    # switched off after the decoration).
    @ember.set_grad_enabled(False)
    def g(a):
        return a * 2

    assert ember.is_grad_enabled()
    assert not g(ember.ones(1, requires_grad=True)).requires_grad and ember.is_grad_enabled()

    @ember.no_grad
    def bare(a):  # PyTorch 2's bare form
        return a * 2

    assert not bare(ember.ones(1, requires_grad=True)).requires_grad


# ---- manual_seed ----

def test_manual_seed_makes_random_ops_repeatable():
    g = ember.manual_seed(3)
    assert g is ember.default_generator and ember.initial_seed() == 3
    a = ember.rand(5)
    ember.manual_seed(3)
    assert ember.rand(5).tolist() == a.tolist()
    assert ember.rand(5).tolist() != a.tolist()
    ember.manual_seed(-1)
    assert ember.initial_seed() == torch.manual_seed(-1).initial_seed() == 2 ** 64 - 1
    errors(lambda: torch.manual_seed(2 ** 64), lambda: ember.manual_seed(2 ** 64))
    assert ember.default_generator.manual_seed(5) is ember.default_generator and ember.initial_seed() == 5


# ---- printing ----

REPR_CASES = [
    lambda L: L.tensor([1.0, 2.5]), lambda L: L.tensor([[1, 2], [3, 4]]), lambda L: L.tensor(3.0),
    lambda L: L.tensor([True, False]), lambda L: L.ones(2, 3, dtype=L.float64), lambda L: L.ones(2, dtype=L.int32),
    lambda L: L.ones(2, dtype=L.float16), lambda L: L.ones(2, dtype=L.bfloat16), lambda L: L.ones(2, requires_grad=True),
    lambda L: L.ones(2, requires_grad=True) * 2, lambda L: L.ones(2, 3, requires_grad=True)[0],
    lambda L: L.ones(2, 3, device="meta"), lambda L: L.ones(3, device="meta", dtype=L.int64),
    lambda L: L.zeros(0), lambda L: L.zeros(2, 0), lambda L: L.arange(1000.0), lambda L: L.tensor([1e-8, 1e8]),
    lambda L: L.tensor([0.1, 123456.5]), lambda L: L.arange(12.0).view(3, 4).t(),
]


@pytest.mark.parametrize("make", range(len(REPR_CASES)))
def test_repr_and_str_match_torch(make):
    t, e = REPR_CASES[make](torch), REPR_CASES[make](ember)
    assert repr(e) == repr(t).replace("torch.", "ember.")
    assert str(e) == str(t).replace("torch.", "ember.")
