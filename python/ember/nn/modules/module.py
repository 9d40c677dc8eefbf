"""ember.nn.Module: the C++ ember::nn::Module, bound (python/csrc/nn_module.cpp).

State, traversal, state_dict, loading, conversion and repr run in C++. What PyTorch writes in
Python lives here: the hooks (Python callables over arbitrary Python arguments) and __call__'s
algorithm once a hook may run (Note [Module hooks across the boundary]), the registration checks
with PyTorch's messages, get_submodule / get_parameter / get_buffer, named_modules, the
generator forms of the traversals, the _parameters / _buffers / _modules mapping views (reads
and writes go to the C++ module), and the _IncompatibleKeys named tuple.
"""
import builtins
import weakref
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping, MutableMapping

from ... import _C
from ...utils import hooks as _hooks
from ...utils.hooks import RemovableHandle

Module = _C._nn.Module
Module.__module__ = "ember.nn"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


# Module-global hooks (torch.nn.modules.module's), applied to every module's call.
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = None
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()


def _global_hooks_changed():
    # C++ parents hand calls to Python while a global hook may run (Note [Module hooks across
    # the boundary]); the flag stays set once any was registered (the dicts are checked here).
    _C._nn._set_global_hooks(True)


def register_module_forward_pre_hook(hook):
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    _global_hooks_changed()
    return handle


def register_module_forward_hook(hook, *, always_call=False):
    handle = RemovableHandle(_global_forward_hooks, extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    _global_hooks_changed()
    return handle


def _register_global_backward_hook(hook, full):
    # The regular and the full global backward hooks share one dict; mixing them is refused.
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = full
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    _global_hooks_changed()
    return handle


def register_module_backward_hook(hook):
    return _register_global_backward_hook(hook, full=False)


def register_module_full_backward_pre_hook(hook):
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    _global_hooks_changed()
    return handle


def register_module_full_backward_hook(hook):
    return _register_global_backward_hook(hook, full=True)


# The per-module hook dicts live in the instance __dict__ (created on first use, so modules
# without hooks carry none); the C++ module is marked so that C++ parents call it through
# Python (Note [Module hooks across the boundary]).
_HOOK_DICTS = (
    "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
    "_forward_hooks_with_kwargs", "_forward_hooks_always_called", "_backward_pre_hooks",
    "_backward_hooks",
)


def _hook_dict(self, name):
    d = self.__dict__.get(name)
    if d is None:
        d = OrderedDict()
        self.__dict__[name] = d
        self._set_front_end_hooks(True)
    return d


def _hooks_of(self, name):
    # Read-only access: no dict is created for a module that has none.
    d = self.__dict__.get(name)
    return d if d is not None else _EMPTY


_EMPTY = OrderedDict()


def _add_hook(self, dict_name, hook, prepend, extra_names=()):
    hooks = _hook_dict(self, dict_name)
    extras = [_hook_dict(self, n) for n in extra_names]
    handle = RemovableHandle(hooks, extra_dict=extras or None)
    hooks[handle.id] = hook
    self._set_front_end_hooks(True)
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
    handle = _add_hook(self, "_forward_pre_hooks", hook, prepend,
                       ("_forward_pre_hooks_with_kwargs",))
    if with_kwargs:
        self._forward_pre_hooks_with_kwargs[handle.id] = True
    return handle


def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
    handle = _add_hook(self, "_forward_hooks", hook, prepend,
                       ("_forward_hooks_with_kwargs", "_forward_hooks_always_called"))
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    return handle


def register_full_backward_pre_hook(self, hook, prepend=False):
    return _add_hook(self, "_backward_pre_hooks", hook, prepend)


def register_backward_hook(self, hook):
    if self.__dict__.get("_is_full_backward_hook") is True:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                           "single Module. Please use only one of them.")
    self.__dict__["_is_full_backward_hook"] = False
    return _add_hook(self, "_backward_hooks", hook, False)


def register_full_backward_hook(self, hook, prepend=False):
    if self.__dict__.get("_is_full_backward_hook") is False:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                           "single Module. Please use only one of them.")
    self.__dict__["_is_full_backward_hook"] = True
    return _add_hook(self, "_backward_hooks", hook, prepend)


def _sync_hooks(self):
    """Marks the module for C++ callers when its __dict__ holds hooks that did not come through
    register_*_hook (a copy's __dict__ filled directly, as deepcopy and pickle do)."""
    d = self.__dict__
    if any(d.get(n) for n in ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks",
                              "_backward_hooks")):
        self._set_front_end_hooks(True)


