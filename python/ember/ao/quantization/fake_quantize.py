"""ember.ao.quantization.fake_quantize: torch 1.13's fake-quantize modules.

The modules are C++ (ember::quantization; the fake_quantize ops give the straight-through
gradient); this module adds the default factories and torch's module functions for
``model.apply``.
"""
import ember
from ember import _C
from .observer import (
    _with_args,
    _with_callable_args,
    MovingAverageMinMaxObserver,
    HistogramObserver,
    MovingAveragePerChannelMinMaxObserver,
    default_fixed_qparams_range_0to1_observer,
    default_fixed_qparams_range_neg1to1_observer,
)

__all__ = [
    "FakeQuantizeBase",
    "FakeQuantize",
    "FixedQParamsFakeQuantize",
    "FusedMovingAvgObsFakeQuantize",
    "disable_fake_quant",
    "disable_observer",
    "enable_fake_quant",
    "enable_observer",
    "default_fake_quant",
    "default_weight_fake_quant",
    "default_dynamic_fake_quant",
    "default_fixed_qparams_range_neg1to1_fake_quant",
    "default_fixed_qparams_range_0to1_fake_quant",
    "default_symmetric_fixed_qparams_fake_quant",
    "default_affine_fixed_qparams_fake_quant",
    "default_per_channel_weight_fake_quant",
    "default_embedding_fake_quant",
    "default_embedding_fake_quant_4bit",
    "default_histogram_fake_quant",
    "default_fused_act_fake_quant",
    "default_fused_wt_fake_quant",
    "default_fused_per_channel_wt_fake_quant",
    "fused_wt_fake_quant_range_neg_127_to_127",
    "fused_per_channel_wt_fake_quant_range_neg_127_to_127",
]

_Q = _C._quantization
FakeQuantizeBase = _Q.FakeQuantizeBase
FakeQuantize = _Q.FakeQuantize
FixedQParamsFakeQuantize = _Q.FixedQParamsFakeQuantize
FusedMovingAvgObsFakeQuantize = _Q.FusedMovingAvgObsFakeQuantize
FakeQuantizeBase.with_args = classmethod(_with_args)
FakeQuantizeBase.with_callable_args = classmethod(_with_callable_args)
for _cls in (FakeQuantizeBase, FakeQuantize, FixedQParamsFakeQuantize, FusedMovingAvgObsFakeQuantize):
    _cls.__module__ = __name__


def _is_per_channel(qscheme):
    return qscheme in [ember.per_channel_symmetric, ember.per_channel_affine, ember.per_channel_affine_float_qparams]


def _is_per_tensor(qscheme):
    return qscheme in [ember.per_tensor_symmetric, ember.per_tensor_affine]


def _is_symmetric_quant(qscheme):
    return qscheme in [ember.per_tensor_symmetric, ember.per_channel_symmetric]


def _is_float_qparams(qscheme):
    return qscheme in [ember.per_channel_affine_float_qparams, ]


default_fake_quant = FakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                                            dtype=ember.quint8, qscheme=ember.per_tensor_affine, reduce_range=True)
default_weight_fake_quant = FakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=-128, quant_max=127,
                                                   dtype=ember.qint8, qscheme=ember.per_tensor_symmetric,
                                                   reduce_range=False)
default_dynamic_fake_quant = FakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                                                    dtype=ember.quint8, averaging_constant=1)
default_fixed_qparams_range_neg1to1_fake_quant = (
    FixedQParamsFakeQuantize.with_args(observer=default_fixed_qparams_range_neg1to1_observer)
)
default_fixed_qparams_range_0to1_fake_quant = (
    FixedQParamsFakeQuantize.with_args(observer=default_fixed_qparams_range_0to1_observer)
)
default_symmetric_fixed_qparams_fake_quant = default_fixed_qparams_range_neg1to1_fake_quant
default_affine_fixed_qparams_fake_quant = default_fixed_qparams_range_0to1_fake_quant
default_per_channel_weight_fake_quant = FakeQuantize.with_args(observer=MovingAveragePerChannelMinMaxObserver,
                                                               quant_min=-128,
                                                               quant_max=127,
                                                               dtype=ember.qint8,
                                                               qscheme=ember.per_channel_symmetric,
                                                               reduce_range=False,
                                                               ch_axis=0)
default_embedding_fake_quant = FakeQuantize.with_args(observer=MovingAveragePerChannelMinMaxObserver,
                                                      qscheme=ember.per_channel_affine_float_qparams,
                                                      dtype=ember.quint8,
                                                      quant_min=0,
                                                      quant_max=255,
                                                      ch_axis=0,
                                                      averaging_constant=1)
default_embedding_fake_quant_4bit = FakeQuantize.with_args(observer=MovingAveragePerChannelMinMaxObserver,
                                                           qscheme=ember.per_channel_affine_float_qparams,
                                                           ch_axis=0,
                                                           dtype=ember.quint4x2,
                                                           averaging_constant=1)
default_histogram_fake_quant = FakeQuantize.with_args(observer=HistogramObserver,
                                                      quant_min=0,
                                                      quant_max=255,
                                                      dtype=ember.quint8,
                                                      qscheme=ember.per_tensor_affine,
                                                      reduce_range=True)
default_fused_act_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(observer=MovingAverageMinMaxObserver,
                                                                       quant_min=0,
                                                                       quant_max=255,
                                                                       dtype=ember.quint8,)
default_fused_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(observer=MovingAverageMinMaxObserver,
                                                                      quant_min=-128,
                                                                      quant_max=127,
                                                                      dtype=ember.qint8,
                                                                      qscheme=ember.per_tensor_symmetric)
default_fused_per_channel_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver,
    quant_min=-128,
    quant_max=127,
    dtype=ember.qint8,
    qscheme=ember.per_channel_symmetric)
fused_wt_fake_quant_range_neg_127_to_127 = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver,
    quant_min=-127,
    quant_max=127,
    dtype=ember.qint8,
    qscheme=ember.per_tensor_symmetric,
    eps=2 ** -12)
fused_per_channel_wt_fake_quant_range_neg_127_to_127 = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver,
    quant_min=-127,
    quant_max=127,
    dtype=ember.qint8,
    qscheme=ember.per_channel_symmetric,
    eps=2 ** -12)


def disable_fake_quant(mod):
    """Disable fake quantization for this module, if applicable
    (``model.apply(ember.ao.quantization.disable_fake_quant)``)."""
    if isinstance(mod, FakeQuantizeBase):
        mod.disable_fake_quant()


def enable_fake_quant(mod):
    """Enable fake quantization for this module, if applicable."""
    if isinstance(mod, FakeQuantizeBase):
        mod.enable_fake_quant()


def disable_observer(mod):
    """Disable observation for this module, if applicable."""
    if isinstance(mod, FakeQuantizeBase):
        mod.disable_observer()


def enable_observer(mod):
    """Enable observation for this module, if applicable."""
    if isinstance(mod, FakeQuantizeBase):
        mod.enable_observer()
