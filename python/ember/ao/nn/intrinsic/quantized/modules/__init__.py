"""ember.ao.nn.intrinsic.quantized.modules: the fused quantized modules (the classes of
ember.ao.nn.intrinsic.quantized)."""
from ...quantized import (  # noqa: F401
    BNReLU2d, BNReLU3d, ConvReLU1d, ConvReLU2d, ConvReLU3d, LinearReLU,
)

__all__ = ["LinearReLU", "ConvReLU1d", "ConvReLU2d", "ConvReLU3d", "BNReLU2d", "BNReLU3d"]
