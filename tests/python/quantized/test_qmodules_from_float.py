"""from_float of ember's quantized modules against torch 1.13's. Observers and qconfigs are the
workflow's; from_float reads them by duck typing, so the ember side uses stand-ins carrying the
qparams that torch's real observers computed on the same data (qmodules_util.StandInObserver)."""
import numpy as np
import pytest
import torch
import torch.ao.nn.quantized as tnnq
from torch.ao.quantization import (MinMaxObserver, PerChannelMinMaxObserver, QConfig,
                                   default_weight_observer)

import ember
import ember.ao.nn.quantized as nnq
import ember.nn.quantized.dynamic as nnqd

from qmodules_util import (StandInQConfig, same_quantized, stand_in_from_torch, tensor_to_ember)


@pytest.fixture(autouse=True)
def qnnpack():
    old_t, old_e = torch.backends.quantized.engine, ember.backends.quantized.engine
    torch.backends.quantized.engine = "qnnpack"
    ember.backends.quantized.engine = "qnnpack"
    yield
    torch.backends.quantized.engine = old_t
    ember.backends.quantized.engine = old_e


WEIGHT_OBSERVERS = [
    lambda: default_weight_observer(),
    lambda: MinMaxObserver(dtype=torch.qint8, qscheme=torch.per_tensor_symmetric,
                           quant_min=-127, quant_max=127),  # narrower: codes clamped
    lambda: PerChannelMinMaxObserver(dtype=torch.qint8, qscheme=torch.per_channel_symmetric),
]


def observed_pair(torch_float, ember_float, weight_observer_factory, act_data):
    """Both float modules made ready for from_float: torch's with a real qconfig and observer
    that saw `act_data`, ember's with stand-ins carrying the same qparams."""
    act = MinMaxObserver()
    act(act_data)
    torch_float.qconfig = QConfig(activation=MinMaxObserver, weight=weight_observer_factory)
    torch_float.activation_post_process = act
    wobs = weight_observer_factory()
    wobs(torch_float.weight if not hasattr(torch_float, "__getitem__") else torch_float[0].weight)
    ember_float.qconfig = StandInQConfig(stand_in_from_torch(wobs))
    ember_float.activation_post_process = stand_in_from_torch(act, dtype=torch.quint8)
    return torch_float, ember_float


def copy_float_params(t, e):
    for name, p in t.named_parameters():
        getattr(e, name).data = tensor_to_ember(p.detach())


@pytest.mark.parametrize("wobs", WEIGHT_OBSERVERS)
@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, groups=2, bias=False)])
def test_conv2d_from_float(wobs, kw):
    t = torch.nn.Conv2d(4, 6, 3, **kw)
    e = ember.nn.Conv2d(4, 6, 3, **kw)
    copy_float_params(t, e)
    t, e = observed_pair(t, e, wobs, torch.randn(64) * 3)
    tq, eq = tnnq.Conv2d.from_float(t), nnq.Conv2d.from_float(e)
    assert type(eq) is nnq.Conv2d
    assert repr(eq).replace("ember.", "torch.") == repr(tq)
    assert same_quantized(eq.weight(), tq.weight())
    assert eq.scale == tq.scale and eq.zero_point == tq.zero_point
    if eq.bias() is not None and kw.get("bias", True):
        assert np.array_equal(eq.bias().detach().numpy(), tq.bias().detach().numpy())
    x = torch.quantize_per_tensor(torch.randn(1, 4, 7, 7), 0.05, 128, torch.quint8)
    assert same_quantized(eq(tensor_to_ember(x)), tq(x))


@pytest.mark.parametrize("wobs", WEIGHT_OBSERVERS)
def test_linear_from_float(wobs):
    t, e = torch.nn.Linear(5, 3), ember.nn.Linear(5, 3)
    copy_float_params(t, e)
    t, e = observed_pair(t, e, wobs, torch.randn(30))
    tq, eq = tnnq.Linear.from_float(t), nnq.Linear.from_float(e)
    assert repr(eq).replace("ember.", "torch.") == repr(tq)
    assert same_quantized(eq.weight(), tq.weight())
    x = torch.quantize_per_tensor(torch.randn(2, 5), 0.05, 128, torch.quint8)
    assert same_quantized(eq(tensor_to_ember(x)), tq(x))


