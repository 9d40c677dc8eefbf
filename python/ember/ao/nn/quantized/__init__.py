"""ember.ao.nn.quantized: torch.ao.nn.quantized's modules. The classes are C++
(ember::nn::quantized, bound in python/csrc/nn_quantized.cpp); from_float and pickling are added
in _modules.py, as PyTorch writes them in Python."""
from ._modules import (  # noqa: F401
    BatchNorm2d, Conv1d, Conv2d, DeQuantize, Dropout, FloatFunctional, FXFloatFunctional,
    Hardswish, Linear, LinearPackedParams, QFunctional, Quantize, ReLU6,
)
from ._modules_more import (  # noqa: F401
    BatchNorm3d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, ELU, GroupNorm,
    InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LayerNorm, LeakyReLU, Sigmoid, Softmax,
)
from ._qmore import PReLU  # noqa: F401
from ._embedding import Embedding, EmbeddingBag  # noqa: F401
from . import dynamic  # noqa: F401
from . import functional  # noqa: F401
from ....nn import MaxPool2d  # noqa: F401  (torch.ao.nn.quantized re-exports the float one)

__all__ = [
    "BatchNorm2d", "BatchNorm3d", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
    "ConvTranspose2d", "ConvTranspose3d", "DeQuantize", "ELU", "Embedding", "EmbeddingBag",
    "GroupNorm", "Hardswish", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LayerNorm",
    "LeakyReLU", "Linear", "MaxPool2d", "PReLU", "Quantize", "ReLU6", "Sigmoid", "Softmax", "Dropout",
    "FloatFunctional", "FXFloatFunctional", "QFunctional",
]
from . import modules  # noqa: F401,E402
