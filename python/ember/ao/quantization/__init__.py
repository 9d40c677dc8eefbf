"""ember.ao.quantization: torch 1.13's eager-mode quantization workflow (observers, fake
quantization, qconfigs, fusion, prepare / convert), on the C++ ember::quantization."""
from .fake_quantize import *  # noqa: F401,F403
from .observer import *  # noqa: F401,F403
from .qconfig import *  # noqa: F401,F403
# ---- fusion and stubs (qfuse) ----
from .fuser_method_mappings import *  # noqa: F401,F403,E402
from .fuse_modules import fuse_modules, fuse_modules_qat, fuse_known_modules  # noqa: F401,E402
from .stubs import *  # noqa: F401,F403,E402
# ---- prepare / convert (qprep) ----
from .quantization_mappings import *  # noqa: F401,F403,E402
from .quantize import *  # noqa: F401,F403,E402
