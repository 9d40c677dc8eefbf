"""ember.testing (assert_close, make_tensor, assert_allclose) against torch.testing 1.13: the
same pass / fail decisions, exception types and message texts (`ember.` for `torch.`)."""
import warnings

import numpy as np
import pytest
import torch

import ember


def _q(lib, values):
    return lib.quantize_per_tensor(lib.tensor(values), 0.1, 0, lib.quint8)


nan, inf = float("nan"), float("inf")

# (name, lambda lib -> (args, kwargs)) for assert_close
CLOSE_CASES = [
    ("float32_values", lambda L: ((L.tensor([1., 2., 3.]), L.tensor([1., 2.5, 3.1])), {})),
    ("within_default_tol", lambda L: ((L.tensor([1., 0.]), L.tensor([1., 1e-6])), {})),
    ("int_equal_message", lambda L: ((L.tensor([[1, 2], [3, 4]]), L.tensor([[1, 2], [3, 5]])),
                                     {})),
    ("bool", lambda L: ((L.tensor([True, False]), L.tensor([True, True])), {})),
    ("zero_dim", lambda L: ((L.tensor(1.), L.tensor(1.5)), {})),
    ("dtype", lambda L: ((L.tensor([1.]), L.tensor([1.], dtype=L.float64)), {})),
    ("dtype_unchecked", lambda L: ((L.tensor([1.]), L.tensor([1.], dtype=L.float64)),
                                   {"check_dtype": False})),
    ("int_vs_float", lambda L: ((L.tensor([1]), L.tensor([1.])), {})),
    ("shape", lambda L: ((L.tensor([1., 2]), L.tensor([1.])), {})),
    ("stride", lambda L: ((L.ones(2, 3).t(), L.ones(3, 2)), {"check_stride": True})),
    ("stride_unchecked", lambda L: ((L.ones(2, 3).t(), L.ones(3, 2)), {})),
    ("device_meta", lambda L: ((L.tensor([1.], device="meta"), L.tensor([1.])), {})),
    ("nested", lambda L: (([L.tensor([1.]), {"a": L.tensor([2.]), "b": 3}],
                           [L.tensor([1.]), {"a": L.tensor([2.]), "b": 4}]), {})),
    ("nested_tensor_item", lambda L: (((L.tensor([1.]), [L.tensor([2., 3.])]),
                                       (L.tensor([1.]), [L.tensor([2., 3.5])])), {})),
    ("keys", lambda L: (({"a": 1}, {"b": 1}), {})),
    ("length", lambda L: (([1, 2], [1]), {})),
    ("int_float_scalars", lambda L: ((1, 1.0), {})),
    ("float_scalars", lambda L: ((1.0, 1.0 + 1e-6), {})),
    ("float_scalars_far", lambda L: ((1.0, 1.1), {})),
    ("complex_scalars", lambda L: ((1 + 1j, 1 + 1.5j), {})),
    ("numpy_scalars", lambda L: ((np.float32(1.0), np.float32(1.0)), {})),
    ("numpy_scalar_types", lambda L: ((np.float32(1.0), np.float64(1.0)), {})),
    ("none", lambda L: ((None, 1), {})),
    ("none_none", lambda L: ((None, None), {})),
    ("booleans", lambda L: ((True, False), {})),
    ("numpy_arrays", lambda L: ((np.array([1., 2.]), np.array([1., 3.])), {})),
    ("tensor_vs_numpy", lambda L: ((L.tensor([1.]), np.array([1.])), {})),
    ("strings", lambda L: (("a", "b"), {})),
    ("nan", lambda L: ((L.tensor([nan]), L.tensor([nan])), {})),
    ("equal_nan", lambda L: ((L.tensor([nan]), L.tensor([nan])), {"equal_nan": True})),
    ("nan_vs_number", lambda L: ((L.tensor([1., nan]), L.tensor([1., 2.])), {})),
    ("inf", lambda L: ((L.tensor([1., 2.]), L.tensor([1., inf])), {})),
    ("inf_equal", lambda L: ((L.tensor([1., -inf]), L.tensor([1., -inf])), {})),
    ("relative_inf", lambda L: ((L.tensor([0., 1.]), L.tensor([1., 0.])), {})),
    ("complex_tensor", lambda L: ((L.tensor([1 + 1j]), L.tensor([1 + 2j])), {})),
    ("float16", lambda L: ((L.tensor([1.], dtype=L.float16), L.tensor([1.001], dtype=L.float16)),
                           {})),
    ("bfloat16", lambda L: ((L.tensor([1.], dtype=L.bfloat16),
                             L.tensor([1.02], dtype=L.bfloat16)), {})),
    ("3d_index", lambda L: ((L.zeros(2, 2, 2), L.tensor([[[0., 0.], [0., 0.]],
                                                          [[0., 3.], [0., 0.]]])), {})),
    ("rtol_atol", lambda L: ((L.tensor([1.]), L.tensor([1.1])), {"rtol": 0.2, "atol": 0})),
    ("rtol_only", lambda L: ((L.tensor([1.]), L.tensor([1.1])), {"rtol": 0.2})),
    ("atol_only", lambda L: ((L.tensor([1.]), L.tensor([1.1])), {"atol": 0.2})),
    ("msg_str", lambda L: ((L.tensor([1.]), L.tensor([1.1])), {"msg": "custom"})),
    ("msg_callable", lambda L: (([L.tensor([1.])], [L.tensor([1.1])]),
                                {"msg": lambda m: "X" + m})),
    ("msg_not_for_structure", lambda L: (([1, 2], [1]), {"msg": "custom"})),
    ("subclass", lambda L: ((L.nn.Parameter(L.tensor([1.])), L.tensor([1.])), {})),
    ("subclass_refused", lambda L: ((L.nn.Parameter(L.tensor([1.])), L.tensor([1.])),
                                    {"allow_subclasses": False})),
    ("quantized", lambda L: ((_q(L, [1., 2.]), _q(L, [1., 2.5])), {})),
    ("quantized_equal", lambda L: ((_q(L, [1., 2.]), _q(L, [1., 2.])), {})),
    ("requires_grad", lambda L: ((L.ones(2, requires_grad=True), L.ones(2)), {})),
]


