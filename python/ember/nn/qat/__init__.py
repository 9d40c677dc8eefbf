"""ember.nn.qat: re-exports ember.ao.nn.qat (the same classes), as torch.nn.qat does."""
from ...ao.nn.qat import *  # noqa: F401,F403
from ...ao.nn.qat import __all__  # noqa: F401
