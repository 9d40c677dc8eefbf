"""ember.nn.Module: the C++ ember::nn::Module, bound (python/csrc/nn_module.cpp).

State, traversal, state_dict, loading, conversion and repr run in C++. What PyTorch keeps in
Python objects lives here: forward hooks (Python callables over arbitrary Python arguments),
__call__, the generator forms of the traversals, the _parameters / _buffers / _modules mapping
views (reads and writes go to the C++ module), and the _IncompatibleKeys named tuple.
"""
import itertools
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping, MutableMapping

from ... import _C

Module = _C._nn.Module
Module.__module__ = "ember.nn"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """What register_*_hook returns: remove() takes the hook out again."""

    _ids = itertools.count()

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._ids)

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _hook_dict(self, name):
    d = self.__dict__.get(name)
    if d is None:
        d = OrderedDict()
        self.__dict__[name] = d
    return d


def register_forward_pre_hook(self, hook):
    hooks = _hook_dict(self, "_forward_pre_hooks")
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def register_forward_hook(self, hook):
    hooks = _hook_dict(self, "_forward_hooks")
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def _call_impl(self, *args, **kwargs):
    pre_hooks = self.__dict__.get("_forward_pre_hooks")
    if pre_hooks:
        for hook in list(pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    result = self.forward(*args, **kwargs)
    hooks = self.__dict__.get("_forward_hooks")
    if hooks:
        for hook in list(hooks.values()):
            hook_result = hook(self, args, result)
            if hook_result is not None:
                result = hook_result
    return result


class _MemberView(MutableMapping):
    """_parameters / _buffers / _modules: a live mapping over the C++ module's members."""

    def __init__(self, module, kind):
        self._module = module
        self._kind = kind  # 0 parameters, 1 buffers, 2 children

    def _names(self):
        return self._module._slot_names(self._kind)

    def __getitem__(self, key):
        if key not in self._names():
            raise KeyError(key)
        return Module.__getattr__(self._module, key)

    def __setitem__(self, key, value):
        m = self._module
        if key in self._names():
            Module.__setattr__(m, key, value)
        elif self._kind == 0:
            m.register_parameter(key, value)
        elif self._kind == 1:
            m.register_buffer(key, value)
        else:
            m.add_module(key, value)

    def __delitem__(self, key):
        if key not in self._names():
            raise KeyError(key)
        Module.__delattr__(self._module, key)

    def __iter__(self):
        return iter(self._names())

    def __len__(self):
        return len(self._names())

    def __repr__(self):
        return repr(OrderedDict(self.items()))


def _generator(cpp_fn):
    def method(self, *args, **kwargs):
        yield from cpp_fn(self, *args, **kwargs)

    method.__name__ = cpp_fn.__name__
    return method


def parameters(self, recurse=True):
    for _, p in self.named_parameters(recurse=recurse):
        yield p


def buffers(self, recurse=True):
    for _, b in self.named_buffers(recurse=recurse):
        yield b


def children(self):
    for _, m in self.named_children():
        yield m


def modules(self):
    for _, m in self.named_modules():
        yield m


def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
    # PyTorch's deprecated positional form: state_dict(destination, prefix, keep_vars).
    if args:
        destination = args[0]
        if len(args) > 1:
            prefix = args[1]
        if len(args) > 2:
            keep_vars = args[2]
    result = self._state_dict_impl(prefix, keep_vars)
    if destination is None:
        return result
    destination.update(result)
    metadata = getattr(destination, "_metadata", None)
    if metadata is None:
        destination._metadata = result._metadata
    else:
        metadata.update(result._metadata)
    return destination


def load_state_dict(self, state_dict, strict=True, assign=False):
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    return _IncompatibleKeys(*self._load_state_dict_impl(state_dict, strict, assign))


def __dir__(self):
    names = list(object.__dir__(self))
    for kind in (0, 1, 2):
        names += self._slot_names(kind)
    return sorted(set(names))


Module.__call__ = _call_impl
Module.register_forward_pre_hook = register_forward_pre_hook
Module.register_forward_hook = register_forward_hook
Module._forward_pre_hooks = property(lambda self: _hook_dict(self, "_forward_pre_hooks"))
Module._forward_hooks = property(lambda self: _hook_dict(self, "_forward_hooks"))
Module._parameters = property(lambda self: _MemberView(self, 0))
Module._buffers = property(lambda self: _MemberView(self, 1))
Module._modules = property(lambda self: _MemberView(self, 2))
Module._non_persistent_buffers_set = property(lambda self: set(self._non_persistent_buffer_names()))
for _name in ("named_parameters", "named_buffers", "named_children", "named_modules"):
    setattr(Module, _name, _generator(getattr(Module, _name)))
Module.parameters = parameters
Module.buffers = buffers
Module.children = children
Module.modules = modules
Module.state_dict = state_dict
Module.load_state_dict = load_state_dict
Module.__dir__ = __dir__