def _outcome(lib, case):
    args, kwargs = case(lib)
    try:
        lib.testing.assert_close(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - compared below
        return type(e), str(e).replace("torch.", "ember.")
    return "ok"


@pytest.mark.parametrize("name,case", CLOSE_CASES, ids=[c[0] for c in CLOSE_CASES])
def test_assert_close_as_torch(name, case):
    expected = _outcome(torch, case)
    assert _outcome(ember, case) == expected
    if name in ("float32_values", "nested", "keys", "length", "shape", "dtype", "nan"):
        assert expected != "ok"  # the failing cases really fail


def test_assert_close_message_format():
    with pytest.raises(AssertionError) as info:
        ember.testing.assert_close(ember.tensor([1., 2., 3.]), ember.tensor([1., 2.5, 3.1]))
    assert str(info.value) == (
        "Tensor-likes are not close!\n\nMismatched elements: 2 / 3 (66.7%)\n"
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.2 at index (1,) (up to 1.3e-06 allowed)")
    with pytest.raises(AssertionError, match=r"^The values for attribute 'dtype' do not match: "
                       r"ember\.float32 != ember\.float64\.$"):
        ember.testing.assert_close(ember.tensor([1.]), ember.tensor([1.], dtype=ember.float64))


@pytest.mark.parametrize("dtype,tols", [("float32", (1.3e-6, 1e-5)), ("float64", (1e-7, 1e-7)),
                                        ("float16", (1e-3, 1e-5)), ("bfloat16", (1.6e-2, 1e-5)),
                                        ("complex64", (1.3e-6, 1e-5))])
def test_default_tolerances(dtype, tols):
    rtol, atol = tols
    dt = getattr(ember, dtype)
    # just inside and clearly outside atol + rtol * |expected| at expected = 1
    inside = 1 + (atol + rtol) * 0.5
    if dtype in ("float16", "bfloat16"):
        ember.testing.assert_close(ember.tensor([1.], dtype=dt), ember.tensor([1.], dtype=dt))
    else:
        ember.testing.assert_close(ember.tensor([inside], dtype=dt), ember.tensor([1.], dtype=dt))
    with pytest.raises(AssertionError, match=r"\(up to {} allowed\)".format(atol)):
        ember.testing.assert_close(ember.tensor([1.5], dtype=dt), ember.tensor([1.], dtype=dt))


def _mt_check(lib, shape, dtype, **kw):
    t = lib.testing.make_tensor(*shape, dtype=getattr(lib, dtype), device="cpu", **kw)
    return (str(t.dtype).replace("torch.", "ember."), tuple(t.shape), t.is_contiguous(),
            t.requires_grad)


MT_CASES = [
    ((3, 4), "float32", {}), (((3, 4),), "float64", {"noncontiguous": True}),
    (([2, 5],), "int64", {}), ((5,), "uint8", {}), ((5,), "bool", {}),
    ((2, 3), "complex64", {"requires_grad": True}), ((), "float32", {}),
    ((4, 1), "int32", {"noncontiguous": True}), ((1,), "float32", {"noncontiguous": True}),
    ((3, 3), "float16", {"requires_grad": True, "noncontiguous": True}),
    ((3,), "bfloat16", {"low": -1e40, "high": 1e40}),
]


@pytest.mark.parametrize("shape,dtype,kw", MT_CASES)
def test_make_tensor_properties_as_torch(shape, dtype, kw):
    assert _mt_check(ember, shape, dtype, **kw) == _mt_check(torch, shape, dtype, **kw)


def test_make_tensor_ranges():
    mt = ember.testing.make_tensor
    x = mt(2000, dtype=ember.float64, device="cpu", low=-2, high=3)
    assert -2 <= x.min().item() and x.max().item() < 3 and x.std().item() > 1
    x = mt(2000, dtype=ember.float32, device="cpu")  # default [-9, 9)
    assert -9 <= x.min().item() < -8 and 8 < x.max().item() < 9
    i = mt(2000, dtype=ember.int64, device="cpu")  # default [-9, 10)
    assert (i.min().item(), i.max().item()) == (-9, 9)
    u = mt(2000, dtype=ember.uint8, device="cpu")  # default [0, 10)
    assert (u.min().item(), u.max().item()) == (0, 9)
    i = mt(2000, dtype=ember.int8, device="cpu", low=-1000, high=1000)  # clamped to the dtype
    assert (i.min().item(), i.max().item()) == (-128, 126)
    b = mt(2000, dtype=ember.bool, device="cpu")
    assert 0 < b.sum().item() < 2000
    z = mt(2000, dtype=ember.int64, device="cpu", low=0, high=2, exclude_zero=True)
    assert z.min().item() == 1
    f = mt(2000, dtype=ember.float32, device="cpu", low=0, high=0, exclude_zero=True)
    assert (f == ember.finfo(ember.float32).tiny).all()
    c = mt(5, dtype=ember.complex128, device="cpu", low=0, high=0, exclude_zero=True)
    tiny = ember.finfo(ember.float64).tiny
    assert (c.real == tiny).all() and (c.imag == tiny).all()
    n = mt(3, 4, dtype=ember.float32, device="cpu", noncontiguous=True)
    assert not n.is_contiguous() and n.stride() == (8, 2)


@pytest.mark.parametrize("kw", [
    {"dtype": "int32", "requires_grad": True}, {"dtype": "float32", "low": 3, "high": 2},
    {"dtype": "float32", "low": float("nan")}, {"dtype": "bool", "requires_grad": True}])
def test_make_tensor_errors_as_torch(kw):
    out = []
    for lib in (ember, torch):
        with pytest.raises(ValueError) as info:
            lib.testing.make_tensor(3, device="cpu", **dict(kw, dtype=getattr(lib, kw["dtype"])))
        out.append(str(info.value))
    assert out[0] == out[1]


def test_make_tensor_unsupported_dtype():
    with pytest.raises(TypeError, match=r"^The requested dtype 'ember\.quint8' is not supported "
                       r"by ember\.testing\.make_tensor\(\)\."):
        ember.testing.make_tensor(3, dtype=ember.quint8, device="cpu")


def test_assert_allclose_deprecated():
    with pytest.warns(FutureWarning, match=r"ember\.testing\.assert_allclose\(\) is deprecated"):
        ember.testing.assert_allclose(ember.tensor([1., 2.]), [1., 2.00001])
    out = []
    for lib in (ember, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(AssertionError) as info:
                lib.testing.assert_allclose(lib.tensor([1., 2.]), [1., 2.1])
        out.append(str(info.value))
    assert out[0] == out[1]
    assert "(up to 0.0001 allowed)" in out[0]
    with pytest.warns(FutureWarning):
        ember.testing.assert_allclose(ember.tensor([nan]), [nan])  # equal_nan defaults to True


def test_complex128_masked_and_index_put():
    # make_tensor(exclude_zero=True) for complex128 assigns through a boolean mask: the 16-byte
    # element copy of the indexing kernels (it aborted before).
    z = ember.zeros(4, dtype=ember.complex128)
    z[ember.tensor([True, False, True, False])] = ember.tensor(1 + 2j, dtype=ember.complex128)
    assert z.tolist() == [1 + 2j, 0j, 1 + 2j, 0j]
    w = ember.zeros(2, 3, dtype=ember.complex128)
    w[ember.tensor([1])] = ember.full((3,), 3j, dtype=ember.complex128)
    assert w[ember.tensor([1, 1])].tolist() == [[3j] * 3] * 2
