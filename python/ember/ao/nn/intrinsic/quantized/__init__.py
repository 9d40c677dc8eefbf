"""ember.ao.nn.intrinsic.quantized: the fused quantized modules (C++ ember::nn::quantized),
with from_float (python/ember/ao/nn/quantized/_modules.py)."""
from ...quantized._modules import ConvReLU1d, ConvReLU2d, LinearReLU, BNReLU2d  # noqa: F401
from ...quantized._modules_more import BNReLU3d, ConvReLU3d  # noqa: F401

__all__ = ["LinearReLU", "ConvReLU1d", "ConvReLU2d", "ConvReLU3d", "BNReLU2d", "BNReLU3d"]
from . import dynamic, modules  # noqa: F401,E402
