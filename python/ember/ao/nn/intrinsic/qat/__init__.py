"""ember.ao.nn.intrinsic.qat: the fused modules for quantization-aware training (PyTorch 1.13
keeps them in torch.nn.intrinsic.qat; ember.nn.intrinsic.qat re-exports these)."""
from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401
from . import modules  # noqa: F401
