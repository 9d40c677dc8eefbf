"""ember.ao.nn: quantized (and intrinsic quantized) modules."""
from . import quantized, intrinsic  # noqa: F401
