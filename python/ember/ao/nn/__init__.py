"""ember.ao.nn: quantized, intrinsic (fused) and QAT modules."""
from . import quantized, intrinsic, qat  # noqa: F401
