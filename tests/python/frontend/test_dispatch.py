"""__torch_dispatch__ (extension-spec § 5): wrapper subclasses, the ops a handler sees, OpOverload
objects, TorchDispatchMode. Compared with Debian's PyTorch 1.13 where it has the behaviour."""
import pytest

import ember

torch = pytest.importorskip("torch")


def make_logging_wrapper(T, log):
    from importlib import import_module
    tree_map = import_module(f"{T.__name__}.utils._pytree").tree_map

    class Logged(T.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = T.Tensor._make_wrapper_subclass(cls, elem.size(), strides=elem.stride(),
                                                dtype=elem.dtype, device=elem.device,
                                                requires_grad=elem.requires_grad)
            r.elem = elem
            return r

        __torch_function__ = T._C._disabled_torch_function_impl

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            def show(x):
                if isinstance(x, T.Tensor):
                    return type(x).__name__
                if isinstance(x, T.dtype):
                    return str(x).replace("torch.", "ember.")
                return x
            log.append(f"{func} {[t.__name__ for t in types]} {tree_map(show, list(args))} "
                       f"{tree_map(show, kwargs or {})}")

            def unwrap(x):
                return x.elem if isinstance(x, Logged) else x

            def wrap(x):
                return Logged(x) if isinstance(x, T.Tensor) and not isinstance(x, Logged) else x

            out = func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))
            return tree_map(wrap, out)

    return Logged


def scenario_logged_ops(T):
    log = []
    Logged = make_logging_wrapper(T, log)
    W = Logged(T.ones(2, requires_grad=True))
    r = (W * 2).sum()
    log.append(f"result {type(r).__name__} {r.requires_grad} {W.requires_grad}")
    W.to(T.float64)
    W.clone()
    T.add(W, W, alpha=2)
    x = Logged(T.ones(2))
    x.detach()
    x.add_(1)
    log.append(f"wrapper data_ptr {x.data_ptr()} size {tuple(x.shape)} dtype {x.dtype}")
    return log


def scenario_op_objects(T):
    aten = T.ops.aten
    d = aten.detach.default
    a = aten.add.Tensor
    return [str(d), repr(d), d.__name__, d.name(), str(d.overloadpacket),
            repr(d.overloadpacket), str(d._schema), d._overloadname, str(a), repr(a), a.name(),
            a.__name__, str(a._schema), str(d is aten.detach.default),
            str(d.overloadpacket is aten.detach)]


def scenario_errors(T):
    class N(T.Tensor):
        pass

    class Refuse(T.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return T.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype)

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    def err(f):
        try:
            f()
        except Exception as e:  # noqa: BLE001
            return f"{type(e).__name__}: {e}"
        return "no error"

    w = Refuse(T.ones(2))
    return [err(lambda: T.Tensor._make_wrapper_subclass(N, (2,))),
            err(lambda: T.Tensor._make_wrapper_subclass(int, (2,))),
            err(lambda: T.mul(w, 2)), err(lambda: w * 2)]


def scenario_mode(T):
    from importlib import import_module
    TorchDispatchMode = import_module(f"{T.__name__}.utils._python_dispatch").TorchDispatchMode
    log = []

    class Logging(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            log.append(str(func))
            return func(*args, **(kwargs or {}))

    with Logging():
        x = T.ones(2)
        y = x * 2 + 1
        y.sum()
    log.append(str(float(y.sum())))
    return log


@pytest.mark.parametrize("scenario", [scenario_logged_ops, scenario_op_objects, scenario_errors,
                                      scenario_mode])
def test_same_as_torch(scenario):
    expected = [line.replace("torch.", "ember.") for line in scenario(torch)]
    # Tensor.detach reaches the handler twice, as in 1.13 (Note [Detach through the dispatch
    # layer] in src/dispatch/dispatcher.cpp).
    assert scenario(ember) == expected


def test_overloads_and_identity():
    aten = ember.ops.aten
    assert aten.add.overloads()[:1] == ["Tensor"]
    assert aten.add.Tensor is aten.add.Tensor
    assert aten.add.Tensor.overloadpacket is aten.add
    assert aten.add.Tensor.namespace == "aten"
    assert aten.add.Tensor(ember.ones(1), ember.ones(1), alpha=3).item() == 4.0


def test_handler_results_are_not_rewrapped():
    class Plain(ember.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = ember.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype)
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return func(*[a.elem if isinstance(a, Plain) else a for a in args], **(kwargs or {}))

        # (the default __torch_function__ would turn results into Plain: PyTorch's too)
        __torch_function__ = ember._C._disabled_torch_function_impl

    p = Plain(ember.ones(2))
    assert type(p * 3) is ember.Tensor
    assert (p * 3).sum().item() == 6.0


def test_make_subclass():
    class S(ember.Tensor):
        pass

    data = ember.ones(2, requires_grad=True)
    s = ember.Tensor._make_subclass(S, data, True)
    assert type(s) is S and s.is_leaf and s.requires_grad
    assert s.data_ptr() == data.data_ptr()
    assert type(ember.Tensor._make_subclass(S, data)) is S
    with pytest.raises(RuntimeError, match="does not inherit from Tensor"):
        ember.Tensor._make_subclass(int, data)
