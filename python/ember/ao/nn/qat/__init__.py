"""ember.ao.nn.qat: Conv1d, Conv2d and Linear with a weight fake-quantizer, for
quantization-aware training (torch.ao.nn.qat)."""
from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401
from . import modules  # noqa: F401
