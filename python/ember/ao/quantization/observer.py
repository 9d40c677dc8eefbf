"""ember.ao.quantization.observer: torch 1.13's observers.

The classes are C++ (ember::quantization, bound in _C._quantization: their updates and qparams
are torch's to the bit); this module adds what torch writes in Python: ``with_args`` /
``with_callable_args`` (``_PartialWrapper``), the default observer factories and the observer
state_dict helpers.
"""
from collections import OrderedDict
from functools import partial
from typing import Any, List

import ember
from ember import _C

__all__ = [
    "default_affine_fixed_qparams_observer",
    "default_debug_observer",
    "default_dynamic_quant_observer",
    "default_fixed_qparams_range_0to1_observer",
    "default_fixed_qparams_range_neg1to1_observer",
    "default_float_qparams_observer",
    "default_float_qparams_observer_4bit",
    "default_histogram_observer",
    "default_observer",
    "default_per_channel_weight_observer",
    "default_placeholder_observer",
    "default_symmetric_fixed_qparams_observer",
    "default_weight_observer",
    "get_observer_state_dict",
    "load_observer_state_dict",
    "per_channel_weight_observer_range_neg_127_to_127",
    "weight_observer_range_neg_127_to_127",
    "FixedQParamsObserver",
    "HistogramObserver",
    "MinMaxObserver",
    "MovingAverageMinMaxObserver",
    "MovingAveragePerChannelMinMaxObserver",
    "NoopObserver",
    "ObserverBase",
    "PerChannelMinMaxObserver",
    "PlaceholderObserver",
    "RecordingObserver",
    "UniformQuantizationObserverBase",
    "ReuseInputObserver",
    "default_reuse_input_observer",
    "set_histogram_observer_truncation",
]


class _PartialWrapper(object):
    def __init__(self, p):
        self.p = p
        self.callable_args = {}

    def __call__(self, *args, **keywords):
        # call each arg in callable_args and add them partial, then run with keywords
        # skip if arg_name in keywords so its possible to overwrite
        for arg_name in self.callable_args:
            if arg_name not in keywords:
                keywords = {**keywords, **{arg_name: self.callable_args[arg_name]()}}
        return self.p(*args, **keywords)

    def __repr__(self):
        return self.p.__repr__() + self.callable_args.__repr__()

    def with_args(self, **kwargs):
        return _with_args(self, **kwargs)

    def with_callable_args(self, **kwargs):
        result = _PartialWrapper(p=self.p)
        result.callable_args = {**self.callable_args, **kwargs}
        return result


def _with_args(cls_or_self, **kwargs):
    r"""Wrapper that allows creation of class factories (torch's ``with_args``)."""
    r = _PartialWrapper(partial(cls_or_self, **kwargs))
    return r


def _with_callable_args(cls_or_self, **kwargs):
    r"""Wrapper that allows creation of class factories args that need to be called at
    construction time (torch's ``with_callable_args``)."""
    r = _PartialWrapper(partial(cls_or_self))
    return r.with_callable_args(**kwargs)


_Q = _C._quantization
ObserverBase = _Q.ObserverBase
UniformQuantizationObserverBase = _Q.UniformQuantizationObserverBase
MinMaxObserver = _Q.MinMaxObserver
MovingAverageMinMaxObserver = _Q.MovingAverageMinMaxObserver
PerChannelMinMaxObserver = _Q.PerChannelMinMaxObserver
MovingAveragePerChannelMinMaxObserver = _Q.MovingAveragePerChannelMinMaxObserver
HistogramObserver = _Q.HistogramObserver
FixedQParamsObserver = _Q.FixedQParamsObserver
PlaceholderObserver = _Q.PlaceholderObserver
NoopObserver = _Q.NoopObserver
RecordingObserver = _Q.RecordingObserver
_ObserverBase = UniformQuantizationObserverBase  # torch's old name

ObserverBase.with_args = classmethod(_with_args)
ObserverBase.with_callable_args = classmethod(_with_callable_args)
for _cls in (ObserverBase, UniformQuantizationObserverBase, MinMaxObserver, MovingAverageMinMaxObserver,
             PerChannelMinMaxObserver, MovingAveragePerChannelMinMaxObserver, HistogramObserver,
             FixedQParamsObserver, PlaceholderObserver, NoopObserver, RecordingObserver):
    _cls.__module__ = __name__
# Observer state_dicts carry torch's observer version (3: per-channel min_val / max_val names,
# 0-dim uninitialised histogram min / max).
UniformQuantizationObserverBase._version = 3


