"""torch.nn.intrinsic.qat.modules.conv_fused: ConvBn, ConvBnReLU and ConvReLU (1d, 2d) for
quantization-aware training, and the update_bn_stats / freeze_bn_stats functions for
model.apply (C++ ember::nn::intrinsic::qat), in 1, 2 and 3 spatial dims."""
from ...... import _C

_nniqat = _C._nniqat
ConvBn1d = _nniqat.ConvBn1d
ConvBnReLU1d = _nniqat.ConvBnReLU1d
ConvReLU1d = _nniqat.ConvReLU1d
ConvBn2d = _nniqat.ConvBn2d
ConvBnReLU2d = _nniqat.ConvBnReLU2d
ConvReLU2d = _nniqat.ConvReLU2d
ConvBn3d = _nniqat.ConvBn3d
ConvBnReLU3d = _nniqat.ConvBnReLU3d
ConvReLU3d = _nniqat.ConvReLU3d
update_bn_stats = _nniqat.update_bn_stats
freeze_bn_stats = _nniqat.freeze_bn_stats

__all__ = ["ConvBn1d", "ConvBnReLU1d", "ConvReLU1d", "ConvBn2d", "ConvBnReLU2d", "ConvReLU2d",
           "ConvBn3d", "ConvBnReLU3d", "ConvReLU3d", "update_bn_stats", "freeze_bn_stats"]

for _cls in (ConvBn1d, ConvBnReLU1d, ConvReLU1d, ConvBn2d, ConvBnReLU2d, ConvReLU2d,
             ConvBn3d, ConvBnReLU3d, ConvReLU3d, _nniqat._ConvBnNd1d, _nniqat._ConvBnNd2d,
             _nniqat._ConvBnNd3d):
    _cls.__module__ = __name__
