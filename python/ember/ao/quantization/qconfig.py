"""ember.ao.quantization.qconfig: torch 1.13's QConfig namedtuples and the default qconfigs.

A QConfig set on a module (``m.qconfig = q``) lives in the C++ module's qconfig slot (Note [The
qconfig slot]): C++ (prepare, the QAT modules) calls its factories, and ``m.qconfig is q``.
"""
from collections import namedtuple
import copy
from typing import Any, Optional
import warnings

import ember
import ember.nn as nn
from .fake_quantize import (
    FakeQuantize,
    FakeQuantizeBase,
    default_fake_quant,
    default_dynamic_fake_quant,
    default_per_channel_weight_fake_quant,
    default_weight_fake_quant,
    default_fused_act_fake_quant,
    default_fused_wt_fake_quant,
    FusedMovingAvgObsFakeQuantize,
    default_fused_per_channel_wt_fake_quant,
    default_embedding_fake_quant,
    default_embedding_fake_quant_4bit,
    fused_wt_fake_quant_range_neg_127_to_127,
    fused_per_channel_wt_fake_quant_range_neg_127_to_127,
)
from .observer import (
    _PartialWrapper,
    HistogramObserver,
    MovingAverageMinMaxObserver,
    NoopObserver,
    PlaceholderObserver,
    default_debug_observer,
    default_dynamic_quant_observer,
    default_float_qparams_observer,
    default_float_qparams_observer_4bit,
    default_observer,
    default_per_channel_weight_observer,
    default_placeholder_observer,
    default_weight_observer,
    weight_observer_range_neg_127_to_127,
    per_channel_weight_observer_range_neg_127_to_127,
    ObserverBase,
    ReuseInputObserver,
    default_reuse_input_observer,
    default_fixed_qparams_range_0to1_observer,
    default_fixed_qparams_range_neg1to1_observer,
)
from .fake_quantize import FixedQParamsFakeQuantize

__all__ = [
    "QConfig",
    "QConfigDynamic",
    "default_qconfig",
    "default_debug_qconfig",
    "default_per_channel_qconfig",
    "default_dynamic_qconfig",
    "float16_dynamic_qconfig",
    "float16_static_qconfig",
    "per_channel_dynamic_qconfig",
    "float_qparams_weight_only_qconfig",
    "float_qparams_weight_only_qconfig_4bit",
    "default_qat_qconfig",
    "default_dynamic_qat_qconfig",
    "default_weight_only_qconfig",
    "default_activation_only_qconfig",
    "default_qat_qconfig_v2",
    "default_symmetric_qnnpack_qconfig",
    "default_per_channel_symmetric_qnnpack_qconfig",
    "default_symmetric_qnnpack_qat_qconfig",
    "default_per_channel_symmetric_qnnpack_qat_qconfig",
    "default_embedding_qat_qconfig",
    "default_embedding_qat_qconfig_4bit",
    "get_default_qconfig",
    "get_default_qat_qconfig",
    "get_default_qconfig_dict",
    "get_default_qat_qconfig_dict",
    "default_reuse_input_qconfig",
    "is_reuse_input_qconfig",
    "assert_valid_qconfig",
    "add_module_to_qconfig_obs_ctr",
    "QConfigAny",
    "obs_or_fq_ctr_equals",
    "qconfig_equals",
    "activation_is_memoryless",
]


class QConfig(namedtuple('QConfig', ['activation', 'weight'])):
    """Describes how to quantize a layer or a part of the network by providing settings
    (observer classes, or callables that make observers) for activations and weights."""

    def __new__(cls, activation, weight):
        # catch common mistakes
        if isinstance(activation, nn.Module) or isinstance(weight, nn.Module):
            raise ValueError("QConfig received observer instance, please pass observer class instead. " +
                             "Use MyObserver.with_args(x=1) to override arguments to constructor if needed")
        return super(QConfig, cls).__new__(cls, activation, weight)


