"""torch.nn.intrinsic.qat.modules.conv_fused: ConvBn, ConvBnReLU and ConvReLU (1d, 2d) for
quantization-aware training, and the update_bn_stats / freeze_bn_stats functions for
model.apply (C++ ember::nn::intrinsic::qat). The 3d ones wait for a float Conv3d."""
from ...... import _C

_nniqat = _C._nniqat
ConvBn1d = _nniqat.ConvBn1d
ConvBnReLU1d = _nniqat.ConvBnReLU1d
ConvReLU1d = _nniqat.ConvReLU1d
ConvBn2d = _nniqat.ConvBn2d
ConvBnReLU2d = _nniqat.ConvBnReLU2d
ConvReLU2d = _nniqat.ConvReLU2d
update_bn_stats = _nniqat.update_bn_stats
freeze_bn_stats = _nniqat.freeze_bn_stats

__all__ = ["ConvBn1d", "ConvBnReLU1d", "ConvReLU1d", "ConvBn2d", "ConvBnReLU2d", "ConvReLU2d",
           "update_bn_stats", "freeze_bn_stats"]

for _cls in (ConvBn1d, ConvBnReLU1d, ConvReLU1d, ConvBn2d, ConvBnReLU2d, ConvReLU2d,
             _nniqat._ConvBnNd1d, _nniqat._ConvBnNd2d):
    _cls.__module__ = __name__
