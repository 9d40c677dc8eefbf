"""torch.nn.utils.weight_norm / remove_weight_norm: C++ (ember/nn/utils/weight_norm.h); the
weight is recomputed by a forward pre-hook of the C++ module from `weight_g` and `weight_v`."""
from ... import _C

__all__ = ['weight_norm', 'remove_weight_norm']


def weight_norm(module, name='weight', dim=0):
    r"""Applies weight normalization to a parameter in the given module:
    ``w = g * v / ||v||``, the norm over every dim but ``dim`` (``dim=None``: the whole tensor).
    Returns the module."""
    return _C._nn._weight_norm(module, name, dim)


def remove_weight_norm(module, name='weight'):
    r"""Removes the weight normalization reparameterization from a module."""
    return _C._nn._remove_weight_norm(module, name)
