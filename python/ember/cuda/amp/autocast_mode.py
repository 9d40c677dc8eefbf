"""ember.cuda.amp.autocast and the custom_fwd / custom_bwd decorators of custom autograd
Functions, with torch.cuda.amp's behaviour: they follow CUDA autocast's state
(ember.is_autocast_enabled), which is never on in ember, so cast_inputs casts nothing."""
import collections
import functools

import ember
from ember.amp.autocast_mode import autocast as _autocast

try:
    import numpy as np
    HAS_NUMPY = True
except ModuleNotFoundError:
    np = None
    HAS_NUMPY = False


class autocast(_autocast):
    r"""See :class:`ember.autocast`. ``ember.cuda.amp.autocast(args...)`` is equivalent to
    ``ember.autocast("cuda", args...)`` (which warns and is disabled: ember has no CUDA device)."""

    def __init__(self, enabled=True, dtype=ember.float16, cache_enabled=True):
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)

    def __enter__(self):
        return super().__enter__()

    def __exit__(self, exc_type, exc_val, exc_tb):
        return super().__exit__(exc_type, exc_val, exc_tb)

    def __call__(self, func):
        return super().__call__(func)


def _cast(value, dtype):
    """Floating CUDA tensors (not float64) in `value`, nested containers included, cast to dtype;
    strings and numpy arrays pass through."""
    if isinstance(value, ember.Tensor):
        is_eligible = value.is_floating_point() and value.is_cuda and value.dtype is not ember.float64
        return value.to(dtype) if is_eligible else value
    elif isinstance(value, (str, bytes)):
        return value
    elif HAS_NUMPY and isinstance(value, np.ndarray):
        return value
    elif isinstance(value, collections.abc.Mapping):
        return {_cast(k, dtype): _cast(v, dtype) for k, v in value.items()}
    elif isinstance(value, collections.abc.Iterable):
        iterable = map(lambda v: _cast(v, dtype), value)
        if isinstance(value, (list, tuple)):
            return type(value)(iterable)
        return iterable
    return value


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Decorator for the ``forward`` of a custom autograd Function: records whether CUDA autocast
    was on (``ctx._fwd_used_autocast``); with ``cast_inputs``, inside an autocast-enabled region,
    casts floating CUDA tensor arguments to it and runs ``forward`` with autocast disabled.
    Usable as ``@custom_fwd`` and ``@custom_fwd(cast_inputs=ember.float32)``."""
    if fwd is None:
        return functools.partial(custom_fwd, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        if cast_inputs is None:
            args[0]._fwd_used_autocast = ember.is_autocast_enabled()
            return fwd(*args, **kwargs)
        autocast_context = ember.is_autocast_enabled()
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(enabled=False):
                return fwd(*_cast(args, cast_inputs), **_cast(kwargs, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd):
    """Decorator for the ``backward`` of a custom autograd Function: runs it with the autocast
    state its ``forward`` (decorated with custom_fwd) saw."""
    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(args[0]._fwd_used_autocast):
            return bwd(*args, **kwargs)
    return decorate_bwd
