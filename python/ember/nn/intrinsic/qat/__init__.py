"""ember.nn.intrinsic.qat: re-exports ember.ao.nn.intrinsic.qat (the same classes)."""
from ....ao.nn.intrinsic.qat import *  # noqa: F401,F403
from ....ao.nn.intrinsic.qat import __all__  # noqa: F401
from ....ao.nn.intrinsic.qat import modules  # noqa: F401,E402
