"""ember.library.Library / define / impl: operators defined at run time (checklist 101, 102),
their kernels per key, and how they meet the override layers; texts compared with torch 1.13."""
import gc
import warnings

import pytest
import torch

import ember
from ember.library import Library
from ember.overrides import TorchFunctionMode
from ember.utils._python_dispatch import TorchDispatchMode


def torch_error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e), str(e)
    raise AssertionError("torch raised nothing")


def test_define_impl_and_call():
    lib = Library("lt_basic", "DEF")
    assert lib.define("foo(Tensor self, int k=1) -> Tensor") == "foo"
    lib.impl("foo", lambda x, k=1: x * k, "CPU")
    x = ember.arange(3.)
    assert ember.ops.lt_basic.foo(x, 3).tolist() == [0., 3., 6.]
    assert ember.ops.lt_basic.foo.default(x).tolist() == [0., 1., 2.]
    assert ember.ops.lt_basic.foo.default(x, k=2).tolist() == [0., 2., 4.]
    op = ember.ops.lt_basic.foo.default
    assert op is ember.ops.lt_basic.foo.default
    assert str(op) == "lt_basic.foo.default"
    assert repr(op) == "<OpOverload(op='lt_basic.foo', overload='default')>"
    assert op.name() == "lt_basic::foo"
    assert str(op._schema) == "lt_basic::foo(Tensor self, int k=1) -> Tensor"
    assert ember.ops.lt_basic.foo.overloads() == ["default"]
    assert str(ember.ops.lt_basic.foo) == "lt_basic.foo"


def test_overloads_and_no_result():
    lib = Library("lt_ov", "FRAGMENT")
    lib.define("g(Tensor x) -> Tensor")
    assert lib.define("g.two(Tensor x, Tensor y) -> Tensor") == "g.two"
    lib.define("h(Tensor(a!) x) -> ()")
    lib.impl("g", lambda x: x + 1, "CPU")
    lib.impl("g.two", lambda x, y: x + y, "CPU")

    def h(x):
        x.add_(1)
    lib.impl("h", h, "CPU")
    x = ember.zeros(2)
    assert ember.ops.lt_ov.g.two(x, x + 2).tolist() == [2., 2.]
    assert ember.ops.lt_ov.g(x).tolist() == [1., 1.]  # the packet picks the overload
    assert sorted(ember.ops.lt_ov.g.overloads()) == ["default", "two"]
    assert ember.ops.lt_ov.h(x) is None
    assert x.tolist() == [1., 1.] and x._version == 1


def test_second_def_library_error_101():
    tlib = torch.library.Library("lt_twice", "DEF")
    ttype, tmsg = torch_error(lambda: torch.library.Library("lt_twice", "DEF"))
    del tlib
    lib = Library("lt_twice", "DEF")
    with pytest.raises(RuntimeError) as e:
        Library("lt_twice", "DEF")
    assert ttype is RuntimeError
    head = "Only a single TORCH_LIBRARY can be used to register the namespace lt_twice;"
    assert str(e.value).startswith(head) and tmsg.startswith(head)
    # Everything up to the locations is torch's text.
    cut = "Previous registration of TORCH_LIBRARY was registered at "
    assert str(e.value).split(cut)[0] == tmsg.split(cut)[0]
    assert __file__ in str(e.value)
    # FRAGMENT and IMPL blocks may repeat; once the DEF library is gone the namespace is free.
    Library("lt_twice", "FRAGMENT")
    Library("lt_twice", "IMPL")
    del lib
    gc.collect()
    Library("lt_twice", "DEF")


def test_duplicate_define():
    lib = Library("lt_dup", "DEF")
    lib.define("foo(Tensor self, int k=1) -> Tensor")
    with pytest.raises(RuntimeError) as e:
        lib.define("foo(Tensor self, int k=1) -> Tensor")
    assert str(e.value).startswith(
        "Tried to register an operator (lt_dup::foo(Tensor self, int k=1) -> Tensor) with the same "
        "name and overload name multiple times. Each overload's schema should only be registered "
        "with a single call to def(). Duplicate registration: registered at ")


def test_no_meta_kernel_error_102():
    lib = Library("lt_meta", "DEF")
    lib.define("foo(Tensor self) -> Tensor")
    lib.impl("foo", lambda x: x * 2, "CPU")
    with pytest.raises(NotImplementedError) as e:
        ember.ops.lt_meta.foo(ember.ones(2, device="meta"))
    assert str(e.value).startswith("Could not run 'lt_meta::foo' with arguments from the 'Meta' "
                                   "backend. This could be because the operator doesn't exist for "
                                   "this backend")
    # With a Meta kernel, meta tensors work.
    lib.impl("foo", lambda x: ember.empty_like(x), "Meta")
    out = ember.ops.lt_meta.foo(ember.ones(2, 3, device="meta"))
    assert out.is_meta and out.shape == (2, 3)


