"""__torch_function__ (extension-spec § 4): what handlers see, NEP-18 order, modes, error texts.

Each scenario runs on ember and on Debian's PyTorch 1.13 and must log the same lines (torch's
"torch." read as "ember.").
"""
import warnings

import pytest

import ember

torch = pytest.importorskip("torch")


def fname(T, func):
    for n in ["add", "mul", "mean", "ones", "sum"]:
        if func is getattr(T, n, None):
            return n
    for n in ["add", "mul", "size", "dim", "sum", "requires_grad_"]:
        if func is getattr(T.Tensor, n, None):
            return "Tensor." + n
    for n in ["grad", "shape", "requires_grad", "dtype", "data", "_base", "is_leaf"]:
        prop = getattr(T.Tensor, n)
        if func == prop.__get__:
            return f"Tensor.{n}.__get__"
        if func == prop.__set__:
            return f"Tensor.{n}.__set__"
    return getattr(func, "__name__", repr(func))


def show(T, x):
    if isinstance(x, T.Tensor):
        return type(x).__name__
    if isinstance(x, (list, tuple)):
        return type(x).__name__ + "(" + ", ".join(show(T, y) for y in x) + ")"
    if isinstance(x, T.dtype):
        return "dtype"
    return repr(x)


def disable_subclass(T):
    # 2.0's name; 1.13 called the subclass-only guard DisableTorchFunction
    return getattr(T._C, "DisableTorchFunctionSubclass", None) or T._C.DisableTorchFunction


