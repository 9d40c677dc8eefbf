"""nnq.Conv3d, ConvTranspose1d/2d/3d, nniq.ConvReLU3d, nnq.LeakyReLU / ELU / Sigmoid / Softmax
against torch 1.13: reprs, state_dict layout and metadata, loading torch's state_dict and
computing the same codes, from_float, copies, and the constructors' and forwards' errors."""
import copy
import pickle

import numpy as np
import pytest
import torch
import torch.nn.intrinsic.quantized as tnniq
import torch.nn.quantized as tnnq
from torch.ao.quantization import MinMaxObserver, QConfig, default_weight_observer

import ember
import ember.nn.intrinsic.quantized as nniq
import ember.nn.quantized as nnq
from qhelpers import assert_same, engine
from qmodules_util import (StandInObserver, StandInQConfig, state_dict_to_ember,
                           stand_in_from_torch, tensor_to_ember)

# (class name, module, constructor args, input shape, engine): onednn where torch's qnnpack
# cannot unpack a 3-d weight (its repr and state_dict fail), qnnpack where output padding is used.
CONVS = [
    ("Conv3d", "nnq", (4, 6, 3), dict(stride=2, padding=1), (2, 4, 5, 6, 5), "onednn"),
    ("Conv3d", "nnq", (4, 6, (1, 2, 3)), dict(groups=2, bias=False), (1, 4, 3, 4, 5), "onednn"),
    ("ConvReLU3d", "nniq", (4, 4, 3), dict(padding=1, dilation=(1, 2, 1)), (1, 4, 4, 6, 4),
     "onednn"),
    ("ConvTranspose1d", "nnq", (4, 6, 3), dict(stride=2, output_padding=1), (2, 4, 7), "qnnpack"),
    ("ConvTranspose2d", "nnq", (4, 6, 3), dict(stride=2, padding=1, output_padding=1, groups=2),
     (1, 4, 5, 6), "qnnpack"),
    ("ConvTranspose2d", "nnq", (4, 6, (2, 3)), dict(stride=(1, 2), bias=False), (2, 4, 3, 4),
     "onednn"),
    ("ConvTranspose3d", "nnq", (4, 2, 3), dict(stride=2, padding=1), (1, 4, 3, 3, 4), "onednn"),
]


def _mods(name, kind):
    return (getattr(nniq if kind == "nniq" else nnq, name),
            getattr(tnniq if kind == "nniq" else tnnq, name))


def _loaded_pair(case, seed=0):
    """A torch module with random weights and qparams, and the ember one loaded from its
    state_dict."""
    name, kind, args, kwargs, shape, eng = CONVS[case]
    ecls, tcls = _mods(name, kind)
    g = torch.Generator().manual_seed(seed)
    t = tcls(*args, **kwargs)
    w, b = t._weight_bias()
    wq = torch.quantize_per_tensor(torch.randn(w.shape, generator=g) * 0.2, 0.01, 0, torch.qint8)
    t.set_weight_bias(wq, None if b is None else torch.randn(b.shape, generator=g))
    t.scale, t.zero_point = 0.037, 61
    t.load_state_dict(t.state_dict())  # the scale as the state_dict keeps it (float32)
    e = ecls(*args, **kwargs)
    e.load_state_dict(state_dict_to_ember(t.state_dict()))
    return t, e


@pytest.mark.parametrize("case", range(len(CONVS)))
def test_conv_modules_match_torch(case):
    name, kind, args, kwargs, shape, eng = CONVS[case]
    with engine(eng):
        t, e = _loaded_pair(case)
        assert repr(e) == repr(t)
        assert e._get_name() == t._get_name()
        sd_e, sd_t = e.state_dict(), t.state_dict()
        assert list(sd_e) == list(sd_t)
        assert dict(sd_e._metadata) == dict(sd_t._metadata)
        for k in sd_t:
            if sd_t[k] is None:
                assert sd_e[k] is None
            elif sd_t[k].is_quantized:
                assert_same(sd_t[k], sd_e[k], check_layout=False)
            else:
                assert sd_e[k].dtype == getattr(ember, str(sd_t[k].dtype).split(".")[1])
                assert np.array_equal(sd_e[k].numpy(), sd_t[k].numpy())
        x = torch.quantize_per_tensor(torch.rand(shape, generator=torch.Generator().manual_seed(3))
                                      * 2 - 0.5, 0.02, 40, torch.quint8)
        ye, yt = e(tensor_to_ember(x)), t(x)
        a, b = ye.int_repr().numpy().astype(int), yt.int_repr().numpy().astype(int)
        if eng == "qnnpack":
            assert np.array_equal(a, b)
        else:
            assert np.abs(a - b).max() <= 1 and (a == b).mean() >= 0.999
        for attr in ("in_channels", "out_channels", "kernel_size", "stride", "padding",
                     "dilation", "output_padding", "groups", "transposed", "padding_mode"):
            assert getattr(e, attr) == getattr(t, attr), attr
        if name != "ConvTranspose1d":  # the 1-d weight is a new squeezed view each time
            assert e.weight() is e.weight()


