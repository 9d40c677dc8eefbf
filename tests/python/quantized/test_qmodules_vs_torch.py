"""Quantized state_dicts written by torch 1.13 (made here by torch itself: float models quantized
with torch's eager workflow on the qnnpack engine) load into ember's quantized modules through
load_state_dict, and the outputs are bit-identical on the qnnpack engine: single layers, and a
small conv-bn-relu + depthwise + residual add + pool + linear network. The tensors cross through
int_repr / q_scale / numpy (qmodules_util), as a checkpoint format would carry them."""
import numpy as np
import pytest
import torch
import torch.ao.nn.quantized as tnnq
import torch.nn.intrinsic.quantized as tnniq
from torch.ao.quantization import (DeQuantStub, MinMaxObserver, PerChannelMinMaxObserver,
                                   QConfig, QuantStub, convert, default_weight_observer,
                                   fuse_modules, get_default_qconfig, prepare)

import ember
import ember.ao.nn.quantized as nnq
import ember.nn.intrinsic.quantized as nniq
import ember.nn.quantized.dynamic as nnqd

from qmodules_util import same_quantized, state_dict_to_ember, tensor_to_ember


@pytest.fixture(autouse=True)
def qnnpack():
    old_t, old_e = torch.backends.quantized.engine, ember.backends.quantized.engine
    torch.backends.quantized.engine = "qnnpack"
    ember.backends.quantized.engine = "qnnpack"
    yield
    torch.backends.quantized.engine = old_t
    ember.backends.quantized.engine = old_e


