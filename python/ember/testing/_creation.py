"""ember.testing.make_tensor (torch.testing.make_tensor of torch 1.13): a tensor of the given
shape filled with values drawn uniformly from [low, high) (integers from [low, high), bools
from {False, True})."""
import collections.abc
import math

import ember

__all__ = ["make_tensor"]

_INTEGRAL = (ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64)
_FLOATING = (ember.float16, ember.bfloat16, ember.float32, ember.float64)
_COMPLEX = tuple(d for d in (getattr(ember, "complex32", None), ember.complex64,
                             ember.complex128) if d is not None)
_COMPLEX_TO_REAL = {ember.complex64: ember.float32, ember.complex128: ember.float64}
if hasattr(ember, "complex32"):
    _COMPLEX_TO_REAL[ember.complex32] = ember.float16


def _bounds(low, high, lowest, highest, default_low, default_high, integral):
    low = default_low if low is None else low
    high = default_high if high is None else high
    if low != low or high != high:
        raise ValueError("make_tensor: one of low or high was NaN!")
    if low > high:
        raise ValueError("make_tensor: low must be weakly less than high!")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    return (math.floor(low), math.ceil(high)) if integral else (low, high)


def _uniform(shape, dtype, device, low, high):
    r = ember.rand(shape, device=device, dtype=dtype)
    return high * r + low * (1 - r)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False):
    """A random tensor for tests. Defaults: floats and complex parts in [-9, 9), integers in
    [-9, 10) ([0, 10) for uint8); `low` / `high` are clamped to the dtype's range.
    `noncontiguous` gives a non-contiguous tensor of the same values' kind, `exclude_zero`
    replaces zeros by the dtype's smallest normal (1 for integers and bools)."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if requires_grad and dtype not in _FLOATING and dtype not in _COMPLEX:
        raise ValueError("make_tensor: requires_grad must be False for integral dtype")
    if dtype is ember.bool:
        result = ember.randint(0, 2, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = ember.iinfo(dtype)
        low, high = _bounds(low, high, info.min, info.max, 0 if dtype is ember.uint8 else -9,
                            10, True)
        result = ember.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING:
        info = ember.finfo(dtype)
        low, high = _bounds(low, high, info.min, info.max, -9, 9, False)
        result = _uniform(shape, dtype, device, low, high)
    elif dtype in _COMPLEX:
        real = _COMPLEX_TO_REAL[dtype]
        info = ember.finfo(real)
        low, high = _bounds(low, high, info.min, info.max, -9, 9, False)
        result = ember.complex(_uniform(shape, real, device, low, high),
                               _uniform(shape, real, device, low, high))
    else:
        raise TypeError("The requested dtype '{}' is not supported by "
                        "ember.testing.make_tensor().".format(dtype))
    if noncontiguous and result.numel() > 1:
        result = ember.repeat_interleave(result, 2, dim=-1)[..., ::2]
    if exclude_zero:
        if dtype in _INTEGRAL or dtype is ember.bool:
            fill = ember.tensor(1, device=device, dtype=dtype)
        elif dtype in _FLOATING:
            fill = ember.tensor(ember.finfo(dtype).tiny, device=device, dtype=dtype)
        else:
            tiny = ember.finfo(_COMPLEX_TO_REAL[dtype]).tiny
            fill = ember.tensor(complex(tiny, tiny), device=device, dtype=dtype)
        result[result == 0] = fill
    if dtype in _FLOATING or dtype in _COMPLEX:
        result.requires_grad = requires_grad
    return result