def test_no_cpu_kernel_error_matches_torch():
    tlib = torch.library.Library("lt_nocpu", "DEF")
    tlib.define("foo(Tensor self) -> Tensor")
    ttype, tmsg = torch_error(lambda: torch.ops.lt_nocpu.foo(torch.ones(2)))
    lib = Library("lt_nocpu", "DEF")
    lib.define("foo(Tensor self) -> Tensor")
    with pytest.raises(ttype) as e:
        ember.ops.lt_nocpu.foo(ember.ones(2))
    first = "Could not run 'lt_nocpu::foo' with arguments from the 'CPU' backend. This could be " \
            "because the operator doesn't exist for this backend"
    assert str(e.value).startswith(first) and tmsg.startswith(first)


def test_unknown_op_attribute_error_matches_torch():
    Library("lt_unknown", "DEF").define("foo(Tensor x) -> Tensor")
    tlib = torch.library.Library("lt_unknown", "DEF")
    tlib.define("foo(Tensor x) -> Tensor")
    ttype, tmsg = torch_error(lambda: torch.ops.lt_unknown.bar)
    with pytest.raises(AttributeError) as e:
        ember.ops.lt_unknown.bar
    assert (type(e.value), str(e.value)) == (ttype, tmsg)


def test_destroyed_library_removes_ops():
    lib = Library("lt_gone", "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", lambda x: x, "CPU")
    assert ember.ops.lt_gone.foo(ember.ones(1)).tolist() == [1.]
    del lib
    gc.collect()
    with pytest.raises(AttributeError):
        ember.ops.lt_gone.foo
    lib = Library("lt_gone", "DEF")
    lib.define("foo(Tensor x, int k) -> Tensor")
    lib.impl("foo", lambda x, k: x * k, "CPU")
    assert ember.ops.lt_gone.foo(ember.ones(1), 5).tolist() == [5.]


def test_python_impl_twice_is_an_error_as_torch():
    tlib = torch.library.Library("lt_twiceimpl", "DEF")
    tlib.define("foo(Tensor x) -> Tensor")
    tlib.impl("foo", lambda x: x, "CPU")
    ttype, tmsg = torch_error(lambda: tlib.impl("foo", lambda x: x, "CPU"))
    lib = Library("lt_twiceimpl", "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", lambda x: x, "CPU")
    with pytest.raises(ttype) as e:
        lib.impl("foo", lambda x: x, "CPU")
    assert str(e.value) == tmsg
    with pytest.raises(TypeError, match="Input function is required to be a callable"):
        lib.impl("foo", 3, "Meta")


def test_composite_implicit_decomposes_for_autograd_and_modes():
    lib = Library("lt_cia", "DEF")
    lib.define("sq(Tensor x) -> Tensor")
    lib.impl("sq", lambda x: x * x)  # default key: CompositeImplicitAutograd
    x = ember.tensor([3.], requires_grad=True)
    y = ember.ops.lt_cia.sq(x)
    assert type(y.grad_fn).__name__ == "MulBackward0"
    y.backward()
    assert x.grad.tolist() == [6.]
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))
    one = ember.ones(1)
    with Log():
        ember.ops.lt_cia.sq(one)
    assert seen == ["aten.mul.Tensor"]
    with pytest.raises(RuntimeError, match="because it has a CompositeImplicitAutograd kernel"):
        lib.impl("sq", lambda x: x, "Meta")


def test_dispatch_mode_sees_runtime_op():
    lib = Library("lt_mode", "DEF")
    lib.define("foo(Tensor self, int k=1) -> Tensor")
    lib.impl("foo", lambda x, k=1: x * k, "CPU")
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((func, args, kwargs))
            return func(*args, **(kwargs or {}))
    with Log():
        out = ember.ops.lt_mode.foo.default(ember.ones(2), k=2)
    assert out.tolist() == [2., 2.]
    func, args, kwargs = seen[-1]
    assert func is ember.ops.lt_mode.foo.default
    assert args[1] == 2 and kwargs == {}  # as torch's handler sees it (positional, default dropped)


