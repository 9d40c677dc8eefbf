# The custom-quantization notebook's code cells, run on ember: a quantizable MobileNetV2 written
# by hand (torchvision 0.12's torchvision/models/quantization/mobilenetv2.py, as the notebook
# copies it: `fuse_model(self, is_qat)` without a default, `type(m) is ConvNormActivation`), then
# the eager-mode flow: build, fuse, prepare, calibrate, convert, run.
# Edits to the notebook's code: `import torch` -> `import ember as torch`, `from torch import
# nn` -> `from ember import nn`, `from torch.ao.quantization import ...` -> `from
# ember.ao.quantization import ...`, `from torchvision.X import Y` -> `from ember.vision.X import
# Y`; nothing else. Lines marked `# driver` are added: they run the flow on a small input and
# print the model and a few numbers (tests/python/quantization/test_custom_quantization.py
# compares them with torchvision 0.14's own quantizable MobileNetV2 on torch 1.13).

from typing import Any, Optional

import ember as torch  # driver
from ember import Tensor
from ember import nn
from ember.ao.quantization import QuantStub, DeQuantStub
from ember.vision.models.mobilenetv2 import InvertedResidual, MobileNetV2, model_urls

from ember.vision._internally_replaced_utils import load_state_dict_from_url
from ember.vision.ops.misc import ConvNormActivation
from ember.vision.models.quantization.utils import _fuse_modules, _replace_relu, quantize_model


__all__ = ["QuantizableMobileNetV2", "mobilenet_v2"]

quant_model_urls = {
    "mobilenet_v2_qnnpack": "https://download.pytorch.org/models/quantized/mobilenet_v2_qnnpack_37f702c5.pth"
}


class QuantizableInvertedResidual(InvertedResidual):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.skip_add = nn.quantized.FloatFunctional()

    def forward(self, x: Tensor) -> Tensor:
        if self.use_res_connect:
            return self.skip_add.add(x, self.conv(x))
        else:
            return self.conv(x)

    def fuse_model(self, is_qat: Optional[bool]) -> None:
        for idx in range(len(self.conv)):
            if type(self.conv[idx]) is nn.Conv2d:
                _fuse_modules(self.conv, [str(idx), str(idx + 1)], is_qat, inplace=True)


class QuantizableMobileNetV2(MobileNetV2):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """
        MobileNet V2 main class

        Args:
           Inherits args from floating point MobileNetV2
        """
        super().__init__(*args, **kwargs)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x: Tensor) -> Tensor:
        x = self.quant(x)
        x = self._forward_impl(x)
        x = self.dequant(x)
        return x

    def fuse_model(self, is_qat: Optional[bool]) -> None:
        for m in self.modules():
            if type(m) is ConvNormActivation:
                _fuse_modules(m, ["0", "1", "2"], is_qat, inplace=True)
            if type(m) is QuantizableInvertedResidual:
                m.fuse_model(is_qat)


def mobilenet_v2(
    pretrained: bool = False,
    progress: bool = True,
    quantize: bool = False,
    **kwargs: Any,
) -> QuantizableMobileNetV2:
    """
    Constructs a MobileNetV2 architecture from
    `"MobileNetV2: Inverted Residuals and Linear Bottlenecks"
    <https://arxiv.org/abs/1801.04381>`_.

    Note that quantize = True returns a quantized model with 8 bit
    weights. Quantized models only support inference and run on CPUs.
    GPU inference is not yet supported

    Args:
     pretrained (bool): If True, returns a model pre-trained on ImageNet.
     progress (bool): If True, displays a progress bar of the download to stderr
     quantize(bool): If True, returns a quantized model, else returns a float model
    """
    model = QuantizableMobileNetV2(block=QuantizableInvertedResidual, **kwargs)
    _replace_relu(model)

    if quantize:
        # TODO use pretrained as a string to specify the backend
        backend = "qnnpack"
        quantize_model(model, backend)
    else:
        assert pretrained in [True, False]

    if pretrained:
        if quantize:
            model_url = quant_model_urls["mobilenet_v2_" + backend]
        else:
            model_url = model_urls["mobilenet_v2"]

        state_dict = load_state_dict_from_url(model_url, progress=progress)

        model.load_state_dict(state_dict)
    return model


def main():  # driver
    # The flow step by step (what quantize_model does), on a float model.  # driver
    torch.manual_seed(0)  # driver
    torch.backends.quantized.engine = "qnnpack"  # driver
    float_model = mobilenet_v2(pretrained=False, quantize=False)  # driver
    float_model.eval()  # driver
    float_model.fuse_model(False)  # driver
    float_model.qconfig = torch.ao.quantization.get_default_qconfig("qnnpack")  # driver
    prepared = torch.ao.quantization.prepare(float_model)  # driver
    n_observers = sum(1 for n, _ in prepared.named_modules() if n.endswith("activation_post_process"))  # driver
    print("observers after prepare:", n_observers)  # driver
    for _ in range(2):  # driver: calibration batches
        prepared(torch.rand(1, 3, 224, 224))  # driver
    quantized = torch.ao.quantization.convert(prepared)  # driver
    print(quantized.features[1])  # driver
    print("state_dict keys after convert:", len(quantized.state_dict()))  # driver
    x = torch.rand(1, 3, 224, 224)  # driver
    print("logits:", quantized(x).shape)  # driver

    # The notebook's one call: mobilenet_v2(quantize=True) runs quantize_model.  # driver
    model = mobilenet_v2(pretrained=False, quantize=True)  # driver
    print(model.features[0][0]._get_name(), model.classifier[1]._get_name())  # driver
    print("state_dict keys:", len(model.state_dict()))  # driver


if __name__ == "__main__":  # driver
    main()  # driver