def _get_backward_hooks(self):
    full, non_full = [], []
    own = list(_hooks_of(self, "_backward_hooks").values())
    is_full = self.__dict__.get("_is_full_backward_hook")
    if _global_is_full_backward_hook is True:
        full += _global_backward_hooks.values()
    if is_full is True:
        full += own
    if _global_is_full_backward_hook is False:
        non_full += _global_backward_hooks.values()
    if is_full is False:
        non_full += own
    return full, non_full


def _get_backward_pre_hooks(self):
    return [*_global_backward_pre_hooks.values(), *_hooks_of(self, "_backward_pre_hooks").values()]


def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
    from ... import Tensor

    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            warnings.warn("Using non-full backward hooks on a Module that does not return a "
                          "single Tensor or a tuple of Tensors is deprecated and will be removed "
                          "in future versions. This hook will be missing some of the grad_output. "
                          "Please use register_full_backward_hook to get the documented behavior.")
            return
    else:
        result = (result,)
    if not isinstance(inputs, Tensor):
        if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            warnings.warn("Using non-full backward hooks on a Module that does not take as input a "
                          "single Tensor or a tuple of Tensors is deprecated and will be removed "
                          "in future versions. This hook will be missing some of the grad_input. "
                          "Please use register_full_backward_hook to get the documented behavior.")
            return
    else:
        inputs = (inputs,)
    out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
    if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        warnings.warn("Using a non-full backward hook when outputs are nested in python data "
                      "structure is deprecated and will be removed in future versions. This hook "
                      "will be missing some grad_output.")
    elif len(out_grad_fn) > 1:
        warnings.warn("Using a non-full backward hook when outputs are generated by different "
                      "autograd Nodes is deprecated and will be removed in future versions. This "
                      "hook will be missing some grad_output. Please use "
                      "register_full_backward_hook to get the documented behavior.")
    else:
        inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
        next_functions = {n[0] for n in grad_fn.next_functions}
        if inputs_grad_fn != next_functions:
            warnings.warn("Using a non-full backward hook when the forward contains multiple "
                          "autograd Nodes is deprecated and will be removed in future versions. "
                          "This hook will be missing some grad_input. Please use "
                          "register_full_backward_hook to get the documented behavior.")


