"""ember.optim.Optimizer: ember::optim::Optimizer, bound; param_groups as live dict views."""
from collections.abc import MutableMapping

from .. import _C

Optimizer = _C._optim.Optimizer


class _ParamGroup(MutableMapping):
    """One entry of opt.param_groups: 'params' (the very tensor objects given) and the group's
    options, read from and written to the C++ group."""

    def __init__(self, opt, index):
        self._opt = opt
        self._index = index

    def __getitem__(self, key):
        if key == "params":
            return self._opt._group_params(self._index)
        if key not in self._opt._group_keys(self._index):
            raise KeyError(key)
        return self._opt._group_get(self._index, key)

    def __setitem__(self, key, value):
        if key == "params":
            self._opt._group_set_params(self._index, value)
        else:
            self._opt._group_set(self._index, key, value)

    def __delitem__(self, key):
        self._opt._group_del(self._index, key)

    def __iter__(self):
        return iter(["params"] + self._opt._group_keys(self._index))

    def __len__(self):
        return 1 + len(self._opt._group_keys(self._index))

    def __repr__(self):
        return repr(dict(self.items()))


Optimizer.param_groups = property(
    lambda self: [_ParamGroup(self, i) for i in range(self._group_count())])