def qx(shape, scale=0.04, zp=110, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.quantize_per_tensor(torch.randn(*shape, generator=g), scale, zp, torch.quint8)


def set_random_state(t, per_channel=False, relu=False):
    """Random weights / qparams on a torch quantized conv or linear."""
    w, b = t._weight_bias()
    shape = w.shape
    fw = torch.randn(*shape) * 0.2
    if per_channel:
        s = fw.abs().flatten(1).amax(1).double() / 127.5
        qw = torch.quantize_per_channel(fw, s, torch.zeros(shape[0], dtype=torch.long), 0,
                                        torch.qint8)
    else:
        qw = torch.quantize_per_tensor(fw, float(fw.abs().max()) / 127.5, 0, torch.qint8)
    t.set_weight_bias(qw, None if b is None else torch.randn(shape[0]) * 0.1)
    # a float32 value, as observers give (the state_dict carries scale as float32)
    t.scale, t.zero_point = float(np.float32(0.0731)), (0 if relu else 97)


def load_from_torch(e, t):
    result = e.load_state_dict(state_dict_to_ember(t.state_dict()))
    assert not result.missing_keys and not result.unexpected_keys
    return e


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("make", [
    lambda q: q.Conv2d(8, 16, 3),
    lambda q: q.Conv2d(8, 8, 3, stride=2, padding=1, groups=8),     # depthwise, stride 2
    lambda q: q.Conv2d(8, 12, 1),                                    # 1x1
    lambda q: q.Conv2d(8, 6, (3, 5), stride=(2, 1), padding=(1, 2), dilation=(1, 2)),
    lambda q: q.Conv2d(8, 6, 3, bias=False),
])
def test_conv2d(make, per_channel):
    t = make(tnnq)
    set_random_state(t, per_channel)
    e = load_from_torch(make(nnq), t)
    x = qx((2, 8, 9, 11))
    assert same_quantized(e(tensor_to_ember(x)), t(x))
    assert same_quantized(e(tensor_to_ember(x.contiguous(memory_format=torch.channels_last))), t(x))


@pytest.mark.parametrize("per_channel", [False, True])
def test_conv_relu_and_conv1d(per_channel):
    t = tnniq.ConvReLU2d(8, 8, 3, padding=1, groups=8)
    set_random_state(t, per_channel, relu=True)
    e = load_from_torch(nniq.ConvReLU2d(8, 8, 3, padding=1, groups=8), t)
    x = qx((1, 8, 7, 7))
    assert same_quantized(e(tensor_to_ember(x)), t(x))
    t1 = tnnq.Conv1d(4, 6, 3, stride=2, padding=1)
    set_random_state(t1, per_channel)
    e1 = load_from_torch(nnq.Conv1d(4, 6, 3, stride=2, padding=1), t1)
    x1 = qx((2, 4, 13))
    assert same_quantized(e1(tensor_to_ember(x1)), t1(x1))


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("relu", [False, True])
def test_linear(per_channel, relu):
    t = (tnniq.LinearReLU if relu else tnnq.Linear)(20, 10)
    set_random_state(t, per_channel, relu)
    e = load_from_torch((nniq.LinearReLU if relu else nnq.Linear)(20, 10), t)
    x = qx((4, 20))
    assert same_quantized(e(tensor_to_ember(x)), t(x))


def test_dynamic_linear():
    t = torch.nn.quantized.dynamic.Linear(20, 10)
    set_random_state(t)
    e = load_from_torch(nnqd.Linear(20, 10), t)
    x = torch.randn(3, 20)
    assert np.array_equal(e(tensor_to_ember(x)).numpy(), t(x).numpy())


def test_functional_and_elementwise_modules():
    a, b = qx((2, 3, 4, 4), 0.031, 120, 1), qx((2, 3, 4, 4), 0.047, 131, 2)
    ea, eb = tensor_to_ember(a), tensor_to_ember(b)
    t = tnnq.QFunctional()
    t.scale, t.zero_point = float(np.float32(0.061)), 125
    e = load_from_torch(nnq.QFunctional(), t)
    assert same_quantized(e.add(ea, eb), t.add(a, b))
    assert same_quantized(e.add_relu(ea, eb), t.add_relu(a, b))
    assert same_quantized(e.mul(ea, eb), t.mul(a, b))
    assert same_quantized(e.cat([ea, eb], dim=1), t.cat([a, b], dim=1))
    assert same_quantized(e.add_scalar(ea, -0.3), t.add_scalar(a, -0.3))
    assert same_quantized(e.mul_scalar(ea, -1.0), t.mul_scalar(a, -1.0))
    assert same_quantized(nnq.ReLU6()(ea), tnnq.ReLU6()(a))
    assert same_quantized(nnq.Hardswish(0.02, 30)(ea), tnnq.Hardswish(0.02, 30)(a))
    tb = tnnq.BatchNorm2d(3)
    tb.running_mean.uniform_(-0.5, 0.5)
    tb.running_var.uniform_(0.5, 2)
    tb.weight.data.uniform_(0.5, 1.5)
    tb.scale, tb.zero_point = torch.tensor(0.05), torch.tensor(100)
    eb_ = load_from_torch(nnq.BatchNorm2d(3), tb)
    assert same_quantized(eb_(ea), tb(a))
    tbr = tnniq.BNReLU2d(3)
    tbr.load_state_dict(tb.state_dict())
    ebr = load_from_torch(nniq.BNReLU2d(3), tbr)
    assert same_quantized(ebr(ea), tbr(a))


class TorchNet(torch.nn.Module):
    def __init__(self, add_relu):
        super().__init__()
        self.add_relu = add_relu
        self.quant = QuantStub()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.relu1 = torch.nn.ReLU()
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(8)
        self.conv3 = torch.nn.Conv2d(8, 8, 1)
        self.skip = tnnq.FloatFunctional()
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.drop = torch.nn.Dropout(0.2)
        self.fc = torch.nn.Linear(8, 5)
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.relu1(self.bn1(self.conv1(x)))
        y = self.conv3(self.bn2(self.conv2(x)))
        x = self.skip.add_relu(x, y) if self.add_relu else self.skip.add(x, y)
        x = self.pool(x).flatten(1)
        return self.dequant(self.fc(self.drop(x)))


class EmberNet(ember.nn.Module):
    """The converted TorchNet, built from ember's quantized modules."""

    def __init__(self, add_relu):
        super().__init__()
        self.add_relu = add_relu
        self.quant = nnq.Quantize(1.0, 0, ember.quint8)
        self.conv1 = nniq.ConvReLU2d(3, 8, 3, padding=1)
        self.bn1 = ember.nn.Identity()
        self.relu1 = ember.nn.Identity()
        self.conv2 = nnq.Conv2d(8, 8, 3, padding=1, groups=8)
        self.bn2 = ember.nn.Identity()
        self.conv3 = nnq.Conv2d(8, 8, 1)
        self.skip = nnq.QFunctional()
        self.pool = ember.nn.AdaptiveAvgPool2d(1)
        self.drop = nnq.Dropout(0.2)
        self.fc = nnq.Linear(8, 5)
        self.dequant = nnq.DeQuantize()

    def forward(self, x):
        x = self.quant(x)
        x = self.relu1(self.bn1(self.conv1(x)))
        y = self.conv3(self.bn2(self.conv2(x)))
        x = self.skip.add_relu(x, y) if self.add_relu else self.skip.add(x, y)
        x = self.pool(x).flatten(1)
        return self.dequant(self.fc(self.drop(x)))


QCONFIGS = {
    "qnnpack_default": lambda: get_default_qconfig("qnnpack"),
    "minmax_per_channel": lambda: QConfig(activation=MinMaxObserver,
                                          weight=PerChannelMinMaxObserver.with_args(
                                              dtype=torch.qint8,
                                              qscheme=torch.per_channel_symmetric)),
    "minmax_per_tensor": lambda: QConfig(activation=MinMaxObserver, weight=default_weight_observer),
}


@pytest.mark.parametrize("qconfig", sorted(QCONFIGS))
@pytest.mark.parametrize("add_relu", [False, True])
def test_small_network_from_torch_state_dict(qconfig, add_relu):
    torch.manual_seed(0)
    model = TorchNet(add_relu).eval()
    for bn in (model.bn1, model.bn2):
        bn.running_mean.uniform_(-0.2, 0.2)
        bn.running_var.uniform_(0.5, 1.5)
        bn.weight.data.uniform_(0.5, 1.5)
        bn.bias.data.uniform_(-0.2, 0.2)
    model = fuse_modules(model, [["conv1", "bn1", "relu1"], ["conv2", "bn2"]])
    model.qconfig = QCONFIGS[qconfig]()
    prepare(model, inplace=True)
    for _ in range(4):
        model(torch.randn(2, 3, 10, 10))
    convert(model, inplace=True)
    assert type(model.conv1) is tnniq.ConvReLU2d and type(model.skip) is tnnq.QFunctional

    sd = model.state_dict()
    ours = EmberNet(add_relu).eval()
    result = ours.load_state_dict(state_dict_to_ember(sd))
    assert not result.missing_keys and not result.unexpected_keys
    assert list(ours.state_dict().keys()) == list(sd.keys())
    assert repr(ours.conv1).replace("ember.", "torch.") == repr(model.conv1)
    assert repr(ours.fc).replace("ember.", "torch.") == repr(model.fc)
    for seed in range(3):
        x = torch.randn(2, 3, 10, 10, generator=torch.Generator().manual_seed(seed)) * 1.5
        ex = tensor_to_ember(x)
        # block by block, then the whole network
        tq, eq = model.quant(x), ours.quant(ex)
        assert same_quantized(eq, tq)
        t1, e1 = model.conv1(tq), ours.conv1(eq)
        assert same_quantized(e1, t1)
        t3, e3 = model.conv3(model.conv2(t1)), ours.conv3(ours.conv2(e1))
        assert same_quantized(e3, t3)
        assert np.array_equal(ours(ex).numpy(), model(x).numpy())
