"""torch.nn.intrinsic.qat.modules.linear_relu: LinearReLU (C++
ember::nn::intrinsic::qat::LinearReLU)."""
from ...... import _C

LinearReLU = _C._nniqat.LinearReLU
LinearReLU.__module__ = __name__

__all__ = ["LinearReLU"]
