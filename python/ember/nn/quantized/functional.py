"""ember.nn.quantized.functional: torch.nn.quantized.functional's names, re-exported from
ember.ao.nn.quantized.functional (the same functions), as PyTorch 1.13 does."""
from ...ao.nn.quantized.functional import *  # noqa: F401,F403
from ...ao.nn.quantized.functional import __all__  # noqa: F401
