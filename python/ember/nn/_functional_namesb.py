"""torch.nn.functional names PyTorch writes in Python over other functions: gumbel_softmax and
_threshold (threshold's own name)."""
import warnings

from .. import _C
from ..overrides import handle_torch_function, has_torch_function_unary
from ._functional_nnlayers import threshold as _threshold

__all__ = ["gumbel_softmax", "_threshold"]


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

