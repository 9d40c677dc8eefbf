"""Tensor creation: ember.tensor, as_tensor, from_numpy and from_dlpack come from ember._C; the functions below exist only where PyTorch's Python signature has a form the op
table's binding cannot express (the op table has arange(start, end, step), eye(n, m) and
randint(low, high, size); PyTorch also takes arange(end), eye(n), randint(high, size)), or where
PyTorch has a shorthand the table lacks (rand_like, randn_like).
"""
from ._C import tensor, as_tensor, from_numpy, from_dlpack  # noqa: F401
from . import _C

_op = _C._op_functions

__all__ = [
    "tensor", "as_tensor", "from_numpy", "from_dlpack",
    "arange", "eye", "randint", "rand_like", "randn_like",
]


def arange(start=None, end=None, step=1, **kwargs):
    """arange(end) or arange(start, end, step=1), with dtype=, device=, requires_grad=."""
    if end is None:
        start, end = 0, start
    elif start is None:
        start = 0
    return _op["arange"](start, end, step, **kwargs)


def eye(n, m=None, **kwargs):
    """The n x n (or n x m) identity."""
    return _op["eye"](n, n if m is None else m, **kwargs)


def randint(*args, size=None, **kwargs):
    """randint(high, size) or randint(low, high, size): int64 values in [low, high)."""
    if size is None:
        if not args:
            raise TypeError("randint() missing required argument 'size'")
        args, size = args[:-1], args[-1]
    if len(args) == 1 and "high" not in kwargs:
        args = (0, args[0])
    elif not args and "low" not in kwargs:
        kwargs["low"] = 0
    return _op["randint"](*args, size=size, **kwargs)


def _random_like(fill, input, kwargs):
    requires_grad = kwargs.pop("requires_grad", False)
    out = fill(_op["empty_like"](input, **kwargs))
    return out.requires_grad_() if requires_grad else out


def rand_like(input, **kwargs):
    """Uniform [0, 1) values in input's shape (and dtype / device unless given)."""
    return _random_like(lambda t: t.uniform_(), input, kwargs)


def randn_like(input, **kwargs):
    """Standard normal values in input's shape (and dtype / device unless given)."""
    return _random_like(lambda t: t.normal_(), input, kwargs)
