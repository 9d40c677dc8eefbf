"""QConfigs against torch 1.13: the predefined ones (same classes and arguments, reprs), the
backend choices, validation errors, qconfig_equals; C++-made qconfigs seen from Python."""
import warnings

import pytest
import torch
import torch.ao.quantization as tq

import ember
import ember.ao.quantization as eq
import ember.quantization


def ember_repr(obj):
    return repr(obj).replace("<class 'torch.nn.modules.linear.Identity'>", repr(ember.nn.Identity)).replace(
        "torch.", "ember.")


NAMES = ["default_qconfig", "default_debug_qconfig", "default_per_channel_qconfig", "default_dynamic_qconfig",
         "float16_dynamic_qconfig", "float16_static_qconfig", "per_channel_dynamic_qconfig",
         "float_qparams_weight_only_qconfig", "default_qat_qconfig", "default_weight_only_qconfig",
         "default_activation_only_qconfig", "default_qat_qconfig_v2", "default_dynamic_qat_qconfig",
         "default_symmetric_qnnpack_qconfig", "default_per_channel_symmetric_qnnpack_qconfig",
         "default_symmetric_qnnpack_qat_qconfig", "default_per_channel_symmetric_qnnpack_qat_qconfig"]


def describe(module):
    """What an observer / fake quantize is, independent of the library."""
    out = [type(module).__name__]
    for attr in ("dtype", "qscheme", "quant_min", "quant_max", "reduce_range", "ch_axis", "averaging_constant",
                 "compute_dtype", "bins"):
        if hasattr(module, attr):
            v = getattr(module, attr)
            v = float(v) if attr == "averaging_constant" else v  # a C++ double in ember
            out.append((attr, str(v).replace("torch.", "").replace("ember.", "")))
    if hasattr(module, "eps") and isinstance(module.eps, (torch.Tensor, ember.Tensor)):
        out.append(("eps", module.eps.item()))
    if hasattr(module, "activation_post_process"):
        out.append(describe(module.activation_post_process))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_predefined_qconfigs_make_torchs_modules(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, e = getattr(tq, name), getattr(eq, name)
        assert type(e) is eq.QConfig
        assert describe(e.activation()) == describe(t.activation())
        assert describe(e.weight()) == describe(t.weight())
        assert repr(e) == ember_repr(t)


@pytest.mark.parametrize("backend", ["x86", "fbgemm", "qnnpack", "onednn", "unknown"])
@pytest.mark.parametrize("fn,version", [("get_default_qconfig", 0), ("get_default_qat_qconfig", 0),
                                        ("get_default_qat_qconfig", 1)])
def test_backend_choices(backend, fn, version):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = getattr(tq, fn)(backend, version)
        e = getattr(eq, fn)(backend, version)
        assert describe(e.activation()) == describe(t.activation())
        assert describe(e.weight()) == describe(t.weight())
        assert ember_repr(t) == repr(e)
        # The C++ defaults choose the same.
        c = getattr(ember._C._quantization, "_cpp_" + fn)(backend, version)
        assert describe(c.activation()) == describe(t.activation())
        assert describe(c.weight()) == describe(t.weight())


def test_defaults_and_version_errors():
    assert eq.get_default_qconfig() is not None
    for mod in (tq, eq):
        with pytest.raises(AssertionError, match="^Version number: 1 in get_default_qconfig is not supported. "
                                                 "Version number must be 0$"):
            mod.get_default_qconfig("qnnpack", 1)
        with pytest.raises(AssertionError, match="^Version number: 2in get_default_qat_qconfig is not supported"):
            mod.get_default_qat_qconfig("qnnpack", 2)
        assert mod.get_default_qconfig("bogus") is mod.default_qconfig
        assert mod.get_default_qat_qconfig("bogus") is mod.default_qat_qconfig_v2
    with pytest.raises(AssertionError):
        ember._C._quantization._cpp_get_default_qconfig("qnnpack", 1)


def test_qconfig_validation():
    for lib, mod in ((torch, tq), (ember, eq)):
        with pytest.raises(ValueError) as ex:
            mod.QConfig(activation=mod.MinMaxObserver(), weight=mod.default_weight_observer)
        assert str(ex.value) == ("QConfig received observer instance, please pass observer class instead. "
                                 "Use MyObserver.with_args(x=1) to override arguments to constructor if needed")
        with pytest.warns(UserWarning, match="QConfigDynamic is going to be deprecated"):
            d = mod.QConfigDynamic(weight=mod.default_weight_observer)
        assert d.activation is lib.nn.Identity
        with pytest.raises(ValueError, match="QConfigDynamic received observer instance"):
            mod.QConfigDynamic(weight=mod.MinMaxObserver())


def test_qconfig_equals():
    assert eq.qconfig_equals(eq.default_qconfig, eq.QConfig(
        activation=eq.MinMaxObserver.with_args(quant_min=0, quant_max=127),
        weight=eq.MinMaxObserver.with_args(dtype=ember.qint8, qscheme=ember.per_tensor_symmetric)))
    assert not eq.qconfig_equals(eq.default_qconfig, eq.default_per_channel_qconfig)
    assert eq.qconfig_equals(eq.get_default_qat_qconfig("qnnpack"), eq.get_default_qat_qconfig("qnnpack"))
    assert eq.qconfig_equals(None, None) and not eq.qconfig_equals(None, eq.default_qconfig)
    assert eq.activation_is_memoryless(eq.default_dynamic_qat_qconfig)
    assert not eq.activation_is_memoryless(eq.default_qat_qconfig)


def test_cpp_made_qconfig_in_python():
    c = ember._C._quantization._cpp_get_default_qconfig("qnnpack", 0)
    m = ember.nn.Linear(2, 2)
    m.qconfig = c
    assert m.qconfig is c  # a Python QConfig now: its identity is kept
    obs = c.activation()
    assert isinstance(obs, eq.HistogramObserver) and obs.quant_max == 255


def test_alias_package_and_exports():
    import ember.quantization.observer as ob
    import ember.quantization.fake_quantize as fq
    import ember.quantization.qconfig as qc
    assert ob is eq.observer and fq is eq.fake_quantize and qc is eq.qconfig
    assert ember.quantization.default_qconfig is eq.default_qconfig
    assert ember.quantization.MinMaxObserver is eq.MinMaxObserver
    names = set(dir(tq))
    for name in ("QConfig", "QConfigDynamic", "default_qconfig", "get_default_qconfig", "get_default_qat_qconfig",
                 "MinMaxObserver", "HistogramObserver", "FakeQuantize", "FusedMovingAvgObsFakeQuantize",
                 "default_fake_quant", "enable_observer", "disable_fake_quant", "qconfig_equals",
                 "default_placeholder_observer", "default_debug_observer", "default_float_qparams_observer",
                 "get_observer_state_dict", "load_observer_state_dict", "FixedQParamsFakeQuantize"):
        assert name in names and hasattr(eq, name), name


@pytest.mark.parametrize("backend", ["qnnpack", "fbgemm"])
@pytest.mark.parametrize("qat", [False, True])
def test_default_qconfig_dict_like_torch(backend, qat):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = "get_default_qat_qconfig_dict" if qat else "get_default_qconfig_dict"
        t, e = getattr(tq, fn)(backend), getattr(eq, fn)(backend)
    assert list(e) == list(t)
    assert repr(e[""]) == ember_repr(t[""])

    def key(op):
        return op if isinstance(op, str) else op.__name__

    torch_types = {key(op): q for op, q in t["object_type"]}
    for op, q in e["object_type"]:
        assert describe(q.activation()) == describe(torch_types[key(op)].activation()), op
        assert describe(q.weight()) == describe(torch_types[key(op)].weight()), op


def test_utils_like_torch():
    from ember.ao.quantization import utils as eu
    from torch.ao.quantization import utils as tu
    for name in ("default_qconfig", "default_dynamic_qconfig", "float16_dynamic_qconfig", "default_qat_qconfig",
                 "float_qparams_weight_only_qconfig"):
        t, e = getattr(tq, name), getattr(eq, name)
        assert int(eu.get_quant_type(e)) == int(tu.get_quant_type(t))
        for fn in ("activation_is_statically_quantized", "activation_is_dynamically_quantized",
                   "weight_is_quantized", "weight_is_statically_quantized", "op_is_int8_dynamically_quantized"):
            assert getattr(eu, fn)(e) == getattr(tu, fn)(t), (name, fn)
    for args in ((0, 127, True, "quint8", True), (None, None, False, "qint8", True), (-127, 127, True, "qint8", False)):
        assert eu.calculate_qmin_qmax(*args[:3], getattr(ember, args[3]), args[4]) == \
            tu.calculate_qmin_qmax(*args[:3], getattr(torch, args[3]), args[4])
    o = eq.default_per_channel_weight_observer()
    o(ember.tensor([[1.0, -2.0], [3.0, 0.5]]))
    d = eu.get_qparam_dict(o)
    assert d["qscheme"] is ember.per_channel_affine and d["axis"] == 0 and d["dtype"] is ember.qint8
    assert eu._parent_name("a.b.c") == ("a.b", "c")
