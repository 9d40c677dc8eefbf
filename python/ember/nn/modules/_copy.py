"""copy.copy, copy.deepcopy and pickle of modules.

deepcopy is C++'s Module::clone with Python's memo (Note [Deep copies across the boundary] in
python/csrc/module_copy.cpp): the tree is copied in C++, and the __dict__ of each module that has
a Python object (hooks, plain attributes) is deep-copied here through the same memo.

copy.copy and pickle use __reduce_ex__, as PyTorch's modules do. A module's C++ part cannot be
pickled as bytes, so it is rebuilt the way it was built: the bound class's __init__ with the
arguments it was given (recorded when it ran; a Python subclass of Module needs none), then its
state is put back: training flag, parameters, buffers and children (in order), and __dict__.
Children that the constructor itself made in C++ (a ResNet's blocks) are not rebuilt one by one:
their state is put back into the ones the rebuilt constructor makes. copy.copy gives a new
module whose parameters, buffers and children are the original's objects (shallow, as PyTorch).
"""
import copy as _copy
import sys
import weakref
from collections import OrderedDict

from ... import _C
from .module import Module

# module object -> (bound class whose __init__ ran, args, kwargs)
_recipes = weakref.WeakKeyDictionary()
# Containers are rebuilt empty: their children come back with the state.
_EMPTY_RECIPE = ((), {})


