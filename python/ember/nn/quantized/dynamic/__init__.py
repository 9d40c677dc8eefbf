"""ember.nn.quantized.dynamic: re-exports ember.ao.nn.quantized.dynamic."""
from ....ao.nn.quantized.dynamic import *  # noqa: F401,F403
from ....ao.nn.quantized.dynamic import __all__  # noqa: F401
from ....ao.nn.quantized.dynamic import modules  # noqa: F401
