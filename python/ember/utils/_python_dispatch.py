"""__torch_dispatch__ for Python: TorchDispatchMode and the dispatcher C++ calls
(torch.utils._python_dispatch).

C++ reaches `_dispatch_torch_dispatch` from the dispatch layer (below autograd) when an op's
arguments include an instance of a Python class with a real __torch_dispatch__, or a mode is on
the stack; see Note [Python subclasses in C++ calls] in python/csrc/torch_dispatch.cpp.
"""
from .. import _C
from .._ops import ops

__all__ = ["TorchDispatchMode", "BaseTorchDispatchMode", "is_traceable_wrapper_subclass"]


def _has_real_dispatch(t):
    return getattr(type(t), "__torch_dispatch__", None) not in (
        None, _C._disabled_torch_dispatch_impl)


def _overloaded_args(args, kwargs):
    """Tensors with a real __torch_dispatch__ in NEP-18 order, one per type."""
    out = []

    def visit(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                visit(y)
            return
        if not isinstance(x, _C.TensorBase) or not _has_real_dispatch(x):
            return
        t = type(x)
        if any(type(o) is t for o in out):
            return
        for i, o in enumerate(out):
            if issubclass(t, type(o)):
                out.insert(i, x)
                return
        out.append(x)

    visit(args)
    visit(list(kwargs.values()))
    return out


# (op name, class) -> rule: ember.library.register_torch_dispatch's per-op replacements of a
# mode's or subclass's __torch_dispatch__, called as rule(mode or class, func, types, args, kwargs).
_torch_dispatch_rules = {}


def _dispatch_torch_dispatch(full_name, args, kwargs, mode):
    func = ops._lookup(full_name)
    overloaded = _overloaded_args(args, kwargs)
    types = tuple(type(a) for a in overloaded)
    if mode is not None:
        rule = _torch_dispatch_rules.get((full_name, type(mode))) if _torch_dispatch_rules else None
        if rule is not None:
            return rule(mode, func, types, args, kwargs)
        return mode.__torch_dispatch__(func, types, args, kwargs)
    for arg in overloaded:
        rule = _torch_dispatch_rules.get((full_name, type(arg))) if _torch_dispatch_rules else None
        if rule is not None:
            result = rule(type(arg), func, types, args, kwargs)
        else:
            result = type(arg).__torch_dispatch__(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"no implementation found for '{func.__module__}.{func.__name__}' on types "
                    f"that implement __torch_dispatch__: {list(types)}")


_C._set_torch_dispatch_handler(_dispatch_torch_dispatch)


class TorchDispatchMode:
    """While entered, sees every primitive op of this thread (below autograd) as an
    ember.ops.aten OpOverload; popped while its own handler runs."""

    def __init__(self, _dispatch_key=None):
        self._dispatch_key = _dispatch_key

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError()

    def __enter__(self):
        _C._push_torch_dispatch_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _C._pop_torch_dispatch_mode()
        return False

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)


class BaseTorchDispatchMode(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def _get_current_dispatch_mode():
    n = _C._len_torch_dispatch_stack()
    return _C._get_dispatch_stack_at(n - 1) if n > 0 else None


def _get_current_dispatch_mode_stack():
    return [_C._get_dispatch_stack_at(i) for i in range(_C._len_torch_dispatch_stack())]


def is_traceable_wrapper_subclass(t):
    """A strict Tensor subclass instance with __tensor_flatten__ and __tensor_unflatten__."""
    from .._tensor import Tensor
    return (isinstance(t, Tensor) and type(t) is not Tensor
            and hasattr(t, "__tensor_flatten__") and hasattr(t, "__tensor_unflatten__"))
