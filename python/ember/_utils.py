"""The rebuild functions that pickled tensors name (PyTorch's torch._utils), and their helpers.

Note [Tensor pickling and deep copies]
A tensor pickles as PyTorch's does: Tensor.__reduce_ex__ gives `_rebuild_tensor_v2(storage,
storage_offset, size, stride, requires_grad, backward_hooks)`, where `storage` is a
TypedStorage over the tensor's UntypedStorage (ember/storage.py); meta tensors give
`_rebuild_meta_tensor_no_storage`, wrapper subclasses `_rebuild_wrapper_subclass`, Parameters
`_rebuild_parameter`, and a subclass wraps any of them in `_rebuild_from_type_v2(func, type,
args, state)` with its __dict__ (and slots) as the state. The storage is the unit of sharing:
one Python storage object per C++ storage while it lives, so pickle's memo writes it once and
two views of one tensor come back as two views of one new storage; deepcopy keys its storage
copies by `_cdata` in memo["ember"], so the same holds within one deepcopy. A storage itself
pickles as its bytes (`storage._rebuild_untyped_storage`): the checkpoint format (ember.save /
ember.load) writes the same storages as records of a zip instead and reuses these rebuild
functions, so pickle, deepcopy and checkpoints all build tensors here. Quantized tensors will
add `_rebuild_qtensor` (the storage plus quantizer parameters) beside `_rebuild_tensor_v2`.
"""
import copyreg
import pickle

from . import _C


def _rebuild_tensor(storage, storage_offset, size, stride):
    """A tensor of storage.dtype viewing `storage` (a TypedStorage) with the given geometry."""
    t = _C._op_functions["empty"](0, dtype=storage.dtype, device=storage.device)
    return t.set_(storage.untyped(), storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    tensor = _rebuild_tensor(storage, storage_offset, size, stride)
    tensor.requires_grad = requires_grad
    # (an empty OrderedDict: PyTorch's Note [Don't serialize hooks])
    tensor._backward_hooks = backward_hooks
    return tensor


def _rebuild_qtensor(storage, storage_offset, size, stride, quantizer_params, requires_grad,
                     backward_hooks):
    """A quantized tensor over `storage` (PyTorch's torch._utils._rebuild_qtensor, same arguments:
    quantizer_params is (per_tensor_affine, scale, zero_point) or
    (per_channel_affine, scales, zero_points, axis))."""
    import ember
    qscheme = quantizer_params[0]
    if qscheme == ember.per_tensor_affine:
        _, scale, zero_point = quantizer_params
        tensor = ember._empty_affine_quantized(size, scale=scale, zero_point=zero_point,
                                               dtype=storage.dtype, device=storage.device)
    elif qscheme in (ember.per_channel_affine, ember.per_channel_affine_float_qparams):
        _, scales, zero_points, axis = quantizer_params
        if type(scales) is list and type(zero_points) is list:
            scales = ember.tensor(scales, dtype=ember.double, device=storage.device)
            zero_points = ember.tensor(zero_points, dtype=ember.long, device=storage.device)
        tensor = ember._empty_per_channel_affine_quantized(
            size, scales=scales, zero_points=zero_points, axis=axis, dtype=storage.dtype,
            device=storage.device)
    else:
        raise RuntimeError("Can't deserialize quantized tensor with qscheme {}".format(qscheme))
    if tensor.dtype in (ember.quint4x2, ember.quint2x4):
        # Sub-byte codes: the storage holds fewer bytes than the tensor has elements, so the
        # packed bytes are copied into the new tensor's own storage (Note [Sub-byte quantized
        # dtypes]).
        dst = ember.tensor([], dtype=ember.uint8).set_(tensor.untyped_storage())
        src = ember.tensor([], dtype=ember.uint8).set_(storage.untyped())
        n = min(dst.numel(), src.numel() - storage_offset)
        dst[:n].copy_(src[storage_offset:storage_offset + n])
    else:
        tensor.set_(storage, storage_offset, size, stride)
    tensor.requires_grad = requires_grad
    tensor._backward_hooks = backward_hooks
    return tensor


def _qtensor_params(t):
    """The quantizer_params of _rebuild_qtensor for a quantized tensor."""
    import ember
    if t.qscheme() == ember.per_tensor_affine:
        return (ember.per_tensor_affine, t.q_scale(), t.q_zero_point())
    if t.qscheme() in (ember.per_channel_affine, ember.per_channel_affine_float_qparams):
        return (ember.per_channel_affine, t.q_per_channel_scales(), t.q_per_channel_zero_points(),
                t.q_per_channel_axis())
    raise RuntimeError(f"Serialization is not supported for tensors of type {t.qscheme()}")


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    return _C._op_functions["empty_strided"](size, stride, dtype=dtype, device="meta",
                                             requires_grad=requires_grad)


def _rebuild_wrapper_subclass(cls, dtype, size, stride, storage_offset, layout, device,
                              requires_grad):
    from ._tensor import Tensor
    return Tensor._make_wrapper_subclass(cls, size, strides=stride, storage_offset=storage_offset,
                                         layout=layout, device=device, requires_grad=requires_grad)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from .nn.parameter import Parameter
    param = Parameter(data, requires_grad)
    param._backward_hooks = backward_hooks
    return param


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    return _set_obj_state(param, state)


def _get_obj_state(obj):
    """A subclass's state for pickling: __getstate__'s, else its __dict__ (with slots: both)."""
    getstate_fn = getattr(obj, "__getstate__", None)
    if getstate_fn:
        return getstate_fn()
    state = _dict_without_hooks(obj)
    slots_to_save = copyreg._slotnames(obj.__class__)
    if slots_to_save:
        return (state, {name: getattr(obj, name) for name in slots_to_save if hasattr(obj, name)})
    return state


def _dict_without_hooks(obj):
    """obj.__dict__ without Tensor._backward_hooks' entry: hooks are not copied or serialized
    (PyTorch's Note [Don't serialize hooks])."""
    from ._names8 import STATE_KEY
    d = obj.__dict__
    return {k: v for k, v in d.items() if k != STATE_KEY} if STATE_KEY in d else d


def _set_obj_state(obj, state):
    """Restores a subclass's state: a __dict__, or (__dict__, slots), as PyTorch 2.x does."""
    if isinstance(state, tuple):
        if not len(state) == 2:
            raise RuntimeError(f"Invalid serialized state: {state}")
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    if dict_state:
        for k, v in dict_state.items():
            setattr(obj, k, v)
    if slots_state:
        for k, v in slots_state.items():
            setattr(obj, k, v)
    return obj


# dtypes and devices pickle by name, as PyTorch's (ember.float32 comes back as the same object).
def _rebuild_dtype(name):
    return getattr(_C, name)


def _picklable(obj):
    try:
        pickle.dumps(obj)
        return True
    except Exception:  # noqa: BLE001  (pybind11 raises TypeError or RuntimeError)
        return False


if not _picklable(_C.float32):
    _C.dtype.__reduce__ = lambda self: (_rebuild_dtype, (str(self).rsplit(".", 1)[-1],))
if not _picklable(_C.device("cpu")):
    _C.device.__reduce__ = lambda self: (_C.device, (str(self),))