def test_torch_function_sees_runtime_op():
    lib = Library("lt_tf", "DEF")
    lib.define("foo(Tensor self, int k=1) -> Tensor")
    lib.impl("foo", lambda x, k=1: x * k, "CPU")
    seen = []

    class M(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))
    x = ember.ones(2)
    with M():
        ember.ops.lt_tf.foo(x, 3)
        ember.ops.lt_tf.foo.default(x)
    assert seen == [ember.ops.lt_tf.foo, ember.ops.lt_tf.foo.default]

    class S(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(("S", func))
            return super().__torch_function__(func, types, args, kwargs)
    s = x.as_subclass(S)
    out = ember.ops.lt_tf.foo(s)
    assert seen[-1] == ("S", ember.ops.lt_tf.foo)
    assert type(out) is S


def test_wrapper_subclass_sees_runtime_op():
    lib = Library("lt_wrap", "DEF")
    lib.define("foo(Tensor self) -> Tensor")
    lib.impl("foo", lambda x: x + 1, "CPU")

    class W(ember.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = ember.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype)
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            unwrapped = [a.elem if isinstance(a, W) else a for a in args]
            return W(func(*unwrapped, **(kwargs or {})))
    out = ember.ops.lt_wrap.foo(W(ember.zeros(2)))
    assert type(out) is W and out.elem.tolist() == [1., 1.]


def test_autograd_kernel_from_python():
    lib = Library("lt_ag", "DEF")
    lib.define("cube(Tensor x) -> Tensor")
    lib.impl("cube", lambda x: x * x * x, "CPU")

    class Cube(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            with ember._C._AutoDispatchBelowAutograd():
                return ember.ops.lt_ag.cube(x)

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x * x
    lib.impl("cube", Cube.apply, "Autograd")
    x = ember.tensor([2.], requires_grad=True)
    y = ember.ops.lt_ag.cube(x)
    assert type(y.grad_fn).__name__ == "CubeBackward"
    y.backward()
    assert x.grad.tolist() == [12.]


def test_no_autograd_kernel_warns_at_backward():
    lib = Library("lt_noag", "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", lambda x: x * 2, "CPU")
    x = ember.ones(2, requires_grad=True)
    y = ember.ops.lt_noag.foo(x)
    assert y.requires_grad
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y.sum().backward()
    assert any(str(m.message).startswith(
        "lt_noag::foo: an autograd kernel was not registered to the Autograd key(s) but we are "
        "trying to backprop through it.") for m in w)
    assert x.grad is None
    # A fallthrough at Autograd: no graph, no warning.
    lib.impl("foo", ember.library.fallthrough_kernel, "Autograd")
    assert not ember.ops.lt_noag.foo(x).requires_grad


def test_decorators():
    lib = Library("lt_deco", "DEF")

    @ember.library.define(lib, "twice(Tensor x) -> Tensor")
    def twice(x):
        return x * 2
    assert ember.ops.lt_deco.twice(ember.ones(1)).tolist() == [2.]
    lib.define("thrice(Tensor x) -> Tensor")

    @ember.library.impl(lib, "thrice", "CPU")
    def thrice(x):
        return x * 3
    assert ember.ops.lt_deco.thrice(ember.ones(1)).tolist() == [3.]
    # 2.x functional forms.
    ember.library.define("lt_deco2::neg", "(Tensor x) -> Tensor")

    @ember.library.impl("lt_deco2::neg", "cpu")
    def neg(x):
        return -x
    assert ember.ops.lt_deco2.neg(ember.ones(1)).tolist() == [-1.]
    with pytest.raises(ValueError, match="expected schema to look like"):
        ember.library.define("lt_deco2::bad", "Tensor x -> Tensor")


def test_library_repr_and_kinds():
    lib = Library("lt_repr", "FRAGMENT", "CPU")
    assert repr(lib) == "Library(kind=FRAGMENT, ns=lt_repr, dispatch_key=CPU)>"
    with pytest.raises(ValueError):
        Library("lt_repr", "BAD")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x - 1)  # the Library's key
    assert ember.ops.lt_repr.f(ember.ones(1)).tolist() == [0.]
    with pytest.raises(NotImplementedError, match="built-in ops"):
        Library("aten", "IMPL").impl("add.Tensor", lambda *a: a[0], "CPU")


def test_scoped_library_and_impl_abstract():
    from ember.library import _scoped_library
    with _scoped_library("lt_scoped", "FRAGMENT") as lib:
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x * 2, "CPU")
        with pytest.warns(FutureWarning, match="renamed to `ember.library.register_fake`"):
            ember.library.impl_abstract("lt_scoped::f", lambda x: ember.empty_like(x), lib=lib)
        assert ember.ops.lt_scoped.f(ember.ones(2, device="meta")).is_meta
    with pytest.raises(AttributeError):
        ember.ops.lt_scoped.f
