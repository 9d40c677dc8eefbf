"""ember.overrides: the __torch_function__ protocol (PyTorch's torch.overrides).

The C++ boundary (every ember function, Tensor method and property; ops that C++ code calls on
Python subclass instances) collects the overloaded arguments in NEP-18 order and hands the call
to `_dispatch_torch_function` below, which runs the active TorchFunctionMode and then each
overloaded type's handler. Python-level APIs call `handle_torch_function` themselves with their
relevant arguments.
"""
import functools
import warnings

from . import _C

__all__ = [
    "BaseTorchFunctionMode", "TorchFunctionMode", "get_ignored_functions",
    "get_overridable_functions", "get_testing_overrides", "handle_torch_function",
    "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
    "is_tensor_like", "is_tensor_method_or_property", "resolve_name", "wrap_torch_function",
]

_PLAIN_METHOD_WARNING = (
    "Defining your `__torch_function__` as a plain method is deprecated and will be an error in "
    "future, please define it as a classmethod.")
_MODE_CLASSMETHOD_ERROR = (
    "Defining your mode's `__torch_function__` as a classmethod is not supported, please make it "
    "a plain method")


def _tensor_cls():
    from ._tensor import Tensor
    return Tensor


def _property_name(descr):
    for klass in _tensor_cls().__mro__:
        for name, value in vars(klass).items():
            if value is descr:
                return name
    return None


def resolve_name(f):
    """The public name of `f` as error messages give it ("ember.mul", "ember.Tensor.add",
    "ember.Tensor.grad.__get__"), or None."""
    import ember
    Tensor = _tensor_cls()
    owner = getattr(f, "__self__", None)
    if isinstance(owner, property):
        name = _property_name(owner)
        if name is not None:
            return f"ember.Tensor.{name}.{f.__name__}"
    name = getattr(f, "__name__", None)
    if name is None:
        return None
    if getattr(Tensor, name, None) is f:
        module = getattr(f, "__module__", None)
        # Tensor methods written in Python report their module, as PyTorch's 'torch._tensor.x'
        if module == "ember._tensor" and getattr(f, "__qualname__", "").startswith("Tensor."):
            if not type(f).__name__ == "_OpFunction":
                return f"ember._tensor.{name}"
        return f"ember.Tensor.{name}"
    if getattr(ember, name, None) is f:
        return f"ember.{name}"
    return f"{getattr(f, '__module__', None)}.{name}"


def _types_of(overloaded_args):
    return tuple(type(a) for a in overloaded_args)


def _call_handler(arg, func, types, args, kwargs):
    method = arg.__torch_function__
    if (getattr(method, "__self__", None) is arg
            and method is not _C._disabled_torch_function_impl):
        warnings.warn(_PLAIN_METHOD_WARNING, DeprecationWarning)
    return method(func, types, args, kwargs)


class _pop_mode_temporarily:
    """Takes the innermost TorchFunctionMode off the stack while its own handler runs."""

    def __enter__(self):
        self.mode = _C._pop_torch_function_stack()
        return self.mode

    def __exit__(self, *exc):
        _C._push_on_torch_function_stack(self.mode)
        return False


def _run_mode(func, types, args, kwargs):
    with _pop_mode_temporarily() as mode:
        handler = mode.__torch_function__
        if getattr(handler, "__self__", None) is type(mode):
            raise RuntimeError(_MODE_CLASSMETHOD_ERROR)
        return mode, handler(func, types, args, kwargs)


