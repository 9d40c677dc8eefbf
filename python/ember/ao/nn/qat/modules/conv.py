"""torch.ao.nn.qat.modules.conv: Conv1d and Conv2d for quantization-aware training (C++
ember::nn::qat, bound in python/csrc/quantization_qat.cpp). Conv3d waits for a float Conv3d."""
from ..... import _C

Conv1d = _C._nnqat.Conv1d
Conv2d = _C._nnqat.Conv2d

__all__ = ["Conv1d", "Conv2d"]

for _cls in (Conv1d, Conv2d):
    _cls.__module__ = __name__
