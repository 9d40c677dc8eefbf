"""ember.ao.nn.intrinsic.quantized.dynamic: the dynamic quantized fused modules (torch 1.13's
torch.nn.intrinsic.quantized.dynamic)."""
from . import modules  # noqa: F401
from .modules import LinearReLU  # noqa: F401

__all__ = ["LinearReLU"]
