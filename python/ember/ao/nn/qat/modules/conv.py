"""torch.ao.nn.qat.modules.conv: Conv1d, Conv2d and Conv3d for quantization-aware training (C++
ember::nn::qat, bound in python/csrc/quantization_qat.cpp)."""
from ..... import _C

Conv1d = _C._nnqat.Conv1d
Conv2d = _C._nnqat.Conv2d
Conv3d = _C._nnqat.Conv3d

__all__ = ["Conv1d", "Conv2d", "Conv3d"]

for _cls in (Conv1d, Conv2d, Conv3d):
    _cls.__module__ = __name__
