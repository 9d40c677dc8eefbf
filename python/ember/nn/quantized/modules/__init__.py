"""ember.nn.quantized.modules: re-exports ember.ao.nn.quantized.modules, as torch 1.13 does."""
from ....ao.nn.quantized.modules import *  # noqa: F401,F403
from ....ao.nn.quantized.modules import __all__  # noqa: F401
from . import embedding_ops  # noqa: F401
