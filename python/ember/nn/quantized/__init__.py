"""ember.nn.quantized: torch.nn.quantized's names, re-exported from ember.ao.nn.quantized (the
same classes), as PyTorch 1.13 does."""
from ...ao.nn.quantized import *  # noqa: F401,F403
from ...ao.nn.quantized import __all__  # noqa: F401
from . import dynamic  # noqa: F401
from . import functional  # noqa: F401
from . import modules  # noqa: F401
