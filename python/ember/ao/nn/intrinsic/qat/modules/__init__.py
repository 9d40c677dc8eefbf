"""torch.nn.intrinsic.qat.modules."""
from .linear_relu import LinearReLU  # noqa: F401
from .linear_fused import LinearBn1d  # noqa: F401
from .conv_fused import (  # noqa: F401
    ConvBn1d, ConvBn2d, ConvBn3d, ConvBnReLU1d, ConvBnReLU2d, ConvBnReLU3d, ConvReLU1d,
    ConvReLU2d, ConvReLU3d, update_bn_stats, freeze_bn_stats,
)

__all__ = ["LinearReLU", "LinearBn1d", "ConvReLU1d", "ConvReLU2d", "ConvReLU3d", "ConvBn1d",
           "ConvBn2d", "ConvBn3d", "ConvBnReLU1d", "ConvBnReLU2d", "ConvBnReLU3d",
           "update_bn_stats", "freeze_bn_stats"]