class QConfigDynamic(namedtuple('QConfigDynamic', ['activation', 'weight'])):
    """Like QConfig, for dynamic quantization (deprecated in torch 1.12)."""

    def __new__(cls, activation=ember.nn.Identity, weight=ember.nn.Identity):
        # catch common mistakes
        if isinstance(weight, nn.Module):
            raise ValueError("QConfigDynamic received observer instance, please pass observer class instead. " +
                             "Use MyObserver.with_args(x=1) to override arguments to constructor if needed")
        warnings.warn("QConfigDynamic is going to be deprecated in PyTorch 1.12, please use QConfig instead")
        return super(QConfigDynamic, cls).__new__(cls, activation, weight)


default_qconfig = QConfig(activation=default_observer,
                          weight=default_weight_observer)
"""Default qconfig configuration."""

default_debug_qconfig = QConfig(weight=default_weight_observer,
                                activation=default_debug_observer)
default_per_channel_qconfig = QConfig(activation=default_observer,
                                      weight=default_per_channel_weight_observer)
default_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer,
                                  weight=default_weight_observer)
float16_dynamic_qconfig = QConfig(activation=PlaceholderObserver.with_args(dtype=ember.float16,
                                                                           compute_dtype=ember.float16),
                                  weight=PlaceholderObserver.with_args(dtype=ember.float16))
float16_static_qconfig = QConfig(activation=PlaceholderObserver.with_args(dtype=ember.float16),
                                 weight=PlaceholderObserver.with_args(dtype=ember.float16))
per_channel_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer,
                                      weight=default_per_channel_weight_observer)
float_qparams_weight_only_qconfig = QConfig(
    activation=default_placeholder_observer,
    weight=default_float_qparams_observer)
float_qparams_weight_only_qconfig_4bit = QConfig(
    activation=default_placeholder_observer,
    weight=default_float_qparams_observer_4bit)
default_qat_qconfig = QConfig(activation=default_fake_quant,
                              weight=default_weight_fake_quant)
default_dynamic_qat_qconfig = QConfig(activation=default_dynamic_fake_quant,
                                      weight=default_weight_fake_quant)
default_weight_only_qconfig = QConfig(activation=ember.nn.Identity,
                                      weight=default_weight_fake_quant)
default_activation_only_qconfig = QConfig(activation=default_fake_quant,
                                          weight=ember.nn.Identity)
default_reuse_input_qconfig = QConfig(activation=default_reuse_input_observer,
                                      weight=NoopObserver)
# QAT config that uses a fused observer + fake quant modules for optimized training performance.
default_qat_qconfig_v2 = QConfig(activation=default_fused_act_fake_quant, weight=default_fused_wt_fake_quant)


# torch 1.13's per-backend recipes, one row each: the activation observers' reduce_range and
# whether weights are observed per channel. (torch's onednn QAT recipes leave reduce_range out of
# the fake-quantize arguments; qconfig_equals compares those arguments, so that is kept.)
_BACKEND_RECIPES = {
    'fbgemm': (True, True),
    'qnnpack': (False, False),
    'onednn': (False, True),
    'x86': (True, True),
}


def get_default_qconfig(backend='fbgemm', version=0):
    """Returns the default PTQ qconfig for the specified backend (`x86`, `fbgemm` (default),
    `qnnpack` or `onednn`; any other name: default_qconfig)."""
    if version != 0:
        raise AssertionError("Version number: " + str(version) +
                             " in get_default_qconfig is not supported. Version number must be 0")
    if backend not in _BACKEND_RECIPES:
        return default_qconfig
    reduce_range, per_channel = _BACKEND_RECIPES[backend]
    return QConfig(activation=HistogramObserver.with_args(reduce_range=reduce_range),
                   weight=default_per_channel_weight_observer if per_channel else default_weight_observer)


default_symmetric_qnnpack_qconfig = QConfig(activation=HistogramObserver.with_args(dtype=ember.qint8,
                                                                                   reduce_range=False,
                                                                                   eps=2 ** -12),
                                            weight=weight_observer_range_neg_127_to_127)
