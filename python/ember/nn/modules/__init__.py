"""The module classes: nn.Module (ember::nn::Module with a trampoline for Python subclasses), and
the C++ layers, losses and containers, all bound from ember._C._nn."""
from ... import _C
from .module import Module  # noqa: F401
from . import container as _container  # noqa: F401  (Sequential's +, *, ModuleList's +)

_nn = _C._nn
Sequential = _nn.Sequential
ModuleList = _nn.ModuleList
ModuleDict = _nn.ModuleDict
Identity = _nn.Identity
Linear = _nn.Linear
Bilinear = _nn.Bilinear
ReLU = _nn.ReLU
ReLU6 = _nn.ReLU6
Hardtanh = _nn.Hardtanh
Hardswish = _nn.Hardswish
Sigmoid = _nn.Sigmoid
Tanh = _nn.Tanh
GELU = _nn.GELU
SiLU = _nn.SiLU
Softmax = _nn.Softmax
LogSoftmax = _nn.LogSoftmax
Flatten = _nn.Flatten
Dropout = _nn.Dropout
Embedding = _nn.Embedding
LayerNorm = _nn.LayerNorm
MSELoss = _nn.MSELoss
L1Loss = _nn.L1Loss
NLLLoss = _nn.NLLLoss
CrossEntropyLoss = _nn.CrossEntropyLoss
BCEWithLogitsLoss = _nn.BCEWithLogitsLoss
from .conv import *  # noqa: E402,F401,F403  (issue 6: conv / norm / pool layers)
from . import conv as _conv  # noqa: E402

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "Identity", "Linear", "Bilinear", "ReLU",
    "ReLU6", "Hardtanh", "Hardswish", "Sigmoid", "Tanh", "GELU", "SiLU", "Softmax", "LogSoftmax",
    "Flatten", "Dropout", "Embedding", "LayerNorm", "MSELoss", "L1Loss", "NLLLoss",
    "CrossEntropyLoss", "BCEWithLogitsLoss",
] + _conv.__all__
from ._nnlayers import *  # noqa: E402,F401,F403  (issue 16: the remaining layers)
from . import _nnlayers as _nnl  # noqa: E402
__all__ += _nnl.__all__
from ._seq import *  # noqa: E402,F401,F403  (issue 16: attention, transformers, RNNs)
from . import _seq as _seq_mod  # noqa: E402
__all__ += _seq_mod.__all__
from ._nnutils import *  # noqa: E402,F401,F403  (nnutils: CTCLoss)
from . import _nnutils as _nnu  # noqa: E402
__all__ += _nnu.__all__
from . import _copy  # noqa: E402,F401  (copy, deepcopy and pickle of modules)
