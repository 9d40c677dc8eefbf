"""ember.ao.nn.intrinsic: fused modules (torch.ao.nn.intrinsic). The float ones are here, the
quantized ones in .quantized."""
from .modules import *  # noqa: F401,F403
from .modules import _FusedModule, __all__  # noqa: F401
from . import modules, quantized, qat  # noqa: F401
