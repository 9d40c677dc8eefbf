"""torch.nn.utils.spectral_norm / remove_spectral_norm: C++ (ember/nn/utils/weight_norm.h);
`weight_orig` is the parameter, `weight_u` / `weight_v` the power-iteration buffers, and a
forward pre-hook of the C++ module recomputes `weight` (one power-iteration step per training
forward)."""
from ... import _C

__all__ = ['spectral_norm', 'remove_spectral_norm']


def spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None):
    r"""Applies spectral normalization to a parameter in the given module. ``dim`` defaults to
    1 for ConvTranspose1d/2d/3d, else 0. Returns the module."""
    return _C._nn._spectral_norm(module, name, n_power_iterations, eps, dim)


def remove_spectral_norm(module, name='weight'):
    r"""Removes the spectral normalization reparameterization from a module."""
    return _C._nn._remove_spectral_norm(module, name)