default_per_channel_symmetric_qnnpack_qconfig = QConfig(activation=HistogramObserver.with_args(dtype=ember.qint8,
                                                                                               reduce_range=False,
                                                                                               eps=2 ** -12),
                                                        weight=per_channel_weight_observer_range_neg_127_to_127)
default_embedding_qat_qconfig = QConfig(activation=NoopObserver.with_args(dtype=ember.float32),
                                        weight=default_embedding_fake_quant)
default_embedding_qat_qconfig_4bit = QConfig(activation=NoopObserver.with_args(dtype=ember.float32),
                                             weight=default_embedding_fake_quant_4bit)


def get_default_qat_qconfig(backend='fbgemm', version=1):
    """Returns the default QAT qconfig for the specified backend (`x86`, `fbgemm` (default),
    `qnnpack` or `onednn`); version 1 (default) uses the fused observer + fake-quant modules."""
    # Histogram observer is too slow for quantization aware training
    if version not in (0, 1):
        raise AssertionError("Version number: " + str(version) +
                             "in get_default_qat_qconfig is not supported. Version number must be 0 or 1")
    if backend not in _BACKEND_RECIPES:
        return default_qat_qconfig if version == 0 else default_qat_qconfig_v2
    reduce_range, per_channel = _BACKEND_RECIPES[backend]
    kwargs = dict(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255)
    if backend != 'onednn':
        kwargs['reduce_range'] = reduce_range
    if version == 0:
        weight = default_per_channel_weight_fake_quant if per_channel else default_weight_fake_quant
        return QConfig(activation=FakeQuantize.with_args(**kwargs), weight=weight)
    # Use the fused observe + fake_quant modules for doing QAT.
    weight = default_fused_per_channel_wt_fake_quant if per_channel else default_fused_wt_fake_quant
    return QConfig(activation=FusedMovingAvgObsFakeQuantize.with_args(**kwargs), weight=weight)


default_symmetric_qnnpack_qat_qconfig = QConfig(
    activation=FusedMovingAvgObsFakeQuantize.with_args(observer=MovingAverageMinMaxObserver,
                                                       quant_min=-128,
                                                       quant_max=127,
                                                       dtype=ember.qint8,
                                                       reduce_range=False,
                                                       eps=2 ** -12),
    weight=fused_wt_fake_quant_range_neg_127_to_127)
default_per_channel_symmetric_qnnpack_qat_qconfig = QConfig(
    activation=FusedMovingAvgObsFakeQuantize.with_args(observer=MovingAverageMinMaxObserver,
                                                       quant_min=-128,
                                                       quant_max=127,
                                                       dtype=ember.qint8,
                                                       reduce_range=False,
                                                       eps=2 ** -12),
    weight=fused_per_channel_wt_fake_quant_range_neg_127_to_127)


def assert_valid_qconfig(qconfig: Optional[QConfig], mod: ember.nn.Module) -> None:
    """Verifies that this `qconfig` is valid (no per-channel weight observer for ConvTranspose)."""
    if qconfig is None:
        return
    conv_transposes = tuple(getattr(ember.nn, n) for n in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
                            if hasattr(ember.nn, n))
    if conv_transposes and isinstance(mod, conv_transposes):
        if qconfig.weight is None:
            return
        example_observer = qconfig.weight()
        from .observer import PerChannelMinMaxObserver, MovingAveragePerChannelMinMaxObserver
        is_per_channel = isinstance(example_observer, (PerChannelMinMaxObserver, MovingAveragePerChannelMinMaxObserver))
        assert not is_per_channel, \
            'Per channel weight observer is not supported yet for ConvTranspose{n}d.'


QConfigAny = Optional[QConfig]


