"""ember.ao: torch.ao's architecture-optimisation namespace (the quantized modules: ao.nn)."""
from . import nn  # noqa: F401
