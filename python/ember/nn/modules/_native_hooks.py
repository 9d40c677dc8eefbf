"""Note [C++ hooks seen from Python]

A module's forward hooks may be registered in C++ (prepare's observer hooks are: they must run
whoever calls the module, Python or a C++ parent). PyTorch code reads them through the module's
`_forward_hooks` / `_forward_pre_hooks` OrderedDicts: torch's prepare leaves
`_observer_forward_hook` (or `_observer_forward_pre_hook`) there, first. So reading those
attributes of a module with C++ hooks gives a view: the C++ hooks first, in their running order
(they run before the Python hooks), prepare's observer hooks as torch's own functions
(`ember.ao.quantization.quantize._observer_forward_hook`), any other C++ hook as a callable that
runs it, then the Python hooks. Deleting an entry (`del`, `pop`, `popitem`, `clear`) removes the
hook, C++ or Python; added entries are Python hooks. The C++ hooks keep firing from C++, and
modules without hooks keep their fast paths: the view exists only while it is read. C++ hooks
are keyed by negative ints, which never collide with the RemovableHandle ids of Python hooks:
an observer hook by its own key (stable), another C++ hook by its id, which a later read of the
dict renews (nn::Module hands its C++ hooks out only by taking and registering them again).
"""
from collections import OrderedDict

from ... import _C

_w = _C._qworkflow


def _native_key(observer_key, hook_id):
    return -int(observer_key) if observer_key else -(2**32 + int(hook_id))


class NativeHooksView(OrderedDict):
    def __init__(self, module, raw, pre):
        super().__init__()
        from ...ao.quantization.quantize import _observer_forward_hook, _observer_forward_pre_hook

        observer_fn = _observer_forward_pre_hook if pre else _observer_forward_hook
        self._module, self._raw, self._pre, self._native = module, raw, pre, {}
        for observer_key, hook_id, fn in _w._native_forward_hooks(module, pre):
            key = _native_key(observer_key, hook_id)
            self._native[key] = (observer_key, hook_id)
            OrderedDict.__setitem__(self, key, observer_fn if fn is None else fn)
        for key, fn in raw.items():
            OrderedDict.__setitem__(self, key, fn)

    def __setitem__(self, key, value):
        if key in self._native:
            raise KeyError(f"{key} is a C++ hook: remove it and register a new hook instead")
        self._raw[key] = value
        self._module._set_front_end_hooks(True)
        OrderedDict.__setitem__(self, key, value)

    def __delitem__(self, key):
        if key in self._native:
            _w._remove_native_hook(self._module, self._pre, *self._native.pop(key))
        else:
            del self._raw[key]
        OrderedDict.__delitem__(self, key)

    _MISSING = object()

    def pop(self, key, default=_MISSING):
        if key not in self:
            if default is NativeHooksView._MISSING:
                raise KeyError(key)
            return default
        value = self[key]
        del self[key]
        return value

    def popitem(self, last=True):
        if not self:
            raise KeyError("dictionary is empty")
        key = next(reversed(self)) if last else next(iter(self))
        return key, self.pop(key)

    def clear(self):
        for key in list(self):
            del self[key]

    def move_to_end(self, key, last=True):
        OrderedDict.move_to_end(self, key, last)
        if key in self._raw:
            self._raw.move_to_end(key, last)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args, **kwargs):
        for key, value in OrderedDict(*args, **kwargs).items():
            self[key] = value