def test_weight_codes_clamped_to_observer_range():
    # [-1, 0.5, 1] with a symmetric observer: -1 lands on -127.5 -> -128, unless the observer's
    # range stops at -127.
    t, e = torch.nn.Linear(3, 1, bias=False), ember.nn.Linear(3, 1, bias=False)
    t.weight.data = torch.tensor([[-1.0, 0.5, 1.0]])
    copy_float_params(t, e)
    for wobs in WEIGHT_OBSERVERS[:2]:
        tt, ee = observed_pair(t, e, wobs, torch.randn(10))
        tq, eq = tnnq.Linear.from_float(tt), nnq.Linear.from_float(ee)
        assert same_quantized(eq.weight(), tq.weight())
        assert eq.weight().int_repr().tolist() == tq.weight().int_repr().tolist()


def test_dynamic_linear_from_float():
    t, e = torch.nn.Linear(6, 4), ember.nn.Linear(6, 4)
    copy_float_params(t, e)
    t, e = observed_pair(t, e, WEIGHT_OBSERVERS[0], torch.randn(10))
    tq, eq = torch.nn.quantized.dynamic.Linear.from_float(t), nnqd.Linear.from_float(e)
    assert repr(eq).replace("ember.", "torch.") == repr(tq)
    assert same_quantized(eq.weight(), tq.weight())
    x = torch.randn(3, 6)
    y = eq(tensor_to_ember(x))
    assert y.dtype == ember.float32
    assert np.array_equal(y.numpy(), tq(x).numpy())


def test_wrong_float_module_and_missing_qconfig():
    t, e = torch.nn.Linear(3, 4), ember.nn.Linear(3, 4)
    with pytest.raises(AssertionError, match="Input float module must have qconfig defined"):
        tnnq.Conv2d.from_float(torch.nn.Conv2d(1, 1, 1))
    with pytest.raises(AssertionError, match="Input float module must have qconfig defined"):
        nnq.Conv2d.from_float(ember.nn.Conv2d(1, 1, 1))
    with pytest.raises(AssertionError, match="from_float only works for Conv2d"):
        nnq.Conv2d.from_float(e)
    with pytest.raises(AssertionError, match="nnq.Linear.from_float only works for Linear"):
        nnq.Linear.from_float(ember.nn.Conv2d(1, 1, 1))
    with pytest.raises(AssertionError, match="QFunctional.from_float expects an instance of "
                                             "FloatFunctional"):
        nnq.QFunctional.from_float(nnq.FXFloatFunctional())
    del t


def test_activation_modules_from_float():
    act = MinMaxObserver()
    act(torch.randn(50))
    stand_in = stand_in_from_torch(act, dtype=torch.quint8)

    class Holder:
        pass

    class EHolder(ember.nn.Module):  # ember's from_float (C++) takes a module
        pass

    for tcls, ecls in ((tnnq.QFunctional, nnq.QFunctional), (tnnq.Hardswish, nnq.Hardswish),
                       (tnnq.Quantize, nnq.Quantize)):
        tf = tnnq.FloatFunctional() if tcls is tnnq.QFunctional else Holder()
        ef = nnq.FloatFunctional() if tcls is tnnq.QFunctional else EHolder()
        tf.activation_post_process = act
        ef.activation_post_process = stand_in
        tq, eq = tcls.from_float(tf), ecls.from_float(ef)
        assert repr(eq).replace("ember.", "torch.") == repr(tq)
    assert repr(nnq.ReLU6.from_float(ember.nn.ReLU6(inplace=True))) == "QuantizedReLU6(inplace=True)"
    assert repr(nnq.Dropout.from_float(ember.nn.Dropout(0.3))) == \
        "QuantizedDropout(p=0.3, inplace=False)"
    assert type(nnq.DeQuantize.from_float(None)) is nnq.DeQuantize


def test_batch_norm_from_float():
    act = MinMaxObserver()
    act(torch.randn(50))
    t, e = torch.nn.BatchNorm2d(3), ember.nn.BatchNorm2d(3)
    t.eval(), e.eval()
    t.running_mean.uniform_(-1, 1)
    t.running_var.uniform_(0.5, 2)
    t.weight.data.uniform_(0.5, 2)
    e.load_state_dict({k: tensor_to_ember(v) for k, v in t.state_dict().items()})
    t.activation_post_process = act
    e.activation_post_process = stand_in_from_torch(act, dtype=torch.quint8)
    tq, eq = tnnq.BatchNorm2d.from_float(t), nnq.BatchNorm2d.from_float(e)
    assert repr(eq) == repr(tq)
    # torch assigns the observer's (float32 [1], int32 [1]) qparams as the buffers
    assert eq.scale.shape == tuple(tq.scale.shape) and str(eq.zero_point.dtype)[6:] == \
        str(tq.zero_point.dtype)[6:]
    x = torch.quantize_per_tensor(torch.randn(2, 3, 4, 4), 0.05, 128, torch.quint8)
    assert same_quantized(eq(tensor_to_ember(x)), tq(x))
