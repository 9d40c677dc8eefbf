"""ember.nn.intrinsic.quantized: re-exports ember.ao.nn.intrinsic.quantized."""
from ....ao.nn.intrinsic.quantized import *  # noqa: F401,F403
from ....ao.nn.intrinsic.quantized import __all__  # noqa: F401
from ....ao.nn.intrinsic.quantized import dynamic, modules  # noqa: F401,E402
