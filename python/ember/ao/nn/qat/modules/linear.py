"""torch.ao.nn.qat.modules.linear: Linear for quantization-aware training (C++
ember::nn::qat::Linear)."""
from ..... import _C

Linear = _C._nnqat.Linear
Linear.__module__ = __name__

__all__ = ["Linear"]