class ReuseInputObserver(ObserverBase):
    r"""torch's ReuseInputObserver (FX graph mode only): the output reuses its input's
    observer, so this one observes nothing."""

    def __init__(self):
        super().__init__(ember.quint8)

    def forward(self, x):
        return x

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for ReuseInputObserver")


def set_histogram_observer_truncation(enabled: bool) -> None:
    r"""Makes HistogramObservers created from now on truncate their histc range to integers as
    torch 1.13 does (``int(min_val)``, ``int(max_val)``; pytorch issue #83672), which drops
    values outside the truncated range from the counts. Off by default: the range is the
    observed one (the intended arithmetic). Each observer also has the flag
    ``truncate_histc_range``."""
    _Q._set_histogram_observer_truncates_histc_range(bool(enabled))


def _is_activation_post_process(module):
    from .fake_quantize import FakeQuantize
    return isinstance(module, (ObserverBase, FakeQuantize))


def get_observer_state_dict(mod):
    r"""Returns the state dict corresponding to the observer stats.
    Traverse the model state_dict and extract out the stats.
    """
    od = OrderedDict()
    sd = mod.state_dict()
    for k, v in sd.items():
        if "activation_post_process" in k:
            od[k] = v
    od._metadata = sd._metadata  # type: ignore[attr-defined]
    return od


def load_observer_state_dict(mod, obs_dict):
    r"""Given input model and a state_dict containing model observer stats,
    load the stats back into the model. The observer state_dict can be saved
    using ember.ao.quantization.get_observer_state_dict
    """
    missing_keys: List[str] = []
    unexpected_keys: List[str] = []
    for name, module in mod.named_modules():
        prefix = name + "."
        if _is_activation_post_process(module):
            module._load_from_state_dict(obs_dict, prefix, {}, False, missing_keys, unexpected_keys, [])
    for k in missing_keys:
        if "observer" in k or "activation_post_process" in k:
            raise Exception("Missing keys for observer {} in state_dict".format(k))
    for k in unexpected_keys:
        if "observer" in k or "activation_post_process" in k:
            raise Exception("Unexpected keys for observer {} in state_dict".format(k))


# Restrict activations to be in the range (0,127)
default_observer = MinMaxObserver.with_args(quant_min=0, quant_max=127)
default_placeholder_observer = PlaceholderObserver
default_debug_observer = RecordingObserver
default_weight_observer = MinMaxObserver.with_args(
    dtype=ember.qint8, qscheme=ember.per_tensor_symmetric
)
weight_observer_range_neg_127_to_127 = MinMaxObserver.with_args(
    dtype=ember.qint8, qscheme=ember.per_tensor_symmetric,
    quant_min=-127, quant_max=127, eps=2 ** -12)
default_histogram_observer = HistogramObserver.with_args(quant_min=0, quant_max=127)
default_per_channel_weight_observer = PerChannelMinMaxObserver.with_args(
    dtype=ember.qint8, qscheme=ember.per_channel_symmetric
)
per_channel_weight_observer_range_neg_127_to_127 = PerChannelMinMaxObserver.with_args(
    dtype=ember.qint8, qscheme=ember.per_channel_symmetric,
    quant_min=-127, quant_max=127, eps=2 ** -12)
default_dynamic_quant_observer = PlaceholderObserver.with_args(
    dtype=ember.quint8, compute_dtype=ember.quint8
)
default_float_qparams_observer = PerChannelMinMaxObserver.with_args(
    dtype=ember.quint8, qscheme=ember.per_channel_affine_float_qparams, ch_axis=0
)
default_float_qparams_observer_4bit = PerChannelMinMaxObserver.with_args(
    dtype=ember.quint4x2, qscheme=ember.per_channel_affine_float_qparams, ch_axis=0
)
default_fixed_qparams_range_neg1to1_observer = FixedQParamsObserver.with_args(
    scale=2.0 / 256.0, zero_point=128, dtype=ember.quint8, quant_min=0, quant_max=255)
default_fixed_qparams_range_0to1_observer = FixedQParamsObserver.with_args(
    scale=1.0 / 256.0, zero_point=0, dtype=ember.quint8, quant_min=0, quant_max=255)
default_symmetric_fixed_qparams_observer = default_fixed_qparams_range_neg1to1_observer
default_affine_fixed_qparams_observer = default_fixed_qparams_range_0to1_observer
default_reuse_input_observer = ReuseInputObserver