def _call_impl(self, *args, **kwargs):
    """Module.__call__ once a hook may run (the C++ __call__ goes straight to forward
    otherwise): PyTorch 2.x's algorithm, plus the hooks registered in C++."""
    forward_call = self.forward
    d = self.__dict__
    fw_pre = d.get("_forward_pre_hooks") or _EMPTY
    fw = d.get("_forward_hooks") or _EMPTY
    bw = d.get("_backward_hooks") or _EMPTY
    bw_pre = d.get("_backward_pre_hooks") or _EMPTY
    native = self._has_native_hooks()
    if not (bw or bw_pre or fw or fw_pre or _global_backward_pre_hooks or _global_backward_hooks
            or _global_forward_hooks or _global_forward_pre_hooks):
        # Every Python hook was removed: C++ parents may call this module directly again (and
        # fast paths such as the eval-mode conv-bn fusion apply).
        self._set_front_end_hooks(False)
        if not (_global_backward_pre_hooks or _global_backward_hooks or _global_forward_hooks
                or _global_forward_pre_hooks):
            _C._nn._set_global_hooks(False)
        if not native:
            return forward_call(*args, **kwargs)

    pre_with_kwargs = d.get("_forward_pre_hooks_with_kwargs") or _EMPTY
    fw_with_kwargs = d.get("_forward_hooks_with_kwargs") or _EMPTY
    fw_always = d.get("_forward_hooks_always_called") or _EMPTY
    result = None
    called_always_called_hooks = set()
    try:
        full_backward_hooks, non_full_backward_hooks = [], []
        backward_pre_hooks = []
        if bw_pre or _global_backward_pre_hooks:
            backward_pre_hooks = _get_backward_pre_hooks(self)
        if bw or _global_backward_hooks:
            full_backward_hooks, non_full_backward_hooks = _get_backward_hooks(self)

        if native:
            replaced = self._run_native_pre_hooks(args)
            if replaced is not None:
                args = replaced
        if _global_forward_pre_hooks or fw_pre:
            for hook_id, hook in (*_global_forward_pre_hooks.items(), *fw_pre.items()):
                if hook_id in pre_with_kwargs:
                    args_kwargs_result = hook(self, args, kwargs)
                    if args_kwargs_result is not None:
                        if isinstance(args_kwargs_result, tuple) and len(args_kwargs_result) == 2:
                            args, kwargs = args_kwargs_result
                        else:
                            raise RuntimeError(
                                "forward pre-hook must return None or a tuple of (new_args, "
                                f"new_kwargs), but got {args_kwargs_result}.")
                else:
                    args_result = hook(self, args)
                    if args_result is not None:
                        if not isinstance(args_result, tuple):
                            args_result = (args_result,)
                        args = args_result

        bw_hook = None
        if full_backward_hooks or backward_pre_hooks:
            bw_hook = _hooks.BackwardHook(self, full_backward_hooks, backward_pre_hooks)
            args = bw_hook.setup_input_hook(args)

        result = forward_call(*args, **kwargs)
        if native:
            replaced = self._run_native_hooks(args, result)
            if replaced is not None:
                result = replaced
        if _global_forward_hooks or fw:
            for hook_id, hook in (*_global_forward_hooks.items(), *fw.items()):
                if hook_id in fw_always or hook_id in _global_forward_hooks_always_called:
                    called_always_called_hooks.add(hook_id)
                if hook_id in fw_with_kwargs:
                    hook_result = hook(self, args, kwargs, result)
                else:
                    hook_result = hook(self, args, result)
                if hook_result is not None:
                    result = hook_result

        if bw_hook:
            from ... import Tensor

            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor "
                              f"or a tuple of Tensors but received {builtins.type(result)}")
            result = bw_hook.setup_output_hook(result)

        # The deprecated (non-full) backward hooks, on the output's grad_fn.
        if non_full_backward_hooks:
            from ... import Tensor

            var = result
            while not isinstance(var, Tensor):
                if isinstance(var, dict):
                    var = next(v for v in var.values() if isinstance(v, Tensor))
                else:
                    var = var[0]
            grad_fn = var.grad_fn
            if grad_fn is not None:
                for hook in non_full_backward_hooks:
                    grad_fn.register_hook(_WrappedHook(hook, self))
                _maybe_warn_non_full_backward_hook(self, args, result, grad_fn)
        return result
    except Exception:
        # always_call hooks still run, once, when forward or a hook raised.
        for hook_id, hook in _global_forward_hooks.items():
            if (hook_id in _global_forward_hooks_always_called
                    and hook_id not in called_always_called_hooks):
                try:
                    hook_result = hook(self, args, result)
                    if hook_result is not None:
                        result = hook_result
                except Exception as e:
                    warnings.warn("global module forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {str(e)}")
                    continue
        for hook_id, hook in fw.items():
            if hook_id in fw_always and hook_id not in called_always_called_hooks:
                try:
                    if hook_id in fw_with_kwargs:
                        hook_result = hook(self, args, kwargs, result)
                    else:
                        hook_result = hook(self, args, result)
                    if hook_result is not None:
                        result = hook_result
                except Exception as e:
                    warnings.warn("module forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {str(e)}")
                    continue
        raise


class _WrappedHook:
    """A hook with its module passed first, held weakly (PyTorch's _WrappedHook): a non-full
    backward hook, a load_state_dict pre-hook registered with_module; without a module, the
    hook itself."""

    def __init__(self, hook, module=None):
        self.hook = hook
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args)
        return self.hook(*args)


class _MemberView(MutableMapping):
    """_parameters / _buffers / _modules: a live mapping over the C++ module's members (the one
    list each; Note [One list of children]). One object per module and kind (_member_view), so
    `m._modules is m._modules` as in PyTorch; it refers to its module weakly, so that caching it
    keeps no module alive."""

    def __init__(self, module, kind):
        self._module_ref = weakref.ref(module)
        self._kind = kind  # 0 parameters, 1 buffers, 2 children

    @property
    def _module(self):
        m = self._module_ref()
        if m is None:
            raise ReferenceError("the module of this mapping no longer exists")
        return m

    def _names(self):
        return self._module._slot_names(self._kind)

    def __getitem__(self, key):
        if key not in self._names():
            raise KeyError(key)
        return Module.__getattr__(self._module, key)

    def __setitem__(self, key, value):
        m = self._module
        if self._kind == 0:
            m._cpp_store_parameter(key, value)
        elif self._kind == 1:
            persistent = key not in m._non_persistent_buffer_names()
            m._cpp_register_buffer(key, value, persistent)
        else:
            if value is not None and not isinstance(value, Module):
                raise TypeError(f"{_typename(value)} is not a Module subclass")
            m._cpp_add_module(key, value)

    def __delitem__(self, key):
        if key not in self._names():
            raise KeyError(key)
        Module.__delattr__(self._module, key)

    def __iter__(self):
        return iter(self._names())

    def __len__(self):
        return len(self._names())

    def __contains__(self, key):
        return key in self._names()

    def __eq__(self, other):
        return OrderedDict(self.items()) == other

    def __repr__(self):
        return repr(OrderedDict(self.items()))


