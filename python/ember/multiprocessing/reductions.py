"""The ForkingPickler reducers that send tensors through shared memory (torch.multiprocessing's
reductions, with the file_descriptor strategy).

A tensor is sent as (its class, a DupFd of its storage's segment, the storage's size in bytes,
dtype, sizes, strides, offset, requires_grad). The receiver maps the segment and keeps the
tensor it built in a cache keyed by the segment's identity (device, inode), so the views of one
storage sent together (or sent twice while the first copy lives) share memory on arrival too.
"""
import os
import threading
import weakref
from multiprocessing.reduction import DupFd, ForkingPickler

import ember
from ember import _C

__all__ = ["init_reductions", "reduce_tensor", "rebuild_tensor_fd"]

_cache_lock = threading.Lock()
_shared_cache = weakref.WeakValueDictionary()  # (st_dev, st_ino) -> a tensor over that segment


def _dtype_name(dtype):
    return str(dtype).rpartition(".")[2]


def rebuild_tensor_fd(cls, df, nbytes, dtype_name, size, stride, offset, requires_grad):
    fd = df.detach()
    st = os.fstat(fd)
    key = (st.st_dev, st.st_ino)
    dtype = getattr(ember, dtype_name)
    with _cache_lock:
        base = _shared_cache.get(key)
        if base is not None:
            os.close(fd)  # the segment is mapped here already
        else:
            base = _C._new_shared_fd_cpu(fd, nbytes)
            _shared_cache[key] = base
    t = _C._tensor_over_storage(base, dtype, list(size), list(stride), offset)
    if cls is ember.nn.Parameter:
        return ember.nn.Parameter(t, requires_grad=requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def reduce_tensor(tensor):
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
            "does not support crossing process boundaries.  If you just want to transfer the "
            "data, call detach() on the tensor before serializing (e.g., putting it on the queue).")
    if tensor.is_meta or getattr(tensor, "is_quantized", False):
        # Nothing to share (meta) or more than bytes to send (quantizers): ordinary pickling.
        return tensor.__reduce_ex__(4)
    fd, nbytes = _C._share_fd_cpu(tensor)
    return (rebuild_tensor_fd,
            (type(tensor), DupFd(fd), nbytes, _dtype_name(tensor.dtype), tuple(tensor.size()),
             tuple(tensor.stride()), tensor.storage_offset(), tensor.requires_grad))


def init_reductions():
    """Registers reduce_tensor for ember.Tensor and ember.nn.Parameter (exact classes, as
    PyTorch: subclasses pickle through their own __reduce_ex__)."""
    ForkingPickler.register(ember.Tensor, reduce_tensor)
    ForkingPickler.register(ember.nn.Parameter, reduce_tensor)
