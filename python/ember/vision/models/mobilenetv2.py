"""torchvision.models.mobilenetv2 over ember::models::MobileNetV2."""
from ... import _C
from ._api import Weights, WeightsEnum, handle_legacy_interface, _ovewrite_named_param
from ._utils import _make_divisible  # noqa: F401

__all__ = ["MobileNetV2", "MobileNet_V2_Weights", "mobilenet_v2", "InvertedResidual"]

InvertedResidual = _C._vision.InvertedResidual
MobileNetV2 = _C._vision.MobileNetV2
for _cls in (InvertedResidual, MobileNetV2):
    _cls.__module__ = __name__


class MobileNet_V2_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/mobilenet_v2-b0353104.pth",
        transforms=None,
        meta={"num_params": 3504872, "min_size": (1, 1), "num_classes": 1000,
              "_metrics": {"ImageNet-1K": {"acc@1": 71.878, "acc@5": 90.286}}},
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/mobilenet_v2-7ebf99e0.pth",
        transforms=None,
        meta={"num_params": 3504872, "min_size": (1, 1), "num_classes": 1000,
              "_metrics": {"ImageNet-1K": {"acc@1": 72.154, "acc@5": 90.822}}},
    )
    DEFAULT = IMAGENET1K_V2


@handle_legacy_interface("weights", "pretrained", MobileNet_V2_Weights.IMAGENET1K_V1)
def mobilenet_v2(*, weights=None, progress=True, **kwargs):
    """MobileNetV2 (torchvision's builder); `weights` load through load_state_dict_from_url."""
    weights = MobileNet_V2_Weights.verify(weights)
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", weights.meta["num_classes"])
    model = MobileNetV2(**kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress))
    return model


# torchvision 0.12's name for the float checkpoint (the notebook imports it).
model_urls = {"mobilenet_v2": MobileNet_V2_Weights.IMAGENET1K_V1.url}
