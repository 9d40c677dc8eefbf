"""ember.nn.intrinsic: re-exports ember.ao.nn.intrinsic (the same classes), as torch.nn.intrinsic
re-exports torch.ao.nn.intrinsic. The quantized ones are in .quantized."""
from ...ao.nn.intrinsic import *  # noqa: F401,F403
from ...ao.nn.intrinsic import _FusedModule, __all__  # noqa: F401
from . import quantized, qat  # noqa: F401