def err(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    return "no error"


def scenario_seen(T):
    log = []

    class A(T.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append(f"{fname(T, func)} types={[t.__name__ for t in types]} args={show(T, args)} "
                       f"kwargs={kwargs if kwargs else {}}")
            return super().__torch_function__(func, types, args, kwargs)

    a = T.ones(2).as_subclass(A)
    log.clear()
    results = [T.add(a, 1), a.add(1), a + 1, 1 + a, a * 2, T.add(a, a, alpha=2), a.sum(),
               T.mean(a), a.dim(), a.size(0), a.shape, a.dtype, a.grad, a.is_leaf]
    a.requires_grad = True
    log.append("results " + show(T, results))
    return log


def scenario_nep18(T):
    log = []

    def handler(name, answer):
        @classmethod
        def tf(cls, func, types, args=(), kwargs=None):
            log.append(f"{name} sees {[t.__name__ for t in types]}")
            if answer is NotImplemented:
                return NotImplemented
            with disable_subclass(T)():
                return func(*args, **(kwargs or {}))
        return tf

    class A(T.Tensor):
        __torch_function__ = handler("A", 1)

    class B(A):
        __torch_function__ = handler("B", NotImplemented)

    class C(T.Tensor):
        __torch_function__ = handler("C", NotImplemented)

    a, b, c = (T.ones(1).as_subclass(k) for k in (A, B, C))
    log.clear()
    T.add(a, b)
    T.add(b, a)
    T.add(c, a)
    log.append(err(lambda: T.mul(c, b)))
    return log


def scenario_default_convert(T):
    class Sub(T.Tensor):
        pass

    class Sub2(Sub):
        pass

    class C(T.Tensor):
        pass

    class D(T.Tensor):
        pass

    s = T.ones(2).as_subclass(Sub)
    s2 = T.ones(2).as_subclass(Sub2)
    c, d = T.ones(2).as_subclass(C), T.ones(2).as_subclass(D)
    x = T.ones(2, requires_grad=True)
    y = x.as_subclass(Sub)
    return [type(s * 2).__name__, type(s + s2).__name__, type(s2 + s).__name__,
            err(lambda: T.add(c, d)), type(y).__name__, str(y.requires_grad), str(y.is_leaf),
            type(y.sum()).__name__]


def scenario_not_implemented(T):
    class A(T.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    a = T.ones(2).as_subclass(A)

    def set_rg():
        a.requires_grad = True

    return [err(lambda: T.mul(a, 2)), err(lambda: a.mul(2)), err(lambda: a.grad),
            err(lambda: a.shape), err(lambda: a.dim()), err(set_rg), err(lambda: a * 2)]


class ScalarLike:
    """A tensor-like that is not a tensor (the note's ScalarTensor)."""

    def __init__(self, v):
        self.v = v

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") == "add":
            return ScalarLike(sum(a.v if isinstance(a, ScalarLike) else 0 for a in args))
        return NotImplemented


def scenario_tensor_like(T):
    s = ScalarLike(2)
    t = T.ones(2)
    out = [T.add(s, s).v, T.add(t, s).v, err(lambda: T.mul(s, 2)),
           T.overrides.is_tensor_like(s), T.overrides.is_tensor_like(t),
           T.overrides.is_tensor_like(3), T.overrides.has_torch_function((t, s)),
           T.overrides.has_torch_function((t, 1)), T.overrides.has_torch_function_unary(s),
           T.overrides.has_torch_function_variadic(t, t)]

    class Plain:
        pass

    out.append(err(lambda: T.mean(Plain())))
    return [str(o) for o in out]


def scenario_python_level(T):
    def myfunc(x, y=1):
        if T.overrides.has_torch_function_variadic(x):
            return T.overrides.handle_torch_function(myfunc, (x,), x, y=y)
        return "plain"

    class A(T.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func is myfunc:
                return f"A handled {func.__name__} {show(T, args)} {kwargs}"
            return super().__torch_function__(func, types, args, kwargs)

    a = T.ones(1).as_subclass(A)
    return [myfunc(T.ones(1)), myfunc(a, y=3), err(lambda: myfunc(ScalarLike(1)))]


def scenario_modes(T):
    log = []

    class Logging(T.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append(f"mode {fname(T, func)} types={[t.__name__ for t in types]}")
            return func(*args, **(kwargs or {}))

    class Refuse(T.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return NotImplemented

    class A(T.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append(f"A {fname(T, func)}")
            return super().__torch_function__(func, types, args, kwargs)

    a = T.ones(1).as_subclass(A)
    x = T.ones(1)
    log.clear()
    with Logging():
        T.ones(2)
        T.add(x, 1)
        x.dim()
        T.add(a, 1)
        log.append(str(T._C._is_torch_function_mode_enabled()))
    log.append(str(T._C._is_torch_function_mode_enabled()))
    with Refuse():
        msg = err(lambda: T.mul(x, 2))
    log.append(msg[:msg.index("mode") + 4])
    with disable_subclass(T)():
        log.append(type(a + 1).__name__)
    return log


def scenario_disabled(T):
    class D(T.Tensor):
        __torch_function__ = T._C._disabled_torch_function_impl

    d = T.ones(2).as_subclass(D)
    return [type(d + 1).__name__, str(T.overrides.has_torch_function((d,)))]


@pytest.mark.parametrize("scenario", [
    scenario_seen, scenario_nep18, scenario_default_convert, scenario_not_implemented,
    scenario_tensor_like, scenario_python_level, scenario_modes, scenario_disabled,
])
def test_same_as_torch(scenario):
    expected = [line.replace("torch.", "ember.") for line in scenario(torch)]
    assert scenario(ember) == expected


def test_scalar_tensor_mean_error_text():
    class ScalarTensor:
        pass

    with pytest.raises(TypeError) as e:
        ember.mean(ScalarTensor())
    assert str(e.value) == "mean(): argument 'input' (position 1) must be Tensor, not ScalarTensor"
    with pytest.raises(TypeError) as e:
        ember.ones(2).add("x")
    assert str(e.value) == "add(): argument 'other' (position 1) must be Tensor, not str"


def test_plain_method_handler_warns():
    class A(ember.Tensor):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return "handled"

    a = ember.ones(1).as_subclass(A)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert ember.add(a, 1) == "handled"
    assert [str(x.message) for x in w] == [
        "Defining your `__torch_function__` as a plain method is deprecated and will be an error "
        "in future, please define it as a classmethod."]


def test_mode_classmethod_handler_refused():
    class M(ember.overrides.TorchFunctionMode):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return 1

    with M(), pytest.raises(RuntimeError) as e:
        ember.ones(1)
    assert str(e.value) == ("Defining your mode's `__torch_function__` as a classmethod is not "
                            "supported, please make it a plain method")


def test_func_identity_and_tables():
    seen = []

    class A(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    a = ember.ones(1).as_subclass(A)
    a.add(1)
    ember.add(a, 1)
    a.grad
    assert seen[0] is ember.Tensor.add and seen[1] is ember.add
    assert seen[2] == ember.Tensor.grad.__get__
    table = ember.overrides.get_overridable_functions()
    assert ember.add in table[ember] and ember.Tensor.add in table[ember.Tensor]
    assert ember.Tensor.grad.__get__ in table[ember.Tensor]
    overrides = ember.overrides.get_testing_overrides()
    assert overrides[ember.add](1, 2) == -1
    assert ember.Tensor.as_subclass in ember.overrides.get_ignored_functions()


def test_cpp_originated_calls_reach_torch_function():
    # An op called from C++ (here a boxed call, as load_state_dict calls module_load) on a Python
    # subclass instance reaches its handler with the public API object.
    seen = []

    class Q(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append((func, [type(a).__name__ for a in args], kwargs))
            if func is ember.Tensor.module_load:
                return args[1].detach() * 10
            return super().__torch_function__(func, types, args, kwargs)

    q = ember.zeros(2).as_subclass(Q)
    out = ember._C._boxed_call("ember::module_load", [q, ember.ones(2)], {"assign": True})
    assert seen == [(ember.Tensor.module_load, ["Q", "Tensor"], {"assign": True})]
    assert out.tolist() == [10.0, 10.0] if hasattr(out, "tolist") else out.sum().item() == 20.0
    seen.clear()
    r = ember._C._boxed_call("aten::add.Tensor", [q, ember.ones(2)], {})
    assert seen[0][0] is ember.add and type(r) is Q
    # Under DisableTorchFunctionSubclass C++ skips it too (no double handling).
    seen.clear()
    with ember._C.DisableTorchFunctionSubclass():
        r = ember._C._boxed_call("aten::add.Tensor", [q, ember.ones(2)], {})
    assert seen == [] and type(r) is ember.Tensor
