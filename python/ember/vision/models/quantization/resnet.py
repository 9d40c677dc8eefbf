"""torchvision.models.quantization.resnet over ember::models::quantization."""
from .... import _C
from .._api import handle_legacy_interface, _ovewrite_named_param
from .utils import _replace_relu, quantize_model

__all__ = ["QuantizableResNet", "QuantizableBasicBlock", "QuantizableBottleneck", "resnet18",
           "resnet50"]

QuantizableBasicBlock = _C._vision.QuantizableBasicBlock
QuantizableBottleneck = _C._vision.QuantizableBottleneck
QuantizableResNet = _C._vision.QuantizableResNet
for _cls in (QuantizableBasicBlock, QuantizableBottleneck, QuantizableResNet):
    _cls.__module__ = __name__


def _resnet(block, layers, weights, progress, quantize, **kwargs):
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", weights.meta["num_classes"])
        if "backend" in weights.meta:
            _ovewrite_named_param(kwargs, "backend", weights.meta["backend"])
    backend = kwargs.pop("backend", "fbgemm")

    model = QuantizableResNet(block, layers, **kwargs)
    _replace_relu(model)
    if quantize:
        quantize_model(model, backend)

    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress))
    return model


def _no_weights(kwargs):
    raise ValueError("No weights available for model: ember.vision lists no ResNet weights; "
                     "build with weights=None and load a state_dict")


@handle_legacy_interface("weights", "pretrained", _no_weights)
def resnet18(*, weights=None, progress=True, quantize=False, **kwargs):
    """ResNet-18, quantizable (torchvision's builder; backend default "fbgemm")."""
    if weights is not None:
        raise ValueError("ember.vision has no ResNet-18 weights enum; use weights=None")
    return _resnet(QuantizableBasicBlock, [2, 2, 2, 2], weights, progress, quantize, **kwargs)


@handle_legacy_interface("weights", "pretrained", _no_weights)
def resnet50(*, weights=None, progress=True, quantize=False, **kwargs):
    """ResNet-50, quantizable (torchvision's builder; backend default "fbgemm")."""
    if weights is not None:
        raise ValueError("ember.vision has no ResNet-50 weights enum; use weights=None")
    return _resnet(QuantizableBottleneck, [3, 4, 6, 3], weights, progress, quantize, **kwargs)
