"""ember.nn.intrinsic: fused modules. The quantized ones are in .quantized."""
from . import quantized  # noqa: F401
