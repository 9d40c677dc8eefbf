"""ember.ao.nn.quantized / ember.nn.quantized modules against torch 1.13's: reprs, state_dict
keys, dtypes, shapes and metadata versions, round trips, identity of packed weights, deepcopy and
pickle, errors, and Python subclasses (the classes are C++, python/csrc/nn_quantized.cpp)."""
import copy
import io
import pickle

import numpy as np
import pytest
import torch
import torch.ao.nn.quantized as tnnq
import torch.nn.intrinsic.quantized as tnniq
import torch.nn.quantized.dynamic as tnnqd

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


def ember_repr(m):
    return repr(m).replace("ember.", "torch.")


def test_namespaces_are_one_set_of_classes():
    assert ember.nn.quantized.Linear is nnq.Linear
    assert ember.nn.quantized.Conv2d is ember.ao.nn.quantized.Conv2d
    assert ember.nn.quantized.dynamic.Linear is ember.ao.nn.quantized.dynamic.Linear
    assert nniq.ConvReLU2d is ember.ao.nn.intrinsic.quantized.ConvReLU2d
    assert issubclass(nniq.ConvReLU2d, nnq.Conv2d)
    assert issubclass(nniq.LinearReLU, nnq.Linear) and issubclass(nnqd.Linear, nnq.Linear)
    assert issubclass(nnq.ReLU6, ember.nn.ReLU)  # as torch's (a ReLU, not a ReLU6)
    assert issubclass(nnq.BatchNorm2d, ember.nn.BatchNorm2d)
    assert issubclass(nnq.Dropout, ember.nn.Dropout)
    for name in tnnq.__all__:
        if name in ("Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "ELU",
                    "Embedding", "EmbeddingBag", "GroupNorm", "InstanceNorm1d",
                    "InstanceNorm2d", "InstanceNorm3d", "LayerNorm", "LeakyReLU", "LSTM",
                    "MultiheadAttention", "PReLU", "Sigmoid", "Softmax", "BatchNorm3d"):
            continue  # not part of ember's quantized modules (yet)
        assert name in nnq.__all__ and hasattr(ember.nn.quantized, name), name


@pytest.mark.parametrize("build", [
    lambda q: q.Conv2d(3, 4, 3),
    lambda q: q.Conv2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2), dilation=(3, 1)),
    lambda q: q.Conv2d(8, 8, 3, groups=8, bias=False),
    lambda q: q.Conv1d(3, 4, 3, padding=1, dilation=2, padding_mode="reflect"),
    lambda q: q.Linear(1280, 1000),
    lambda q: q.Linear(3, 4, bias_=False),
    lambda q: q.Quantize(0.1, 3, (ember if q is nnq else torch).quint8),
    lambda q: q.DeQuantize(),
    lambda q: q.ReLU6(inplace=True),
    lambda q: q.Hardswish(0.1, 2),
    lambda q: q.Dropout(0.2),
    lambda q: q.BatchNorm2d(3, eps=1e-3),
    lambda q: q.FloatFunctional(),
    lambda q: q.FXFloatFunctional(),
    lambda q: q.QFunctional(),
])
def test_repr_and_state_dict_layout(build):
    e, t = build(nnq), build(tnnq)
    assert ember_repr(e) == repr(t)
    assert e._get_name() == t._get_name()
    esd, tsd = e.state_dict(), t.state_dict()
    assert list(esd.keys()) == list(tsd.keys())
    assert list(esd._metadata.items()) == list(tsd._metadata.items())
    for k, tv in tsd.items():
        ev = esd[k]
        if isinstance(tv, tuple):
            assert isinstance(ev, tuple) and len(ev) == len(tv)
            pairs = list(zip(ev, tv))
        else:
            pairs = [(ev, tv)]
        for a, b in pairs:
            if b is None:
                assert a is None, k
                continue
            if isinstance(b, torch.dtype):
                assert str(a) == str(b).replace("torch.", "ember."), k
                continue
            assert str(a.dtype) == str(b.dtype).replace("torch.", "ember."), k
            assert a.shape == tuple(b.shape), k


@pytest.mark.parametrize("build", [
    lambda q, i: q.ConvReLU2d(32, 32, 3, padding=1, groups=32),
    lambda q, i: q.ConvReLU1d(4, 8, 3, stride=2),
    lambda q, i: q.LinearReLU(3, 4),
    lambda q, i: q.BNReLU2d(4),
])
def test_intrinsic_reprs(build):
    e, t = build(nniq, None), build(tnniq, None)
    assert ember_repr(e) == repr(t)
    assert list(e.state_dict().keys()) == list(t.state_dict().keys())
    assert list(e.state_dict()._metadata.items()) == list(t.state_dict()._metadata.items())


def test_dynamic_linear_repr_and_version():
    e, t = nnqd.Linear(3, 4), tnnqd.Linear(3, 4)
    assert ember_repr(e) == repr(t)
    assert e.version == t.version == 4
    assert list(e.state_dict()._metadata.items()) == list(t.state_dict()._metadata.items())
    sd = e.state_dict()
    sd._metadata[""]["version"] = 3
    e.load_state_dict(sd)
    assert e.version == 3  # the checkpoint's version, which decides reduce_range


