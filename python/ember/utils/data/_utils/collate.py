"""default_collate / default_convert (torch.utils.data._utils.collate): samples to batches.

In a DataLoader worker, a batch of tensors is stacked straight into a shared-memory segment, so
sending it to the main process moves a file descriptor, not the bytes.
"""
import collections
import contextlib
import re
from typing import Callable, Dict, Optional, Tuple, Type, Union

import ember
from ember import _C

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}")


def default_convert(data):
    r"""Converts numpy arrays and scalars to tensors, inside mappings, namedtuples, tuples
    (which become lists) and sequences; leaves everything else as it is."""
    elem_type = type(data)
    if isinstance(data, ember.Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data  # arrays of strings or objects stay arrays
        return ember.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:  # the mapping type cannot be built from a dict
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map: Optional[Dict[Union[Type, Tuple[Type, ...]], Callable]] = None):
    r"""Collates `batch` (a list of samples) by the type of its first element: a function of
    `collate_fn_map` for that type (exact match first, then isinstance in the map's order), else
    mappings key by key, namedtuples and sequences position by position."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        try:
            return elem_type({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                              for key in elem})
        except TypeError:
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        elem_size = len(elem)
        if not all(len(e) == elem_size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    from .worker import get_worker_info
    elem = batch[0]
    if get_worker_info() is not None and not elem.is_meta:
        # Stack into shared memory: the batch then leaves the worker as a file descriptor.
        # (Mismatched sizes get stack's own error.) Subclasses go through ember.stack, so
        # their __torch_function__ sees the call, and the result moves into shared memory.
        if all(type(t) is ember.Tensor for t in batch):
            return _C._stack_shared(batch)
        return ember.stack(batch, 0).share_memory_()
    return ember.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([ember.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return ember.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return ember.tensor(batch, dtype=ember.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return ember.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map: Dict[Union[Type, Tuple[Type, ...]], Callable] = {ember.Tensor: collate_tensor_fn}
with contextlib.suppress(ImportError):
    import numpy as np
    default_collate_fn_map[np.ndarray] = collate_numpy_array_fn
    # np.float64 is also a float: numpy scalars are looked up before Python's numbers.
    default_collate_fn_map[(np.bool_, np.number, np.object_)] = collate_numpy_scalar_fn
default_collate_fn_map[float] = collate_float_fn
default_collate_fn_map[int] = collate_int_fn
default_collate_fn_map[(str, bytes)] = collate_str_fn


def default_collate(batch):
    r"""Puts a list of samples together into a batch, keeping the samples' structure:

    * tensors → stacked on a new first dimension (`ember.stack`)
    * numpy arrays → tensors, stacked; numpy scalars → a tensor
    * float → float64 tensor; int → int64 tensor; str / bytes → left as a list
    * mappings, namedtuples → the same type, collated field by field
    * other sequences → a list (tuples too) of each position's collated values
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