def add_module_to_qconfig_obs_ctr(qconfig: QConfigAny, module: Optional[nn.Module]) -> Any:
    r"""torch's helper for prepare: a qconfig whose constructors make observers on `module`'s
    device (ember runs on the CPU, so the observers pass factory_kwargs=None or the device)."""
    if module is None or qconfig is None or qconfig._fields != ('activation', 'weight'):
        return qconfig

    def get_factory_kwargs_based_on_module_device():
        assert isinstance(module, ember.nn.Module)
        devices = {p.device for p in module.parameters()} | {p.device for p in module.buffers()}
        device = next(iter(devices)) if len(devices) > 0 else None
        return None if device is None else {'device': device}

    def configure_constructor_to_put_obs_on_module_device(original_constructor):
        try:
            # check if constructor can accept factory_kwargs
            check = original_constructor.with_args(factory_kwargs=None)
            check()
            return original_constructor.with_callable_args(factory_kwargs=get_factory_kwargs_based_on_module_device)
        except AttributeError:  # qconfig doesn't have activation or weight
            return original_constructor
        except TypeError:  # the class doesn't accept factory_kwargs argument
            return original_constructor

    activation = configure_constructor_to_put_obs_on_module_device(qconfig.activation)
    weight = configure_constructor_to_put_obs_on_module_device(qconfig.weight)
    return QConfig(activation, weight)


def obs_or_fq_ctr_equals(obs_or_fq1, obs_or_fq2):
    if isinstance(obs_or_fq1, _PartialWrapper) and isinstance(obs_or_fq2, _PartialWrapper):
        return _partial_wrapper_equals(obs_or_fq1, obs_or_fq2)
    return obs_or_fq1 == obs_or_fq2


def _partial_wrapper_equals(obs_or_fq1: _PartialWrapper, obs_or_fq2: _PartialWrapper):
    """Return whether the two partial wrappers are equal."""
    # functools.partial has no __eq__ operator defined so '==' defaults to 'is'
    obs_or_fq1_keywords = copy.copy(obs_or_fq1.p.keywords)
    obs_or_fq2_keywords = copy.copy(obs_or_fq2.p.keywords)
    keywords_equal = True
    # compare observer constructor with obs_or_fq_ctr_equals since direct compare would fail
    if "observer" in obs_or_fq1_keywords and "observer" in obs_or_fq2_keywords:
        keywords_equal = keywords_equal and obs_or_fq_ctr_equals(obs_or_fq1_keywords["observer"],
                                                                 obs_or_fq2_keywords["observer"])
        obs_or_fq1_keywords.pop("observer")
        obs_or_fq2_keywords.pop("observer")
    keywords_equal = keywords_equal and obs_or_fq1_keywords == obs_or_fq2_keywords
    return obs_or_fq1.p.func == obs_or_fq2.p.func and obs_or_fq1.p.args == obs_or_fq2.p.args and keywords_equal


def qconfig_equals(q1: QConfigAny, q2: QConfigAny):
    """Returns `True` if `q1` equals `q2`, and `False` otherwise."""
    if q1 is None or q2 is None:
        return q1 == q2
    else:
        assert q1 is not None and q2 is not None
        try:
            # Qconfig weight and activation can be either a partial wrapper,
            # or an observer class. Special handling is required (above) for
            # comparing partial wrappers.
            activation_same = obs_or_fq_ctr_equals(q1.activation, q2.activation)
            weight_same = obs_or_fq_ctr_equals(q1.weight, q2.weight)
            return activation_same and weight_same
        except AttributeError:
            return q1 == q2


def activation_is_memoryless(qconfig: QConfig):
    """Whether the activation observer of `qconfig` is memoryless (a moving-average observer
    with averaging constant 1)."""
    def _is_memoryless(observer):
        return hasattr(observer, "averaging_constant") and observer.averaging_constant == 1
    act = qconfig.activation()
    if isinstance(act, FakeQuantizeBase) and hasattr(act, "activation_post_process"):
        return _is_memoryless(act.activation_post_process)
    else:
        return _is_memoryless(act)


def is_reuse_input_qconfig(qconfig: Optional[QConfig]):
    return qconfig is not None and \
        isinstance(qconfig.activation(), ReuseInputObserver) and \
        isinstance(qconfig.weight(), NoopObserver)