def _record_init(cls, empty):
    orig = cls.__init__

    def __init__(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        _recipes[self] = (cls,) + (_EMPTY_RECIPE if empty else (args, kwargs))

    __init__.__doc__ = orig.__doc__
    __init__.__wrapped__ = orig
    cls.__init__ = __init__


def _containers():
    return tuple(getattr(_C._nn, n) for n in ("Sequential", "ModuleList", "ModuleDict"))


def _install(namespaces):
    containers = _containers()
    for ns in namespaces:
        for obj in list(vars(ns).values()):
            if (isinstance(obj, type) and issubclass(obj, Module) and obj is not Module
                    and "__init__" in vars(obj) and not hasattr(obj.__init__, "__wrapped__")):
                _record_init(obj, issubclass(obj, containers))


class _Nested:
    """The state of a child its parent's constructor makes (put back into that child)."""

    __slots__ = ("state",)

    def __init__(self, state):
        self.state = state

    def __reduce__(self):
        return (_Nested, (self.state,))


def _is_python_module(m):
    """A Python subclass of Module itself: Module.__init__() rebuilds its C++ part."""
    bound = _bound_classes()
    return not any(b in bound for b in type(m).__mro__)


_BOUND = None


def _bound_classes():
    global _BOUND
    if _BOUND is None:
        _BOUND = {o for ns in _namespaces() for o in vars(ns).values()
                  if isinstance(o, type) and issubclass(o, Module) and o is not Module}
    return _BOUND


def _namespaces():
    out = [_C._nn]
    # models, quantized modules, observers, fused / QAT modules and the quantization stubs
    for name in ("_vision", "_nnq", "_nniq", "_nnqd", "_quantization", "_nni", "_nnqat",
                 "_nniqat", "_qstubs"):
        if hasattr(_C, name):
            out.append(getattr(_C, name))
    return out


def _state(m):
    children = []
    for name in m._slot_names(2):
        child = getattr(m, name)
        if child is None or child in _recipes or _is_python_module(child):
            children.append((name, child))
        else:
            children.append((name, _Nested(_state(child))))
    non_persistent = set(m._non_persistent_buffer_names())
    return {
        "training": m.training,
        "parameters": [(n, getattr(m, n)) for n in m._slot_names(0)],
        "buffers": [(n, getattr(m, n), n not in non_persistent) for n in m._slot_names(1)],
        "children": children,
        "__dict__": dict(m.__dict__),
        # What a C++ class keeps outside its slots (a quantized module's packed weights).
        "native": m._native_state() if hasattr(m, "_native_state") else None,
    }


def _set_state(m, state):
    params = state["parameters"]
    if list(m._slot_names(0)) == [n for n, _ in params]:
        for n, p in params:
            setattr(m, n, p)
    else:
        for n in list(m._slot_names(0)):
            delattr(m, n)
        for n, p in params:
            m.register_parameter(n, p)
    buffers = state["buffers"]
    if list(m._slot_names(1)) == [n for n, _, _ in buffers] and \
            set(m._non_persistent_buffer_names()) == {n for n, _, p in buffers if not p}:
        for n, b, _ in buffers:
            setattr(m, n, b)
    else:
        for n in list(m._slot_names(1)):
            delattr(m, n)
        for n, b, persistent in buffers:
            m.register_buffer(n, b, persistent)
    children = state["children"]
    existing = list(m._slot_names(2))
    if existing != [n for n, _ in children]:
        for n in existing:
            delattr(m, n)
    for n, c in children:
        if n in m._slot_names(2) and getattr(m, n) is c:
            continue  # the constructor already placed it (containers)
        if isinstance(c, _Nested):
            if n not in m._slot_names(2) or getattr(m, n) is None:
                raise RuntimeError(f"cannot unpickle {type(m).__name__}: its constructor did not "
                                   f"make the child '{n}' that was built in C++")
            _set_state(getattr(m, n), c.state)
        else:
            m.add_module(n, c)
    Module.training.__set__(m, state["training"])
    if state.get("native") is not None:
        m._set_native_state(state["native"])
    m.__dict__.update(state["__dict__"])
    _sync_hooks(m)


def _sync_hooks(m):
    # Hooks that arrive through __dict__ (not register_*_hook) must be announced where the
    # module tree keeps that information.
    sync = getattr(m, "_sync_hooks", None)
    if sync is not None:
        sync()


def _rebuild_module(cls, recipe):
    obj = cls.__new__(cls)
    if recipe is None:
        Module.__init__(obj)
    else:
        base, args, kwargs = recipe
        base.__init__.__wrapped__(obj, *args, **kwargs)
        _recipes[obj] = recipe
    return obj


def _container_recipe(self, recipe):
    # A container is rebuilt around its current children (an empty one, then add_module, would
    # bypass its own list of children).
    base = recipe[0] if recipe is not None else next(
        b for b in type(self).__mro__ if b in _bound_classes())
    children = [(n, getattr(self, n)) for n in self._slot_names(2)]
    if issubclass(base, _C._nn.ModuleList):
        return (base, ([c for _, c in children],), {})
    if hasattr(_C, "_nni") and issubclass(base, _C._nni._FusedModule):
        return (base, tuple(c for _, c in children), {})  # ConvReLU2d(conv, relu)
    return (base, (OrderedDict(children),), {})


def __reduce_ex__(self, proto):
    recipe = _recipes.get(self)
    if isinstance(self, _containers()):
        recipe = _container_recipe(self, recipe)
    if recipe is None and not _is_python_module(self):
        raise TypeError(f"cannot pickle '{type(self).__name__}' object: it was built in C++ "
                        "outside a constructor ember can replay (pickle the model that holds it)")
    return (_rebuild_module, (type(self), recipe), _state(self))


def __setstate__(self, state):
    _set_state(self, state)


def __deepcopy__(self, memo):
    if id(self) in memo:
        return memo[id(self)]
    new, created = Module._clone_module(self, memo)
    for original, copy in created:
        state = _copy.deepcopy(original.__dict__, memo)
        copy.__dict__.update(state)
        _sync_hooks(copy)
        if original in _recipes:
            _recipes[copy] = _recipes[original]
    return new


Module._clone_module = staticmethod(_C._nn._clone_module)
Module.__reduce_ex__ = __reduce_ex__
Module.__setstate__ = __setstate__
Module.__deepcopy__ = __deepcopy__
_install(_namespaces())
# Pickle names a class by its __module__ and name: make ember._C._nn (and _vision) importable,
# and each bound class findable in the module its __module__ names.
for _ns in _namespaces():
    sys.modules.setdefault(_ns.__name__, _ns)
for _cls in _bound_classes():
    _mod = sys.modules.get(_cls.__module__)
    if _mod is not None and getattr(_mod, _cls.__name__, None) is None:
        setattr(_mod, _cls.__name__, _cls)
