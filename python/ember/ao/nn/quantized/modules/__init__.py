"""ember.ao.nn.quantized.modules: torch 1.13's package of the quantized modules (the same classes
as ember.ao.nn.quantized)."""
from .. import *  # noqa: F401,F403
from .. import __all__  # noqa: F401
from . import embedding_ops  # noqa: F401
