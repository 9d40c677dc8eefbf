"""An int8 MobileNetV2 made by torch 1.13's eager workflow, and its twin in ember.

`torch_int8_mobilenet(engine)` builds torchvision's quantizable MobileNetV2 with random weights,
recalibrates its BatchNorm statistics on noise (a random network's activations otherwise collapse
and every int8 logit is 0, spec § 9), fuses, prepares, calibrates and converts it with torch.
`ember_twin(torch_model)` builds the same module tree from ember's quantized modules and loads
the converted state_dict into it through `load_state_dict`, as a user moving a torch-converted
model would. Shared by the bit-exactness test and benchmarks/bench_qmodels.py.
"""
import collections

import numpy as np
import torch
import torch.ao.quantization as tq

import ember
import ember.ao.nn.intrinsic.quantized as enniq
import ember.ao.nn.quantized as ennq
import ember.nn as enn
import ember.nn.functional as eF


def torch_int8_mobilenet(engine, seed=0, calibration_batches=4):
    """torchvision's quantizable MobileNetV2, converted by torch on `engine`."""
    from torchvision.models.quantization import mobilenet_v2

    torch.manual_seed(seed)
    torch.backends.quantized.engine = engine
    model = mobilenet_v2(weights=None, quantize=False)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.momentum = None  # cumulative average over the recalibration batches
            m.reset_running_stats()
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.rand(8, 3, 224, 224) * 2 - 1)
    model.eval()
    model.fuse_model()
    if engine == "qnnpack":
        model.qconfig = tq.QConfig(activation=tq.default_observer, weight=tq.default_weight_observer)
    else:
        model.qconfig = tq.get_default_qconfig(engine)
    tq.prepare(model, inplace=True)
    with torch.no_grad():
        for _ in range(calibration_batches):
            model(torch.rand(1, 3, 224, 224) * 2 - 1)
    tq.convert(model, inplace=True)
    return model


# ---- torch values -> ember values ----
_DTYPES = {torch.quint8: ember.quint8, torch.qint8: ember.qint8, torch.qint32: ember.qint32}


def to_ember(value):
    if isinstance(value, torch.Tensor):
        if value.is_quantized:
            codes = ember.from_numpy(value.int_repr().numpy().copy())
            if value.qscheme() == torch.per_tensor_affine:
                return ember._make_per_tensor_quantized_tensor(codes, value.q_scale(), value.q_zero_point())
            return ember._make_per_channel_quantized_tensor(
                codes, ember.from_numpy(value.q_per_channel_scales().numpy().copy()),
                ember.from_numpy(value.q_per_channel_zero_points().numpy().copy()),
                value.q_per_channel_axis())
        return ember.from_numpy(value.detach().numpy().copy())
    if isinstance(value, tuple):
        return tuple(to_ember(v) for v in value)
    if isinstance(value, torch.dtype):
        return _DTYPES[value]
    return value


def state_dict_to_ember(sd):
    out = collections.OrderedDict((k, to_ember(v)) for k, v in sd.items())
    out._metadata = collections.OrderedDict((k, dict(v)) for k, v in sd._metadata.items())
    return out


# ---- the module tree ----
class InvertedResidual(enn.Module):
    def __init__(self, conv, use_res_connect):
        super().__init__()
        self.conv = conv
        self.use_res_connect = use_res_connect
        self.skip_add = ennq.QFunctional()

    def forward(self, x):
        if self.use_res_connect:
            return self.skip_add.add(x, self.conv(x))
        return self.conv(x)


class QuantizedMobileNetV2(enn.Module):
    def __init__(self, features, classifier, quant):
        super().__init__()
        self.features = features
        self.classifier = classifier
        self.quant = quant
        self.dequant = ennq.DeQuantize()

    def forward(self, x):
        x = self.quant(x)
        x = self.features(x)
        x = eF.adaptive_avg_pool2d(x, (1, 1))
        x = ember.flatten(x, 1)
        x = self.classifier(x)
        return self.dequant(x)


def _twin(m):
    name = type(m).__name__
    if name in ("ConvReLU2d", "Conv2d"):
        cls = enniq.ConvReLU2d if name == "ConvReLU2d" else ennq.Conv2d
        return cls(m.in_channels, m.out_channels, m.kernel_size, stride=m.stride, padding=m.padding,
                   dilation=m.dilation, groups=m.groups, bias=m.bias() is not None)
    if name == "Linear":
        return ennq.Linear(m.in_features, m.out_features)
    if name == "Quantize":
        return ennq.Quantize(float(m.scale), int(m.zero_point), _DTYPES[m.dtype])
    if name == "DeQuantize":
        return ennq.DeQuantize()
    if name == "Dropout":
        return ennq.Dropout(m.p)
    if name == "Identity":
        return enn.Identity()
    if name in ("Sequential", "Conv2dNormActivation"):
        return enn.Sequential(*[_twin(c) for c in m.children()])
    if name == "QuantizableInvertedResidual":
        return InvertedResidual(_twin(m.conv), m.use_res_connect)
    raise TypeError(f"no ember twin for {name}")


def ember_twin(torch_model):
    """The converted `torch_model` as ember quantized modules, its state_dict loaded."""
    model = QuantizedMobileNetV2(_twin(torch_model.features), _twin(torch_model.classifier),
                                 _twin(torch_model.quant))
    model.eval()
    model.load_state_dict(state_dict_to_ember(torch_model.state_dict()))
    return model


def same_input(seed=1, batch=1, size=224):
    x = np.random.default_rng(seed).uniform(-1, 1, (batch, 3, size, size)).astype(np.float32)
    return torch.from_numpy(x.copy()), ember.from_numpy(x.copy())
