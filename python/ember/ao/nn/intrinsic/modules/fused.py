"""torch.ao.nn.intrinsic.modules.fused: the float fused modules, C++ ember::nn::intrinsic
(bound in python/csrc/quantization_fuse.cpp). Each is a Sequential of the modules it fuses; the
constructors check the exact classes with PyTorch's AssertionError."""
from ..... import _C

_nni = _C._nni
_FusedModule = _nni._FusedModule
ConvReLU1d = _nni.ConvReLU1d
ConvReLU2d = _nni.ConvReLU2d
ConvReLU3d = _nni.ConvReLU3d
LinearReLU = _nni.LinearReLU
ConvBn1d = _nni.ConvBn1d
ConvBn2d = _nni.ConvBn2d
ConvBn3d = _nni.ConvBn3d
ConvBnReLU1d = _nni.ConvBnReLU1d
ConvBnReLU2d = _nni.ConvBnReLU2d
ConvBnReLU3d = _nni.ConvBnReLU3d
BNReLU2d = _nni.BNReLU2d
BNReLU3d = _nni.BNReLU3d
LinearBn1d = _nni.LinearBn1d

__all__ = ["ConvReLU1d", "ConvReLU2d", "ConvReLU3d", "LinearReLU", "ConvBn1d", "ConvBn2d", "ConvBn3d",
           "ConvBnReLU1d", "ConvBnReLU2d", "ConvBnReLU3d", "BNReLU2d", "BNReLU3d", "LinearBn1d"]

for _name in __all__ + ["_FusedModule"]:
    # type(m) prints as PyTorch's <class '...ao.nn.intrinsic.modules.fused.ConvReLU2d'>, and
    # pickle finds the class here.
    globals()[_name].__module__ = __name__

# isinstance(m, _FusedModule) as PyTorch answers it: also true for the QAT fused modules
# (ember.nn.intrinsic.qat), which derive from the float conv / linear classes here.
_is_fused_module = _nni._is_fused_module