def test_conv_repr_with_qparams():
    m = nniq.ConvReLU2d(32, 32, 3, padding=1, groups=32)
    m.scale, m.zero_point = 0.0178, 0
    assert repr(m) == ("QuantizedConvReLU2d(32, 32, kernel_size=(3, 3), stride=(1, 1), "
                       "scale=0.0178, zero_point=0, padding=(1, 1), groups=32)")
    fc = nnq.Linear(1280, 1000)
    fc.scale, fc.zero_point = 0.125, 60
    assert repr(fc) == ("QuantizedLinear(in_features=1280, out_features=1000, scale=0.125, "
                        "zero_point=60, qscheme=ember.per_tensor_affine)")
    assert isinstance(fc.scale, float) and isinstance(fc.zero_point, int)


def random_qweight(shape, per_channel=False):
    w = torch.randn(*shape) * 0.3
    if per_channel:
        scales = w.abs().flatten(1).amax(1).double() / 127.5
        return torch.quantize_per_channel(w, scales, torch.zeros(shape[0], dtype=torch.long), 0,
                                          torch.qint8)
    return torch.quantize_per_tensor(w, float(w.abs().max()) / 127.5, 0, torch.qint8)


@pytest.mark.parametrize("per_channel", [False, True])
def test_state_dict_round_trip_and_identity(per_channel):
    tw = random_qweight((4, 2, 3, 3), per_channel)
    w, b = tensor_to_ember(tw), ember.randn(4)
    conv = nnq.Conv2d(2, 4, 3)
    conv.set_weight_bias(w, b)
    conv.scale, conv.zero_point = 0.3, 100
    assert conv.weight() is w and conv.weight() is conv.weight()
    packed = conv._packed_params
    sd = conv.state_dict()
    assert sd["weight"] is conv.weight()
    assert conv._packed_params is packed  # saving does not re-pack
    assert sd["scale"].dtype == ember.float32 and sd["scale"].dim() == 0
    assert sd["zero_point"].dtype == ember.int64 and sd["zero_point"].dim() == 0
    other = nnq.Conv2d(2, 4, 3)
    other.load_state_dict(sd)
    assert other._packed_params is not packed
    assert other.weight() is sd["weight"]
    assert other.scale == float(np.float32(0.3)) and other.zero_point == 100
    x = ember.quantize_per_tensor(ember.randn(1, 2, 6, 6), 0.05, 120, ember.quint8)
    assert ember.equal(other(x).int_repr(), conv(x).int_repr())

    fc = nnq.Linear(4, 3)
    fc.set_weight_bias(tensor_to_ember(random_qweight((3, 4), per_channel)), None)
    sd = fc.state_dict()
    pair = sd["_packed_params._packed_params"]
    # qnnpack packs a missing bias as zeros and gives those back, as torch's does
    assert isinstance(pair, tuple) and pair[0] is fc.weight()
    assert ember.equal(pair[1], ember.zeros(3))
    assert sd["_packed_params.dtype"] is ember.qint8
    before = fc._packed_params._packed_params
    back = nnq.Linear(4, 3)
    back.load_state_dict(sd)
    assert back.bias() is pair[1] and back.weight() is pair[0]
    # (weight, None) loads too (a state_dict packed under another engine)
    sd["_packed_params._packed_params"] = (pair[0], None)
    back.load_state_dict(sd)
    assert back.weight() is pair[0] and ember.equal(back.bias(), ember.zeros(3))
    assert fc._packed_params._packed_params is before
    assert back._packed_params._packed_params is not before


def test_linear_loads_old_layouts_and_honours_metadata():
    fc = nnq.Linear(4, 3)
    fc.set_weight_bias(tensor_to_ember(random_qweight((3, 4))), ember.randn(3))
    w, b = fc.weight(), fc.bias()
    v1 = {"scale": ember.tensor(0.5), "zero_point": ember.tensor(2), "weight": w, "bias": b}
    m = nnq.Linear(4, 3)
    m.load_state_dict(v1)  # no _metadata: version 1
    assert m.weight() is w and m.scale == 0.5 and m.zero_point == 2
    # A version-3 state_dict without its metadata reads as version 1, as torch's does.
    plain = dict(fc.state_dict())
    t = tnnq.Linear(4, 3)
    with pytest.raises(KeyError) as torch_err:
        t.load_state_dict(dict(t.state_dict()))
    with pytest.raises(KeyError) as ember_err:
        m.load_state_dict(plain)
    assert str(ember_err.value) == str(torch_err.value)
    # the failed load left m as it was
    assert m.weight() is w and m.scale == 0.5


def test_failed_load_leaves_the_model_unchanged():
    net = ember.nn.Sequential(nnq.Conv2d(2, 4, 3), nnq.Linear(4, 3))
    sd = net.state_dict()
    sd["0.scale"] = ember.tensor(0.75)
    del sd["1._packed_params._packed_params"]
    packed = net[0]._packed_params
    with pytest.raises(KeyError):
        net.load_state_dict(sd)
    assert net[0]._packed_params is packed and net[0].scale == 1.0


