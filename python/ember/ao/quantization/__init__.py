"""ember.ao.quantization: torch 1.13's eager-mode quantization workflow (observers, fake
quantization, qconfigs, fusion, prepare / convert), on the C++ ember::quantization."""
from .fake_quantize import *  # noqa: F401,F403
from .observer import *  # noqa: F401,F403
from .qconfig import *  # noqa: F401,F403
from .quant_type import *  # noqa: F401,F403


def default_eval_fn(model, calib_data):
    r"""Default evaluation function takes a dataset or a list of input Tensors and run the
    model on the dataset."""
    for data, target in calib_data:
        model(data)


# ---- fusion and stubs (qfuse) ----
from .fuser_method_mappings import *  # noqa: F401,F403,E402
from .fuse_modules import fuse_modules, fuse_modules_qat, fuse_known_modules  # noqa: F401,E402
from .stubs import *  # noqa: F401,F403,E402
# ---- prepare / convert (qprep) ----
from .quantization_mappings import *  # noqa: F401,F403,E402
from .quantize import *  # noqa: F401,F403,E402
