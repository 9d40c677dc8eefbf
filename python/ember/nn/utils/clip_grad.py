"""torch.nn.utils.clip_grad_norm_ / clip_grad_value_ over ember::nn::utils (C++)."""
import warnings

from ... import _C

_F = _C._nn

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_"]


def _as_list(parameters):
    from ... import Tensor
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clips the gradients' joint norm to max_norm in place; returns the total norm. `foreach`
    is accepted for PyTorch 2.x's signature (ember has one implementation)."""
    return _F.clip_grad_norm_(_as_list(parameters), float(max_norm), float(norm_type),
                              error_if_nonfinite)


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    warnings.warn("ember.nn.utils.clip_grad_norm is now deprecated in favor of "
                  "ember.nn.utils.clip_grad_norm_.", stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient to [-clip_value, clip_value] in place."""
    _F.clip_grad_value_(_as_list(parameters), float(clip_value))
