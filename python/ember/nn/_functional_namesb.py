"""torch.nn.functional names PyTorch writes in Python over other functions: gumbel_softmax,
_threshold (threshold's own name), and the fractional max pools (over the fractional_max_pool2d / 3d op rows)."""
import warnings

from .. import _C
from ..overrides import handle_torch_function, has_torch_function_unary, has_torch_function_variadic
from ._functional_nnlayers import threshold as _threshold

__all__ = ["gumbel_softmax", "_threshold", "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d", "fractional_max_pool3d_with_indices"]


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples from the Gumbel-Softmax distribution; hard=True gives one-hot samples whose
    gradient is the soft sample's (straight-through)."""
    if has_torch_function_unary(logits):
        return handle_torch_function(gumbel_softmax, (logits,), logits, tau=tau, hard=hard, eps=eps, dim=dim)
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.")
    fn = _C._op_functions
    gumbels = -fn["empty_like"](logits, memory_format=_C.contiguous_format).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = fn["zeros_like"](logits, memory_format=_C.contiguous_format).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft


def _ntuple(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


def _fractional(n, input, kernel_size, output_size, output_ratio, _random_samples):
    if output_size is None and output_ratio is None:
        raise ValueError(f"fractional_max_pool{n}d requires specifying either an output_size or an output_ratio")
    if output_size is None:
        ratio = _ntuple(output_ratio, n)
        output_size = [int(input.size(-n + i) * ratio[i]) for i in range(n)]
    if _random_samples is None:
        n_batch = 1 if input.dim() == n + 1 else input.size(0)
        _random_samples = _C._op_functions["rand"](n_batch, input.size(-n - 1), n, dtype=input.dtype,
                                                    device=input.device)
    op = _C._op_functions[f"fractional_max_pool{n}d"]
    return op(input, list(_ntuple(kernel_size, n)), list(_ntuple(output_size, n)), _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """2-d fractional max pooling (pseudo-random window offsets): (output, indices)."""
    if has_torch_function_variadic(input, _random_samples):
        return handle_torch_function(fractional_max_pool2d_with_indices, (input, _random_samples), input,
                                     kernel_size, output_size=output_size, output_ratio=output_ratio,
                                     return_indices=return_indices, _random_samples=_random_samples)
    return _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """3-d fractional max pooling: (output, indices)."""
    if has_torch_function_variadic(input, _random_samples):
        return handle_torch_function(fractional_max_pool3d_with_indices, (input, _random_samples), input,
                                     kernel_size, output_size=output_size, output_ratio=output_ratio,
                                     return_indices=return_indices, _random_samples=_random_samples)
    return _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """2-d fractional max pooling; the indices too when return_indices is True."""
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """3-d fractional max pooling; the indices too when return_indices is True."""
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]