# id(module) -> (a weak reference to it, its three views), created on first access; the entry
# goes with the module (the weak reference's callback). Not in the module's __dict__, which
# deepcopy and pickle copy; keyed by id, not by the module, whose class may define __eq__.
_member_views = {}


def _member_view(kind):
    def get(self):
        key = id(self)
        entry = _member_views.get(key)
        if entry is None or entry[0]() is not self:
            entry = _member_views[key] = (
                weakref.ref(self, lambda _, key=key: _member_views.pop(key, None)), [None, None, None])
        views = entry[1]
        view = views[kind]
        if view is None:
            view = views[kind] = _MemberView(self, kind)
        return view
    return get


def _typename(o):
    """torch.typename, with ember's tensor type names."""
    from ... import Tensor

    if isinstance(o, Tensor):
        return o.type()
    module = ""
    mod = getattr(o, "__module__", None)
    if mod is not None and mod not in ("builtins", "__builtin__"):
        module = mod + "."
    if hasattr(o, "__qualname__"):
        class_name = o.__qualname__
    elif hasattr(o, "__name__"):
        class_name = o.__name__
    else:
        class_name = o.__class__.__name__
    return module + class_name


def _check_initialized(self, what):
    if not _C._nn._module_initialized(self):
        raise AttributeError(f"cannot assign {what} before Module.__init__() call")


def register_buffer(self, name, tensor, persistent=True):
    from ... import Tensor

    _check_initialized(self, "buffer")
    if not isinstance(name, str):
        raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
    elif "." in name:
        raise KeyError("buffer name can't contain \".\"")
    elif name == "":
        raise KeyError("buffer name can't be empty string \"\"")
    elif hasattr(self, name) and name not in self._slot_names(1):
        raise KeyError(f"attribute '{name}' already exists")
    elif tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                        "(ember Tensor or None required)")
    self._cpp_register_buffer(name, tensor, bool(persistent))


def register_parameter(self, name, param):
    from ..parameter import Parameter

    _check_initialized(self, "parameter")
    if not isinstance(name, str):
        raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
    elif "." in name:
        raise KeyError("parameter name can't contain \".\"")
    elif name == "":
        raise KeyError("parameter name can't be empty string \"\"")
    elif hasattr(self, name) and name not in self._slot_names(0):
        raise KeyError(f"attribute '{name}' already exists")
    if param is not None and not isinstance(param, Parameter):
        raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                        "(ember.nn.Parameter or None required)")
    if param is not None and param.grad_fn:
        raise ValueError(
            f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
            f"created explicitly. To express '{name}' as a function of another Tensor, compute "
            "the value in the forward() method.")
    self._cpp_register_parameter(name, param)


def add_module(self, name, module):
    if not isinstance(module, Module) and module is not None:
        raise TypeError(f"{_typename(module)} is not a Module subclass")
    elif not isinstance(name, str):
        raise TypeError(f"module name should be a string. Got {_typename(name)}")
    elif hasattr(self, name) and name not in self._slot_names(2):
        raise KeyError(f"attribute '{name}' already exists")
    elif "." in name:
        raise KeyError(f"module name can't contain \".\", got: {name}")
    elif name == "":
        raise KeyError("module name can't be empty string \"\"")
    self._cpp_add_module(name, module)


def register_module(self, name, module):
    self.add_module(name, module)


def get_submodule(self, target):
    if target == "":
        return self
    mod = self
    for item in target.split("."):
        if not hasattr(mod, item):
            raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
        mod = getattr(mod, item)
        if not isinstance(mod, Module):
            raise AttributeError("`" + item + "` is not an nn.Module")
    return mod


def _get_leaf(self, target, is_kind, not_kind):
    # get_parameter / get_buffer: the submodule path, then the attribute, with torch's texts.
    module_path, _, name = target.rpartition(".")
    mod = self.get_submodule(module_path)
    if not hasattr(mod, name):
        raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
    value = getattr(mod, name)
    if not is_kind(mod, name, value):
        raise AttributeError("`" + name + "` is not " + not_kind)
    return value


def get_parameter(self, target):
    from ..parameter import Parameter

    return _get_leaf(self, target, lambda mod, name, value: isinstance(value, Parameter),
                     "an nn.Parameter")


def get_buffer(self, target):
    return _get_leaf(self, target, lambda mod, name, value: name in mod._slot_names(1), "a buffer")


