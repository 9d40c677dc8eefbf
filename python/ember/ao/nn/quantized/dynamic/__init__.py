"""ember.ao.nn.quantized.dynamic: dynamically quantized modules (float in, float out)."""
from .._modules import DynamicLinear as Linear  # noqa: F401

__all__ = ["Linear"]
