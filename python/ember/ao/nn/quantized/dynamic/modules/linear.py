"""ember.ao.nn.quantized.dynamic.modules.linear: the dynamic quantized Linear."""
from ..._modules import DynamicLinear as Linear  # noqa: F401

__all__ = ["Linear"]