def _dispatch_torch_function(public_api, overloaded_args, args, kwargs):
    """Called by the C++ boundary: modes, then the overloaded types' handlers, in order."""
    types = _types_of(overloaded_args)
    mode = None
    if _C._len_torch_function_stack() > 0:
        mode, result = _run_mode(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for arg in overloaded_args:
        result = _call_handler(arg, public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    msg = (f"no implementation found for '{resolve_name(public_api)}' on types that implement "
           f"__torch_function__: {[type(a) for a in overloaded_args]}")
    if mode is not None:
        msg += f" nor was it found on the currently active mode {mode!r}"
    raise TypeError(msg)


_C._set_torch_function_handler(_dispatch_torch_function)


def _run_mode_from_cpp(mode, public_api, overloaded_args, args, kwargs):
    """Called by the dispatcher for an op that C++ code called (a C++ layer's linear) while
    `mode` is the innermost TorchFunctionMode; C++ has popped it for the handler's duration."""
    handler = mode.__torch_function__
    if getattr(handler, "__self__", None) is type(mode):
        raise RuntimeError(_MODE_CLASSMETHOD_ERROR)
    return handler(public_api, _types_of(overloaded_args), args, kwargs)


_C._set_torch_function_mode_handler(_run_mode_from_cpp)


# ---- helpers for Python-level functions ----

def _qualifies(obj, Tensor):
    if type(obj) is Tensor:
        return False
    tf = getattr(type(obj), "__torch_function__", None)
    return tf is not None and tf is not _C._disabled_torch_function_impl


def _get_overloaded_args(relevant_args):
    """NEP-18 order: one argument per type, subclasses before superclasses, else left to right.
    Python-level APIs keep exact Tensors too (Tensor has a real handler)."""
    Tensor = _tensor_cls()
    out = []
    seen = []
    for arg in relevant_args:
        t = type(arg)
        if t in seen:
            continue
        if not (t is Tensor or _qualifies(arg, Tensor)):
            continue
        if t is Tensor and not _C._is_torch_function_enabled():
            continue
        seen.append(t)
        index = len(out)
        for i, old in enumerate(out):
            if issubclass(t, type(old)):
                index = i
                break
        out.insert(index, arg)
    return out


def has_torch_function(relevant_args):
    """Whether any argument overrides __torch_function__ (or a mode is active)."""
    if not _C._is_torch_function_enabled():
        return False
    if _C._is_torch_function_mode_enabled():
        return True
    Tensor = _tensor_cls()
    return any(_qualifies(a, Tensor) and not (
        isinstance(a, Tensor) and _C._is_torch_function_subclass_disabled()) for a in relevant_args)


def has_torch_function_unary(arg):
    return has_torch_function((arg,))


def has_torch_function_variadic(*args):
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Runs the overrides of a Python-level function `public_api` for `relevant_args`."""
    overloaded_args = _get_overloaded_args(relevant_args)
    types = _types_of(overloaded_args)
    mode = None
    if _C._len_torch_function_stack() > 0:
        mode, result = _run_mode(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for arg in overloaded_args:
        result = _call_handler(arg, public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    func_name = f"{public_api.__module__}.{public_api.__name__}"
    msg = (f"no implementation found for '{func_name}' on types that implement "
           f"__torch_function__: {[type(a) for a in overloaded_args]}")
    if mode is not None:
        msg += f" nor in mode {mode}"
    raise TypeError(msg)


def wrap_torch_function(dispatcher):
    """Decorator: route `func(*args)` through __torch_function__ for dispatcher(*args)."""
    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant_args = dispatcher(*args, **kwargs)
            if has_torch_function(relevant_args):
                return handle_torch_function(wrapped, relevant_args, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return inner


def is_tensor_like(inp):
    """Tensors and anything whose type defines __torch_function__."""
    return type(inp) is _tensor_cls() or hasattr(inp, "__torch_function__")


# ---- modes ----

class TorchFunctionMode:
    """A context manager that sees every ember call on this thread while it is entered."""
    inner = None

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError()

    def __enter__(self):
        _C._push_on_torch_function_stack(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _C._pop_torch_function_stack()
        return False

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just "
                      "`with Mode()`")
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        return func(*args, **kwargs)


def _get_current_function_mode():
    n = _C._len_torch_function_stack()
    return _C._get_function_stack_at(n - 1) if n > 0 else None


def _get_current_function_mode_stack():
    return [_C._get_function_stack_at(i) for i in range(_C._len_torch_function_stack())]


# ---- tables ----

def get_ignored_functions():
    """Public functions that cannot be overridden by __torch_function__."""
    import ember
    names = ["tensor", "as_tensor", "get_default_dtype", "set_default_dtype", "Size", "dtype",
             "device"]
    out = {getattr(ember, n) for n in names if hasattr(ember, n)}
    Tensor = _tensor_cls()
    out.update({Tensor.__hash__, Tensor.__iter__, Tensor._make_subclass,
                Tensor._make_wrapper_subclass, Tensor.as_subclass, Tensor.__torch_function__})
    return out


@functools.lru_cache(None)
def _overridable():
    import ember
    Tensor = _tensor_cls()
    ignored = get_ignored_functions()
    table = {ember: [], Tensor: []}
    for name, fn in sorted(_C._op_functions.items()):
        if not name.startswith("_") and getattr(ember, name, None) is fn and fn not in ignored:
            table[ember].append(fn)
    for klass in reversed(Tensor.__mro__[:-1]):
        for name, value in vars(klass).items():
            if name in ("__torch_function__", "__torch_dispatch__", "__init_subclass__",
                        "__new__", "__init__", "__dict__", "__weakref__", "__module__", "__doc__",
                        "__class__", "__slots__", "__hash__", "__iter__", "__qualname__"):
                continue
            attr = getattr(Tensor, name, None)
            if isinstance(value, property):
                table[Tensor].append(value.__get__)
            elif callable(attr) and attr not in ignored and attr not in table[Tensor]:
                table[Tensor].append(attr)
    return table


def get_overridable_functions():
    """{namespace: [functions]} of everything that honours __torch_function__."""
    return {k: list(v) for k, v in _overridable().items()}


def is_tensor_method_or_property(func):
    return func in _overridable()[_tensor_cls()]


def get_testing_overrides():
    """{function: a lambda of the same arity returning -1}, for testing override coverage."""
    import inspect
    out = {}
    for funcs in _overridable().values():
        for f in funcs:
            try:
                sig = inspect.signature(f)
                nparams = sum(1 for p in sig.parameters.values()
                              if p.default is inspect.Parameter.empty
                              and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
            except (TypeError, ValueError):
                nparams = None
            if nparams is None:
                out[f] = lambda *args, **kwargs: -1
            else:
                params = ", ".join(f"a{i}" for i in range(nparams))
                out[f] = eval(f"lambda {params}{', ' if params else ''}*args, **kwargs: -1")
    return out
