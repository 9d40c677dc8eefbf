"""ember.nn: PyTorch's torch.nn on ember's C++ nn::Module (the classes are the C++ ones, bound)."""
from .parameter import Parameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from . import functional, init  # noqa: F401
from .modules._namesb import install_all as _namesb_install  # noqa: E402  (lazy modules, ...)
_namesb_install()
from . import utils  # noqa: F401
from . import quantized, intrinsic, qat  # noqa: F401,E402  (ember.ao.nn's modules)

from .. import _C as _C_

_C_._nn._install_gc_support(Module)  # every C++ module class is bound by now
del _C_
