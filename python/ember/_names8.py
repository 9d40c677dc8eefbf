"""Names of session 11's names8 part: Tensor._backward_hooks with Tensor.register_hook over it
(Note [Tensor._backward_hooks] in python/csrc/names8.cpp) and ember.lobpcg (Python, as
torch._lobpcg). segment_reduce, choose_qparams_optimized, the fbgemm_* functions and the
quantized cells are op rows: ember's table exposes them."""
from collections import OrderedDict

from . import _C
from .overrides import handle_torch_function, has_torch_function_unary
from .utils import hooks as _hooks

_register_hook_dict = _C._names8._register_hook_dict
# The tensor's own __dict__ holds [its _backward_hooks object, the id of the C++ hook that runs
# a leaf's dict] under this key (the property of the same name shadows it): owned by the
# tensor, so the GC sees the hooks; deepcopy and pickling leave it out.
STATE_KEY = "_backward_hooks"


def _entry(t, create):
    d = t.__dict__
    entry = d.get(STATE_KEY)
    if entry is None and create:
        entry = d[STATE_KEY] = [None, None]
    return entry


def _get_backward_hooks(self):
    entry = _entry(self, False)
    return None if entry is None else entry[0]


def _set_backward_hooks(self, value):
    entry = _entry(self, True)
    if entry[1] is not None:
        _C._names8._remove_leaf_hook(self, entry[1])
        entry[1] = None
    entry[0] = value
    # A leaf's hooks are the dict assigned last; a non-leaf's grad_fn keeps the dict
    # register_hook gave it (PyTorch's setter re-registers on the tensor, which only a leaf runs).
    if value is not None and self.is_leaf and self.requires_grad:
        entry[1] = _register_hook_dict(self, value)


def _del_backward_hooks(self):
    raise RuntimeError("Deletion of _backwards_hooks not allowed!")


_BACKWARD_HOOKS = property(_get_backward_hooks, _set_backward_hooks, _del_backward_hooks)


def register_hook(self, hook):
    r"""Registers a backward hook.

    The hook will be called every time a gradient with respect to the Tensor is computed. The
    hook should have the following signature::

        hook(grad) -> Tensor or None

    The hook should not modify its argument, but it can optionally return a new gradient which
    will be used in place of :attr:`grad`. This function returns a handle with a method
    ``handle.remove()`` that removes the hook from the module."""
    if has_torch_function_unary(self):
        return handle_torch_function(register_hook, (self,), self, hook)
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._backward_hooks is None:
        self._backward_hooks = OrderedDict()
        if self.grad_fn is not None:
            _register_hook_dict(self, self._backward_hooks)
    handle = _hooks.RemovableHandle(self._backward_hooks)
    self._backward_hooks[handle.id] = hook
    return handle


def install(ns, Tensor):
    Tensor._backward_hooks = _BACKWARD_HOOKS
    Tensor.register_hook = register_hook
    from ._lobpcg import lobpcg
    ns["lobpcg"] = lobpcg
