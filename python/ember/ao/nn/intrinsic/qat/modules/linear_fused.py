"""torch.nn.intrinsic.qat.modules.linear_fused: LinearBn1d (C++
ember::nn::intrinsic::qat::LinearBn1d)."""
from ...... import _C

LinearBn1d = _C._nniqat.LinearBn1d
LinearBn1d.__module__ = __name__

__all__ = ["LinearBn1d"]
