"""ember.set_printoptions and Tensor.__repr__ from Python, character for character against
torch 1.13 (with "torch." replaced by "ember."): print options and profiles, summarised printing,
line wrapping, sci_mode, every dtype, subclass names, tensor_contents=."""
import math

import numpy as np
import pytest
import torch

import ember

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32",
          "int64", "bool"]


@pytest.fixture(autouse=True)
def restore_options():
    yield
    torch.set_printoptions(profile="default", sci_mode=None)
    ember.set_printoptions(profile="default", sci_mode=None)


def pair(array, dtype):
    """The same values as a torch and an ember tensor of `dtype`."""
    t = torch.from_numpy(np.ascontiguousarray(array)).to(getattr(torch, dtype))
    e = ember.from_numpy(np.ascontiguousarray(array)).to(getattr(ember, dtype))
    return t, e


def expected(t):
    return repr(t).replace("torch.", "ember.")


def values(shape, dtype, seed=0, scale=10.0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == "bool":
        return (rng.random(n) < 0.5).reshape(shape)
    if dtype.startswith("int") or dtype == "uint8":
        low = 0 if dtype == "uint8" else -100
        return rng.integers(low, 100, n).reshape(shape)
    return (rng.standard_normal(n) * scale).reshape(shape)


OPTIONS = [
    dict(),
    dict(precision=2),
    dict(precision=0),
    dict(precision=10),
    dict(threshold=5),
    dict(threshold=5, edgeitems=1),
    dict(threshold=20, edgeitems=2),
    dict(linewidth=30),
    dict(linewidth=200),
    dict(sci_mode=True),
    dict(sci_mode=False),
    dict(profile="short"),
    dict(profile="full"),
    dict(profile="short", precision=5),
    dict(profile="default", threshold=3),
    dict(precision=3, threshold=10, edgeitems=2, linewidth=40, sci_mode=True),
]
SHAPES = [(), (7,), (4, 9), (3, 4, 11), (2, 3, 2, 8), (1200,), (40, 40)]


@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "none")
@pytest.mark.parametrize("dtype", DTYPES)
def test_repr_under_options(opts, dtype):
    torch.set_printoptions(**opts)
    ember.set_printoptions(**opts)
    for k, shape in enumerate(SHAPES):
        t, e = pair(values(shape, dtype, seed=k), dtype)
        assert repr(e) == expected(t), (shape, opts)
        assert str(e) == expected(t)


def test_large_tensor_is_summarised_with_edgeitems():
    t, e = pair(np.arange(10000, dtype=np.float32).reshape(100, 100), "float32")
    assert "..." in repr(e)
    assert repr(e) == expected(t)
    ember.set_printoptions(edgeitems=5)
    torch.set_printoptions(edgeitems=5)
    assert repr(e) == expected(t)
    ember.set_printoptions(profile="full")
    torch.set_printoptions(profile="full")
    small_t, small_e = pair(np.arange(1500), "int64")
    assert "..." not in repr(small_e)
    assert repr(small_e) == expected(small_t)


def test_sci_mode_is_reset_by_every_call():
    # PyTorch sets sci_mode on every call: set_printoptions(precision=2) turns it back to auto.
    t, e = pair(np.array([1.5, 2.25, 1000.0]), "float32")
    ember.set_printoptions(sci_mode=True)
    torch.set_printoptions(sci_mode=True)
    assert repr(e) == expected(t)
    ember.set_printoptions(precision=2)
    torch.set_printoptions(precision=2)
    assert repr(e) == expected(t)
    assert ember._tensor_str.get_printoptions()["sci_mode"] is None


def test_get_printoptions_and_print_opts():
    from ember._tensor_str import PRINT_OPTS, get_printoptions, printoptions
    assert get_printoptions() == dict(precision=4, threshold=1000, edgeitems=3, linewidth=80,
                                      sci_mode=None)
    ember.set_printoptions(precision=2, threshold=7, edgeitems=1, linewidth=50, sci_mode=False)
    assert get_printoptions() == dict(precision=2, threshold=7, edgeitems=1, linewidth=50,
                                      sci_mode=False)
    assert PRINT_OPTS.precision == 2 and PRINT_OPTS.sci_mode is False
    ember.set_printoptions(profile="full")
    assert math.isinf(PRINT_OPTS.threshold)
    ember.set_printoptions(profile="default")
    with printoptions(precision=1):
        assert repr(ember.tensor([1.25])) == "tensor([1.2])"
    assert repr(ember.tensor([1.25])) == "tensor([1.2500])"
    PRINT_OPTS.precision = 3
    assert repr(ember.tensor([1.25])) == "tensor([1.250])"


