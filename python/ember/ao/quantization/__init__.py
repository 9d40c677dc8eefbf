"""ember.ao.quantization: torch 1.13's eager-mode quantization workflow (observers, fake
quantization, qconfigs, fusion, prepare / convert), on the C++ ember::quantization."""
from .fake_quantize import *  # noqa: F401,F403
from .fuse_modules import fuse_modules, fuse_modules_qat  # noqa: F401
from .fuser_method_mappings import *  # noqa: F401,F403
from .observer import *  # noqa: F401,F403
from .qconfig import *  # noqa: F401,F403
from .quantization_mappings import *  # noqa: F401,F403
from .quantize import *  # noqa: F401,F403
from .stubs import *  # noqa: F401,F403