@pytest.mark.parametrize("case", [0, 4])
def test_conv_module_copies(case):
    name, kind, args, kwargs, shape, eng = CONVS[case]
    with engine(eng):
        _, e = _loaded_pair(case, seed=4)
        x = ember.quantize_per_tensor(ember.rand(*shape), 0.02, 40, ember.quint8)
        y = e(x).int_repr().numpy()
        for c in (copy.deepcopy(e), pickle.loads(pickle.dumps(e))):
            assert repr(c) == repr(e)
            assert np.array_equal(c(x).int_repr().numpy(), y)
            assert c._packed_params is not e._packed_params


def test_conv_module_errors():
    with engine("qnnpack"):
        with pytest.raises(AssertionError, match="Conv3d does not support reflection padding"):
            nnq.Conv3d(2, 2, 3, padding_mode="reflect")
        for cls in (nnq.ConvTranspose1d, nnq.ConvTranspose2d, nnq.ConvTranspose3d):
            with pytest.raises(ValueError) as ee:
                cls(2, 2, 3, padding_mode="reflect")
            with pytest.raises(ValueError) as te:
                getattr(tnnq, cls.__name__)(2, 2, 3, padding_mode="reflect")
            assert str(ee.value) == str(te.value)
        with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
            nnq.Conv3d(3, 4, 1, groups=2)
        for cls, shape in ((nnq.Conv3d, (1, 2, 3, 3)), (nnq.ConvTranspose1d, (1, 2, 3, 3)),
                           (nnq.ConvTranspose2d, (1, 2, 3)), (nnq.ConvTranspose3d, (2, 3, 3, 3))):
            m, tm = cls(2, 2, 1), getattr(tnnq, cls.__name__)(2, 2, 1)
            xe = ember.quantize_per_tensor(ember.rand(*shape), 0.1, 0, ember.quint8)
            xt = torch.quantize_per_tensor(torch.rand(*shape), 0.1, 0, torch.quint8)
            with pytest.raises(ValueError) as ee:
                m(xe)
            with pytest.raises(ValueError) as te:
                tm(xt)
            assert str(ee.value) == str(te.value)


def test_conv_transpose_from_float():
    with engine("qnnpack"):
        torch.manual_seed(0)
        tf = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
        ef = ember.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
        ef.weight.data.copy_(ember.from_numpy(tf.weight.detach().numpy().copy()))
        ef.bias.data.copy_(ember.from_numpy(tf.bias.detach().numpy().copy()))
        act = MinMaxObserver()
        act(torch.randn(10) * 3)
        tf.qconfig = QConfig(activation=MinMaxObserver, weight=default_weight_observer)
        tf.activation_post_process = act
        wobs = default_weight_observer()
        wobs(tf.weight)
        ef.qconfig = StandInQConfig(stand_in_from_torch(wobs))
        ef.activation_post_process = stand_in_from_torch(act, dtype=ember.quint8)
        qt, qe = tnnq.ConvTranspose2d.from_float(tf), nnq.ConvTranspose2d.from_float(ef)
        assert repr(qe) == repr(qt)
        assert_same(qt.weight(), qe.weight(), check_layout=False)
        x = torch.quantize_per_tensor(torch.rand(1, 4, 5, 5), 0.02, 10, torch.quint8)
        assert_same(qt(x), qe(tensor_to_ember(x)))
        with pytest.raises(AssertionError, match="nnq.ConvTranspose2d.from_float only works "
                                                 "for ConvTranspose2d"):
            nnq.ConvTranspose2d.from_float(ember.nn.Conv2d(2, 2, 1))


ACTS = [
    ("LeakyReLU", (0.05, 120), {}, "qnnpack"),
    ("LeakyReLU", (0.05, 120, 0.3, True), {}, "onednn"),
    ("ELU", (0.03, 90, 0.7), {}, "qnnpack"),
    ("Sigmoid", (1.0 / 256, 0), {}, "qnnpack"),
    ("Sigmoid", (0.01, 20), {}, "onednn"),
    ("Softmax", (), dict(dim=1, scale=1.0 / 256, zero_point=0), "qnnpack"),
    ("Softmax", (), dict(dim=-1, scale=0.003, zero_point=5), "onednn"),
]