def test_unknown_profile_is_ignored_as_in_torch():
    ember.set_printoptions(profile="nonsense", precision=6)
    torch.set_printoptions(profile="nonsense", precision=6)
    t, e = pair(np.array([1.0 / 3]), "float64")
    assert repr(e) == expected(t)


def test_default_dtype_changes_the_dtype_suffix():
    try:
        torch.set_default_dtype(torch.float64)
        ember.set_default_dtype(ember.float64)
        for dtype in ["float32", "float64"]:
            t, e = pair(np.array([1.5, 2.0]), dtype)
            assert repr(e) == expected(t)
        assert repr(ember.zeros(2)) == expected(torch.zeros(2))
        assert repr(ember.tensor(1.5)) == expected(torch.tensor(1.5))
    finally:
        torch.set_default_dtype(torch.float32)
        ember.set_default_dtype(ember.float32)


def test_autograd_suffixes_under_narrow_linewidth():
    ember.set_printoptions(linewidth=20)
    torch.set_printoptions(linewidth=20)
    t = torch.arange(6.0).requires_grad_()
    e = ember.arange(6.0).requires_grad_()
    assert repr(e) == expected(t)
    assert repr(e * 2) == expected(t * 2)


# ---- subclasses ----

class TaggedTensor(torch.Tensor):
    pass


EmberTagged = type("TaggedTensor", (ember.Tensor,), {})  # the same name as torch's, for widths


def test_subclass_prints_with_its_class_name():
    t = torch.arange(3.0).as_subclass(TaggedTensor)
    e = ember.arange(3.0).as_subclass(EmberTagged)
    assert repr(e) == "TaggedTensor([0., 1., 2.])"
    assert repr(e) == expected(t)
    big_t = torch.arange(12.0).reshape(3, 4).as_subclass(TaggedTensor).requires_grad_()
    big_e = ember.arange(12.0).reshape(3, 4).as_subclass(EmberTagged).requires_grad_()
    assert repr(big_e) == expected(big_t)


def test_plain_tensor_and_parameter_keep_tensor_prefix():
    p = ember.nn.Parameter(ember.ones(2))
    assert repr(p) == expected(torch.nn.Parameter(torch.ones(2)))
    assert repr(ember.ones(2)) == "tensor([1., 1.])"


def test_subclass_parameter_is_wrapped_in_parameter():
    t = torch.nn.Parameter(torch.ones(2).as_subclass(TaggedTensor))
    e = ember.nn.Parameter(ember.ones(2).as_subclass(EmberTagged))
    assert repr(e) == expected(t)
    assert repr(e) == "Parameter(TaggedTensor([1., 1.], requires_grad=True))"


def test_parameter_subclass_repr():
    TParam = type("MyParam", (torch.nn.Parameter,), {})
    EParam = type("MyParam", (ember.nn.Parameter,), {})
    assert repr(EParam(ember.ones(2))) == expected(TParam(torch.ones(2)))


def test_tensor_contents_for_wrapper_subclass():
    class TWrapper(ember.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = ember.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype,
                                                    requires_grad=elem.requires_grad)
            r.elem = elem
            return r

        def __repr__(self):
            return super().__repr__(tensor_contents=f"{self.elem}")

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            raise AssertionError(f"printing must not run ops, ran {func}")

    class TorchWrapper(torch.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = torch.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype,
                                                    requires_grad=elem.requires_grad)
            r.elem = elem
            return r

        def __repr__(self):
            return super().__repr__(tensor_contents=f"{self.elem}")

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            raise AssertionError(f"printing must not run ops, ran {func}")

    for make_t, make_e in [(lambda: torch.arange(3.0), lambda: ember.arange(3.0)),
                           (lambda: torch.arange(4, dtype=torch.int32),
                            lambda: ember.arange(4, dtype=ember.int32)),
                           (lambda: torch.ones(2, 3, requires_grad=True),
                            lambda: ember.ones(2, 3, requires_grad=True)),
                           (lambda: torch.zeros(0), lambda: ember.zeros(0))]:
        TorchWrapper.__name__ = "TWrapper"  # the same prefix on both sides
        t, e = TorchWrapper(make_t()), TWrapper(make_e())
        assert repr(e) == expected(t)


def test_tensor_contents_on_plain_tensor():
    t = torch.arange(3.0)
    e = ember.arange(3.0)
    assert e.__repr__(tensor_contents="X") == t.__repr__(tensor_contents="X")
    assert ember.ones(2, dtype=ember.int32).__repr__(tensor_contents="[..]") == \
        torch.ones(2, dtype=torch.int32).__repr__(tensor_contents="[..]").replace("torch.", "ember.")


def test_repr_goes_through_torch_function():
    seen = []

    class Logged(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    x = ember.ones(2).as_subclass(Logged)
    assert repr(x) == "Logged([1., 1.])"
    assert ember.Tensor.__repr__ in seen
