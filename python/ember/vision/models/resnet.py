"""torchvision.models.resnet over ember::models::ResNet (BasicBlock, Bottleneck)."""
from ... import _C
from ...nn import Conv2d
from ._utils import _check_no_weights

__all__ = ["ResNet", "BasicBlock", "Bottleneck", "resnet18", "resnet34", "resnet50",
           "resnet101", "resnet152"]

BasicBlock = _C._vision.BasicBlock
Bottleneck = _C._vision.Bottleneck
ResNet = _C._vision.ResNet
for _cls in (BasicBlock, Bottleneck, ResNet):
    _cls.__module__ = __name__


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    """3x3 convolution with padding"""
    return Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation,
                  groups=groups, bias=False, dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    """1x1 convolution"""
    return Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


def _resnet(block, layers, weights, progress, **kwargs):
    _check_no_weights(weights)
    return ResNet(block, layers, **kwargs)


def resnet18(*, weights=None, progress=True, **kwargs):
    return _resnet(BasicBlock, [2, 2, 2, 2], weights, progress, **kwargs)


def resnet34(*, weights=None, progress=True, **kwargs):
    return _resnet(BasicBlock, [3, 4, 6, 3], weights, progress, **kwargs)


def resnet50(*, weights=None, progress=True, **kwargs):
    return _resnet(Bottleneck, [3, 4, 6, 3], weights, progress, **kwargs)


def resnet101(*, weights=None, progress=True, **kwargs):
    return _resnet(Bottleneck, [3, 4, 23, 3], weights, progress, **kwargs)


def resnet152(*, weights=None, progress=True, **kwargs):
    return _resnet(Bottleneck, [3, 8, 36, 3], weights, progress, **kwargs)
