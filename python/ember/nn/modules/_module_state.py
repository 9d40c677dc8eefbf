"""The state_dict hooks, extra state and `_version` of ember.nn.Module, as PyTorch's.

The hooks live in OrderedDicts on the module, as in PyTorch (`m._state_dict_hooks`, ...), and C++
runs them at PyTorch's points of the state_dict / load_state_dict algorithm (Note [Python
state_dict hooks], python/csrc/nn_module_state_hooks.cpp): so they also fire for a module deep
inside a tree built in C++.
"""
from collections import OrderedDict

from ... import _C
from ...utils.hooks import RemovableHandle
from .module import Module, _IncompatibleKeys, _WrappedHook

# What PyTorch keeps per module for its state_dict hooks.
_STATE_HOOK_DICTS = ("_state_dict_pre_hooks", "_state_dict_hooks", "_load_state_dict_pre_hooks",
                     "_load_state_dict_post_hooks")


def _state_hooks(self, name):
    d = self.__dict__.get(name)
    if d is None:
        d = OrderedDict()
        self.__dict__[name] = d
    _C._nn._install_state_dict_hooks(self)  # once per module (C++ checks)
    return d


def _state_hook_property(name):
    def getter(self):
        return _state_hooks(self, name)

    def setter(self, value):
        # `m._state_dict_hooks = OrderedDict()`, as PyTorch code does.
        self.__dict__[name] = value
        _C._nn._install_state_dict_hooks(self)

    return property(getter, setter)


for _name in _STATE_HOOK_DICTS:
    setattr(Module, _name, _state_hook_property(_name))


def _register_state_dict_hook(self, hook):
    """hook(module, state_dict, prefix, local_metadata) after the module's state_dict is made;
    it may edit state_dict in place or return a new one."""
    hooks = _state_hooks(self, "_state_dict_hooks")
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def register_state_dict_post_hook(self, hook):
    """hook(module, state_dict, prefix, local_metadata) -> None, after the module's state_dict is
    made (it may edit state_dict in place)."""
    hook._from_public_api = True
    return _register_state_dict_hook(self, hook)


def register_state_dict_pre_hook(self, hook):
    """hook(module, prefix, keep_vars) before the module's state_dict is made."""
    hooks = _state_hooks(self, "_state_dict_pre_hooks")
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def _register_load_state_dict_pre_hook(self, hook, with_module=False):
    """hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
    error_msgs) before the module loads (the module first with with_module=True)."""
    hooks = _state_hooks(self, "_load_state_dict_pre_hooks")
    handle = RemovableHandle(hooks)
    hooks[handle.id] = _WrappedHook(hook, self if with_module else None)
    return handle


def register_load_state_dict_pre_hook(self, hook):
    """hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
    error_msgs) before the module loads."""
    return _register_load_state_dict_pre_hook(self, hook, with_module=True)


def register_load_state_dict_post_hook(self, hook):
    """hook(module, incompatible_keys) -> None after the module and its children loaded; editing
    incompatible_keys' lists in place changes what strict loading reports."""
    hooks = _state_hooks(self, "_load_state_dict_post_hooks")
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def get_extra_state(self):
    """Any extra state to save in the module's state_dict (under "<prefix>_extra_state"). A
    subclass that needs it defines this and set_extra_state."""
    raise RuntimeError(
        "Reached a code path in Module.get_extra_state() that should never be called.")


def set_extra_state(self, state):
    """Restores the extra state get_extra_state saved, from load_state_dict."""
    raise RuntimeError(
        "Reached a code path in Module.set_extra_state() that should never be called.")


def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
    """Pairs (name, member) over the modules (recursively unless recurse=False) of what
    get_members_fn(module) yields, each member once unless remove_duplicate=False."""
    memo = set()
    modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
        else [(prefix, self)]
    for module_prefix, module in modules:
        for k, v in get_members_fn(module):
            if v is None or v in memo:
                continue
            if remove_duplicate:
                memo.add(v)
            name = module_prefix + ("." if module_prefix else "") + k
            yield name, v


Module._register_state_dict_hook = _register_state_dict_hook
Module.register_state_dict_post_hook = register_state_dict_post_hook
Module.register_state_dict_pre_hook = register_state_dict_pre_hook
Module._register_load_state_dict_pre_hook = _register_load_state_dict_pre_hook
Module.register_load_state_dict_pre_hook = register_load_state_dict_pre_hook
Module.register_load_state_dict_post_hook = register_load_state_dict_post_hook
Module.get_extra_state = get_extra_state
Module.set_extra_state = set_extra_state
Module._named_members = _named_members
Module._version = 1
Module.dump_patches = False
_C._nn._set_state_dict_support(_IncompatibleKeys, Module.get_extra_state)