@pytest.mark.filterwarnings("ignore:inplace=True is not supported")
@pytest.mark.parametrize("case", range(len(ACTS)))
def test_activation_modules_match_torch(case):
    name, args, kwargs, eng = ACTS[case]
    with engine(eng):
        e, t = getattr(nnq, name)(*args, **kwargs), getattr(tnnq, name)(*args, **kwargs)
        assert repr(e) == repr(t)
        sd_e, sd_t = e.state_dict(), t.state_dict()
        assert list(sd_e) == list(sd_t) and dict(sd_e._metadata) == dict(sd_t._metadata)
        for k in sd_t:
            assert np.array_equal(sd_e[k].numpy(), sd_t[k].numpy())
            assert str(sd_e[k].dtype).split(".")[1] == str(sd_t[k].dtype).split(".")[1]
        x = torch.quantize_per_tensor(torch.randn(2, 3, 70) * 2, 0.05, 128, torch.quint8)
        assert_same(t(x), e(tensor_to_ember(x)))
        c = copy.deepcopy(e)
        assert repr(c) == repr(e)
        assert_same(t(x), c(tensor_to_ember(x)))


def test_softmax_without_dim_warns_as_torch():
    e, t = nnq.Softmax(), tnnq.Softmax()
    for shape in ((4, 5), (2, 3, 4), (2, 3, 4, 5)):
        x = torch.quantize_per_tensor(torch.randn(shape), 0.1, 100, torch.quint8)
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            ye = e(tensor_to_ember(x))
        with pytest.warns(UserWarning):
            yt = t(x)
        assert_same(yt, ye)


def test_activation_from_float():
    act = MinMaxObserver()
    act(torch.randn(20) * 4)
    obs = stand_in_from_torch(act, dtype=ember.quint8)

    class Float(ember.nn.Module):
        pass
    f = Float()
    f.activation_post_process = obs
    f.negative_slope, f.inplace, f.alpha, f.dim = 0.2, False, 0.5, 1
    s, z = act.calculate_qparams()
    assert repr(nnq.LeakyReLU.from_float(f)) == "QuantizedLeakyReLU(negative_slope=0.2)"
    m = nnq.LeakyReLU.from_float(f)
    assert float(m.scale) == float(s) and int(m.zero_point) == int(z)
    e = nnq.ELU.from_float(f)
    assert (e.scale, e.zero_point, e.alpha) == (float(s), int(z), 0.5)
    sg = nnq.Sigmoid.from_float(f)
    assert (sg.output_scale, sg.output_zero_point) == (float(s), int(z))
    sm = nnq.Softmax.from_float(f)
    assert (sm.dim, sm.scale, sm.zero_point) == (1, float(s), int(z))


def test_elu_needs_quantized_input():
    with pytest.raises(ValueError, match="Input to 'quantized.elu' must be quantized!"):
        nnq.ELU(0.1, 0)(ember.zeros(3))


def test_exports():
    import ember.ao.nn.intrinsic.quantized as aoniq
    import ember.ao.nn.quantized as aonnq
    for n in ("Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LeakyReLU",
              "ELU", "Sigmoid", "Softmax"):
        assert getattr(nnq, n) is getattr(aonnq, n) and n in aonnq.__all__
    assert nniq.ConvReLU3d is aoniq.ConvReLU3d and issubclass(nniq.ConvReLU3d, nnq.Conv3d)


# ---- normalisation modules ----
def _params(n, seed):
    g = torch.Generator().manual_seed(seed)
    w, b = torch.randn(n, generator=g), torch.randn(n, generator=g)
    return (torch.nn.Parameter(w), torch.nn.Parameter(b),
            ember.nn.Parameter(tensor_to_ember(w)), ember.nn.Parameter(tensor_to_ember(b)))


