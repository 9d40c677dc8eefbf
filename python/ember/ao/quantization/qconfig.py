"""ember.ao.quantization.qconfig: torch 1.13's QConfig namedtuples and the default qconfigs.

A QConfig set on a module (``m.qconfig = q``) lives in the C++ module's qconfig slot (Note [The
qconfig slot]): C++ (prepare, the QAT modules) calls its factories, and ``m.qconfig is q``.
"""
from collections import namedtuple
import warnings

import ember
import ember.nn as nn

__all__ = ["QConfig", "QConfigDynamic"]


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