def test_deepcopy_and_pickle_repack():
    conv = nniq.ConvReLU2d(2, 4, 3, padding=1)
    conv.set_weight_bias(tensor_to_ember(random_qweight((4, 2, 3, 3))), ember.randn(4))
    conv.scale, conv.zero_point = 0.2, 3
    fc = nnq.Linear(4, 3)
    fc.set_weight_bias(tensor_to_ember(random_qweight((3, 4))), ember.randn(3))
    qf = nnq.QFunctional()
    qf.scale, qf.zero_point = 0.06, 125
    model = ember.nn.Sequential(conv, fc, qf)
    x = ember.quantize_per_tensor(ember.randn(1, 2, 4, 4), 0.05, 120, ember.quint8)
    for dup in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        assert repr(dup) == repr(model)
        assert dup[0]._packed_params is not conv._packed_params
        assert dup[1]._packed_params._packed_params is not fc._packed_params._packed_params
        assert ember.equal(dup[0](x).int_repr(), conv(x).int_repr())
        assert ember.equal(dup[0].weight().int_repr(), conv.weight().int_repr())
        assert dup[2].scale == 0.06 and dup[2].zero_point == 125
        assert list(dup.state_dict().keys()) == list(model.state_dict().keys())
    # deepcopy packs the same weight tensor again, as torch's __deepcopy__ does
    assert copy.deepcopy(conv).weight() is conv.weight()
    t = tnnq.Conv2d(2, 4, 3)
    assert copy.deepcopy(t).weight() is t.weight()


def test_errors_match_torch():
    cases = [
        (lambda q: q.Conv2d(3, 4, 3, groups=2), ValueError),
        (lambda q: q.Conv2d(3, 4, 3, padding_mode="circular"), ValueError),
        (lambda q: q.Linear(3, 4, dtype=(ember if q is nnq else torch).int32), RuntimeError),
        (lambda q: q.FloatFunctional()(1), RuntimeError),
        (lambda q: q.QFunctional()(1), RuntimeError),
    ]
    for build, kind in cases:
        with pytest.raises(kind) as t_err:
            build(tnnq)
        with pytest.raises(kind) as e_err:
            build(nnq)
        assert str(e_err.value) == str(t_err.value)
    for q, lib in ((nnq, ember), (tnnq, torch)):
        x = lib.quantize_per_tensor(lib.randn(2, 5, 5), 0.1, 0, lib.quint8)
        with pytest.raises(ValueError, match=r"Input shape must be `\(N, C, H, W\)`!"):
            q.Conv2d(2, 4, 3)(x)


class MyConv(nnq.Conv2d):
    def forward(self, x):
        self.calls = getattr(self, "calls", 0) + 1
        return super().forward(x)


def test_python_subclass_under_a_cpp_parent():
    conv = MyConv(2, 4, 3)
    assert conv._get_name() == "QuantizedConv2d" and repr(conv).startswith("QuantizedConv2d(")
    model = ember.nn.Sequential(conv, nnq.DeQuantize())
    x = ember.quantize_per_tensor(ember.randn(1, 2, 5, 5), 0.05, 120, ember.quint8)
    y = model(x)
    assert conv.calls == 1 and not y.is_quantized
    assert type(copy.deepcopy(model)[0]) is MyConv
    sd = model.state_dict()
    fresh = MyConv(2, 4, 3)
    fresh.load_state_dict({k[2:]: v for k, v in sd.items() if k.startswith("0.")})
    assert fresh.weight() is conv.weight()


def test_float_functional_observes_add_mul_cat_only():
    ff = nnq.FloatFunctional()
    seen = []
    ff.activation_post_process.register_forward_hook(lambda m, i, o: seen.append(o))
    a, b = ember.randn(3), ember.randn(3)
    assert ember.equal(ff.add_relu(a, b), ember.relu(a + b))
    ff.add(a, b), ff.mul(a, b), ff.cat([a, b], dim=0)
    ff.add_scalar(a, 2.0), ff.mul_scalar(a, 3)
    assert len(seen) == 4
    assert list(ff.state_dict().keys()) == []
    assert not hasattr(nnq.FXFloatFunctional(), "activation_post_process")
    with pytest.raises(RuntimeError, match="FloatFunctional is not intended to use the 'forward'"):
        ff(a)


def test_quantize_dequantize_values_match_torch():
    x = torch.randn(4, 5)
    t = tnnq.Quantize(0.0235, 128, torch.quint8)
    e = nnq.Quantize(0.0235, 128, ember.quint8)
    assert same_quantized(e(tensor_to_ember(x)), t(x))
    assert np.array_equal(nnq.DeQuantize()(e(tensor_to_ember(x))).numpy(),
                          tnnq.DeQuantize()(t(x)).numpy())
    assert e.scale.dtype == ember.float32 and e.scale.shape == (1,)
    assert e.zero_point.dtype == ember.int64 and e.dtype is ember.quint8


def test_dropout_is_identity_in_training():
    d = nnq.Dropout(0.5).train()
    x = ember.quantize_per_tensor(ember.randn(2, 3), 0.1, 3, ember.quint8)
    assert d(x) is x