def _fixed_qparams_ops():
    """torch's _FIXED_QPARAMS_OP_TO_OBSERVER, on ember's ops (those ember has)."""
    F = ember.nn.functional
    zero_one, neg_one = default_fixed_qparams_range_0to1_observer, default_fixed_qparams_range_neg1to1_observer
    ops = [(getattr(ember.nn, "Hardsigmoid", None), zero_one), (getattr(F, "hardsigmoid", None), zero_one),
           ("hardsigmoid", zero_one), ("hardsigmoid_", zero_one),
           (ember.nn.Sigmoid, zero_one), (ember.sigmoid, zero_one), ("sigmoid", zero_one), ("sigmoid_", zero_one),
           (ember.nn.Softmax, zero_one),
           (ember.nn.Tanh, neg_one), (ember.tanh, neg_one), ("tanh", neg_one), ("tanh_", neg_one)]
    return [(op, obs) for op, obs in ops if op is not None]


def _get_default_qconfig_dict(is_qat: bool, backend: str, version: int):
    """torch 1.13's _get_default_qconfig_mapping(...).to_dict(), on ember's classes and ops."""
    qconfig = get_default_qat_qconfig(backend, version) if is_qat else get_default_qconfig(backend, version)
    default_weight = default_weight_fake_quant if is_qat else default_weight_observer
    # default_per_channel_weight_observer is not compatible with fbgemm's transposed convs
    if backend in ("fbgemm", "x86"):
        qconfig_transpose = QConfig(activation=qconfig.activation, weight=default_weight)
    else:
        qconfig_transpose = qconfig
    # layernorm only supports float weights
    qconfig_layernorm = QConfig(activation=qconfig.activation, weight=default_placeholder_observer)
    nn_, F = ember.nn, ember.nn.functional
    object_types = [("reshape", default_reuse_input_qconfig)]
    for names, q in ((("Conv1d", "Conv2d", "Conv3d"), qconfig),
                     (("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"), qconfig_transpose),
                     (("Linear",), qconfig)):
        object_types += [(getattr(nn_, n), q) for n in names if hasattr(nn_, n)]
    for names, q in ((("conv1d", "conv2d", "conv3d"), qconfig),
                     (("conv_transpose1d", "conv_transpose2d", "conv_transpose3d"), qconfig_transpose),
                     (("linear",), qconfig)):
        object_types += [(getattr(F, n), q) for n in names if hasattr(F, n)]
    object_types += [(nn_.ReLU, qconfig), (F.relu, qconfig), (ember.relu, qconfig),
                     (nn_.BatchNorm1d, qconfig), (nn_.BatchNorm2d, qconfig), (nn_.BatchNorm3d, qconfig),
                     (F.layer_norm, qconfig_layernorm), (nn_.LayerNorm, qconfig_layernorm)]
    # Use special observers for ops with fixed qparams
    fixed_qconfigs = {}
    for op, observer in _fixed_qparams_ops():
        if observer not in fixed_qconfigs:
            activation = FixedQParamsFakeQuantize.with_args(observer=observer) if is_qat else observer
            fixed_qconfigs[observer] = QConfig(activation=activation, weight=default_weight)
        object_types.append((op, fixed_qconfigs[observer]))
    # set_object_type replaces an existing entry in place (an OrderedDict keyed by the op)
    ordered = {}
    for op, q in object_types:
        ordered[op] = q
    return {"": qconfig, "object_type": list(ordered.items()), "module_name_regex": [], "module_name": [],
            "module_name_object_type_order": []}


def get_default_qconfig_dict(backend='fbgemm', version=0):
    warnings.warn(
        "ember.ao.quantization.get_default_qconfig_dict is deprecated and will be removed in "
        "a future version.")
    return _get_default_qconfig_dict(False, backend, version)


def get_default_qat_qconfig_dict(backend='fbgemm', version=1):
    warnings.warn(
        "ember.ao.quantization.get_default_qat_qconfig_dict is deprecated and will be removed in "
        "a future version.")
    return _get_default_qconfig_dict(True, backend, version)
