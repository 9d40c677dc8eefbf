"""torchvision.models.mobilenetv2 over ember::models::MobileNetV2."""
from ... import _C
from ._utils import _check_no_weights, _make_divisible  # noqa: F401

__all__ = ["MobileNetV2", "mobilenet_v2", "InvertedResidual"]

InvertedResidual = _C._vision.InvertedResidual
MobileNetV2 = _C._vision.MobileNetV2
for _cls in (InvertedResidual, MobileNetV2):
    _cls.__module__ = __name__


def mobilenet_v2(*, weights=None, progress=True, **kwargs):
    _check_no_weights(weights)
    return MobileNetV2(**kwargs)