def named_modules(self, memo=None, prefix="", remove_duplicate=True):
    if memo is None:
        memo = set()
    if self not in memo:
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._child_items():
            if module is None:
                continue
            submodule_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, submodule_prefix, remove_duplicate)


def share_memory(self):
    # As PyTorch: every parameter's and buffer's storage moves into a shared-memory segment in
    # place (Tensor.share_memory_), so the same objects cross to worker processes without copies.
    return self._apply(lambda t: t.share_memory_())


def cuda(self, device=None):
    # As PyTorch's Module.cuda: each tensor's .cuda(), which raises ember's no-CUDA AssertionError.
    return self._apply(lambda t: t.cuda(device))


def _type(self, dst_type):
    return self._apply(lambda t: t.type(dst_type))


def _set_members(kind):
    def setter(self, mapping):
        # `self._modules = OrderedDict(...)`: the members become exactly the mapping's.
        for name in list(self._slot_names(kind)):
            Module.__delattr__(self, name)
        view = _member_view(kind)(self)
        for name, value in mapping.items():
            view[name] = value
    return setter


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
        if destination is None:
            destination = args[0]
        if len(args) > 1 and prefix == "":
            prefix = args[1]
        if len(args) > 2 and keep_vars is False:
            keep_vars = args[2]
        warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to the "
                      "documentation of ember.nn.Module.state_dict for details.", FutureWarning)
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
        raise TypeError(f"Expected state_dict to be dict-like, got {builtins.type(state_dict)}.")
    return _IncompatibleKeys(*self._load_state_dict_impl(state_dict, strict, assign))


def __dir__(self):
    names = list(object.__dir__(self))
    for kind in (0, 1, 2):
        names += self._slot_names(kind)
    return sorted(set(names))


Module.register_forward_pre_hook = register_forward_pre_hook
Module.register_forward_hook = register_forward_hook
Module.register_full_backward_pre_hook = register_full_backward_pre_hook
Module.register_full_backward_hook = register_full_backward_hook
Module.register_backward_hook = register_backward_hook
Module._get_backward_hooks = _get_backward_hooks
Module._get_backward_pre_hooks = _get_backward_pre_hooks
Module._maybe_warn_non_full_backward_hook = _maybe_warn_non_full_backward_hook
Module._call_impl = _call_impl
Module._sync_hooks = _sync_hooks
_C._nn._set_slow_call(_call_impl)
def _hook_dict_setter(name):
    def setter(self, value):
        self.__dict__[name] = value  # `m._forward_hooks = OrderedDict()`, as PyTorch allows
        self._set_front_end_hooks(True)
    return setter


def _hook_dict_getter(name):
    pre = name == "_forward_pre_hooks"
    with_native = name in ("_forward_hooks", "_forward_pre_hooks")

    def getter(self):
        # The dict may be filled directly (`m._forward_hooks[k] = hook`, as some code does):
        # mark the module whenever it is handed out; the next call unmarks it if it stays empty.
        d = _hook_dict(self, name)
        self._set_front_end_hooks(True)
        if with_native and self._has_native_hooks():
            # Note [C++ hooks seen from Python]
            from ._native_hooks import NativeHooksView
            return NativeHooksView(self, d, pre)
        return d
    return getter


for _name in _HOOK_DICTS:
    setattr(Module, _name, property(_hook_dict_getter(_name), _hook_dict_setter(_name)))
Module._is_full_backward_hook = property(lambda self: self.__dict__.get("_is_full_backward_hook"))
Module._parameters = property(_member_view(0), _set_members(0))
Module._buffers = property(_member_view(1), _set_members(1))
Module._modules = property(_member_view(2), _set_members(2))
Module._non_persistent_buffers_set = property(lambda self: set(self._non_persistent_buffer_names()))
for _name in ("named_parameters", "named_buffers", "named_children"):
    setattr(Module, _name, _generator(getattr(Module, _name)))
Module.named_modules = named_modules
Module.register_buffer = register_buffer
Module.register_parameter = register_parameter
Module.add_module = add_module
Module.register_module = register_module
Module.get_submodule = get_submodule
Module.get_parameter = get_parameter
Module.get_buffer = get_buffer
Module.share_memory = share_memory
Module.cuda = cuda
Module.type = _type
Module.parameters = parameters
Module.buffers = buffers
Module.children = children
Module.modules = modules
Module.state_dict = state_dict
Module.load_state_dict = load_state_dict
Module.__dir__ = __dir__

from . import _module_state  # noqa: E402,F401  (state_dict hooks, extra state, _version)
