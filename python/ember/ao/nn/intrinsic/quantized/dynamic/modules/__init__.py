"""ember.ao.nn.intrinsic.quantized.dynamic.modules: the dynamic quantized fused modules."""
from . import linear_relu  # noqa: F401
from .linear_relu import LinearReLU  # noqa: F401

__all__ = ["LinearReLU"]
