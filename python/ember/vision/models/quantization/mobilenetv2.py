"""torchvision.models.quantization.mobilenetv2 over ember::models::quantization."""
from .... import _C
from .._api import Weights, WeightsEnum, handle_legacy_interface, _ovewrite_named_param
from ..mobilenetv2 import MobileNet_V2_Weights
from .utils import _replace_relu, quantize_model

__all__ = ["QuantizableMobileNetV2", "QuantizableInvertedResidual",
           "MobileNet_V2_QuantizedWeights", "mobilenet_v2"]

QuantizableInvertedResidual = _C._vision.QuantizableInvertedResidual
QuantizableMobileNetV2 = _C._vision.QuantizableMobileNetV2
for _cls in (QuantizableInvertedResidual, QuantizableMobileNetV2):
    _cls.__module__ = __name__


class MobileNet_V2_QuantizedWeights(WeightsEnum):
    IMAGENET1K_QNNPACK_V1 = Weights(
        url="https://download.pytorch.org/models/quantized/mobilenet_v2_qnnpack_37f702c5.pth",
        transforms=None,
        meta={"num_params": 3504872, "min_size": (1, 1), "num_classes": 1000,
              "backend": "qnnpack", "unquantized": MobileNet_V2_Weights.IMAGENET1K_V1,
              "_metrics": {"ImageNet-1K": {"acc@1": 71.658, "acc@5": 90.150}}},
    )
    DEFAULT = IMAGENET1K_QNNPACK_V1


@handle_legacy_interface(
    "weights", "pretrained",
    lambda kwargs: MobileNet_V2_QuantizedWeights.IMAGENET1K_QNNPACK_V1
    if kwargs.get("quantize", False) else MobileNet_V2_Weights.IMAGENET1K_V1)
def mobilenet_v2(*, weights=None, progress=True, quantize=False, **kwargs):
    """MobileNetV2, quantizable (torchvision 0.14's builder): ReLU6 replaced by ReLU; with
    `quantize`, quantize_model(model, backend) (backend from the weights, else "qnnpack"); then
    the weights, loaded through load_state_dict_from_url."""
    weights = (MobileNet_V2_QuantizedWeights if quantize else MobileNet_V2_Weights).verify(weights)
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", weights.meta["num_classes"])
        if "backend" in weights.meta:
            _ovewrite_named_param(kwargs, "backend", weights.meta["backend"])
    backend = kwargs.pop("backend", "qnnpack")

    model = QuantizableMobileNetV2(block=QuantizableInvertedResidual, **kwargs)
    _replace_relu(model)
    if quantize:
        quantize_model(model, backend)

    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress))
    return model