NORMS = [
    ("LayerNorm", lambda lib, w, b: lib.LayerNorm([5, 6], w, b, 0.04, 100), (2, 3, 5, 6), 30),
    ("LayerNorm", lambda lib, w, b: lib.LayerNorm(6, None, None, 0.04, 100,
                                                  elementwise_affine=False), (4, 6), 6),
    ("GroupNorm", lambda lib, w, b: lib.GroupNorm(2, 4, w, b, 0.05, 90, eps=1e-3), (2, 4, 5, 3), 4),
    ("InstanceNorm1d", lambda lib, w, b: lib.InstanceNorm1d(4, w, b, 0.05, 90), (2, 4, 9), 4),
    ("InstanceNorm2d", lambda lib, w, b: lib.InstanceNorm2d(4, w, b, 0.05, 90, affine=True),
     (2, 4, 3, 5), 4),
    ("InstanceNorm3d", lambda lib, w, b: lib.InstanceNorm3d(4, None, None, 0.05, 90),
     (1, 4, 3, 2, 5), 4),
]


@pytest.mark.parametrize("case", range(len(NORMS)))
def test_norm_modules_match_torch(case):
    name, make, shape, n = NORMS[case]
    tw, tb, ew, eb = _params(n, case)
    if case == 0:
        tw, tb = torch.nn.Parameter(tw.reshape(5, 6)), torch.nn.Parameter(tb.reshape(5, 6))
        ew, eb = ember.nn.Parameter(ew.reshape(5, 6)), ember.nn.Parameter(eb.reshape(5, 6))
    t, e = make(tnnq, tw, tb), make(nnq, ew, eb)
    assert repr(e) == repr(t)
    sd_e, sd_t = e.state_dict(), t.state_dict()
    assert list(sd_e) == list(sd_t) and dict(sd_e._metadata) == dict(sd_t._metadata)
    for k in sd_t:
        assert np.array_equal(sd_e[k].numpy(), sd_t[k].numpy()), k
    if sd_t.get("weight") is not None:
        assert e.weight is ew
    x = torch.quantize_per_tensor(torch.randn(shape) * 2, 0.05, 128, torch.quint8)
    assert_same(t(x), e(tensor_to_ember(x)))
    c = copy.deepcopy(e)
    assert repr(c) == repr(e)
    assert_same(t(x), c(tensor_to_ember(x)))
    fresh = make(nnq, ew, eb)
    fresh.load_state_dict(state_dict_to_ember(sd_t))
    assert_same(t(x), fresh(tensor_to_ember(x)))


@pytest.mark.parametrize("relu", [False, True])
def test_batch_norm3d_modules(relu):
    tcls = tnniq.BNReLU3d if relu else tnnq.BatchNorm3d
    ecls = nniq.BNReLU3d if relu else nnq.BatchNorm3d
    t, e = tcls(4), ecls(4)
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        t.weight.copy_(torch.randn(4, generator=g))
        t.bias.copy_(torch.randn(4, generator=g))
        t.running_mean.copy_(torch.randn(4, generator=g))
        t.running_var.copy_(torch.rand(4, generator=g) + 0.5)
    t.scale = torch.tensor(0.03)
    t.zero_point = torch.tensor(60)
    e.load_state_dict(state_dict_to_ember(t.state_dict()))
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    assert dict(e.state_dict()._metadata) == dict(t.state_dict()._metadata)
    x = torch.quantize_per_tensor(torch.randn(2, 4, 3, 2, 3), 0.05, 128, torch.quint8)
    assert_same(t(x), e(tensor_to_ember(x)))
    x4 = torch.quantize_per_tensor(torch.randn(2, 4, 3), 0.05, 128, torch.quint8)
    with pytest.raises(Exception) as te:
        t(x4)
    with pytest.raises(Exception) as ee:
        e(tensor_to_ember(x4))
    assert type(ee.value).__name__ == type(te.value).__name__
    assert str(ee.value).split("\n")[0] == str(te.value).split("\n")[0]


def test_norm_from_float():
    act = MinMaxObserver()
    act(torch.randn(20) * 4)
    s, z = act.calculate_qparams()
    obs = stand_in_from_torch(act, dtype=ember.quint8)
    ln = ember.nn.LayerNorm([6])
    ln.activation_post_process = obs
    q = nnq.LayerNorm.from_float(ln)
    assert q.weight is ln.weight and float(q.scale) == float(s) and int(q.zero_point) == int(z)
    assert repr(q) == "QuantizedLayerNorm((6,), eps=1e-05, elementwise_affine=True)"
    gn = ember.nn.GroupNorm(2, 4)
    gn.activation_post_process = obs
    assert repr(nnq.GroupNorm.from_float(gn)) == "QuantizedGroupNorm(2, 4, eps=1e-05, affine=True)"
    bn = ember.nn.BatchNorm3d(4)
    bn.activation_post_process = obs
    qb = nnq.BatchNorm3d.from_float(bn)
    assert qb.running_var is bn.running_var and float(qb.scale) == float(s)
