"""ember.return_types: the named-tuple results of ops with named outputs (torch.return_types).

`ember.max(t, 1)` returns an `ember.return_types.max` with fields `values` and `indices`; an
out= call returns `ember.return_types.max_out`. The types are made in C++ from the op table's
schemas (Note [Named results] in python/csrc/ops.cpp); this module names them so they pickle.
"""
from ._C import _return_types

globals().update(_return_types)
__all__ = sorted(_return_types)
