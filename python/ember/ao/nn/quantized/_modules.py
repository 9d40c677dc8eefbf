"""What PyTorch writes in Python around its quantized modules, on ember's C++ classes
(ember._C._nnq / _nniq / _nnqd): the _FLOAT_MODULE attributes, and the state pickle needs beyond
parameters, buffers and children (`_native_state`, read by ember/nn/modules/_copy.py).

`from_float` of these classes is C++ (src/quant/modules/from_float.cpp, bound in
python/csrc/quantization_workflow.cpp); it reads observers through
ember::quantization::observed_qparams, so Python observers work too. _ConvNd.get_qconv /
from_float and _quantize_weight below remain for quantized classes defined in Python on top of
_ConvNd (PyTorch's classmethods, duck-typed).
"""
import importlib
from collections.abc import Iterable

from .... import _C
from .... import nn as _nn

_nnq = _C._nnq
_nniq = _C._nniq
_nnqd = _C._nnqd

Quantize = _nnq.Quantize
DeQuantize = _nnq.DeQuantize
Conv1d = _nnq.Conv1d
Conv2d = _nnq.Conv2d
_ConvNd = _nnq._ConvNd
LinearPackedParams = _nnq.LinearPackedParams
Linear = _nnq.Linear
ReLU6 = _nnq.ReLU6
Hardswish = _nnq.Hardswish
Dropout = _nnq.Dropout
BatchNorm2d = _nnq.BatchNorm2d
FloatFunctional = _nnq.FloatFunctional
FXFloatFunctional = _nnq.FXFloatFunctional
QFunctional = _nnq.QFunctional
ConvReLU1d = _nniq.ConvReLU1d
ConvReLU2d = _nniq.ConvReLU2d
LinearReLU = _nniq.LinearReLU
BNReLU2d = _nniq.BNReLU2d
DynamicLinear = _nnqd.Linear

for _cls in (Quantize, DeQuantize, Conv1d, Conv2d, _ConvNd, LinearPackedParams, Linear, ReLU6,
             Hardswish, Dropout, BatchNorm2d, FloatFunctional, FXFloatFunctional, QFunctional):
    _cls.__module__ = "ember.ao.nn.quantized"
for _cls in (ConvReLU1d, ConvReLU2d, LinearReLU, BNReLU2d):
    _cls.__module__ = "ember.ao.nn.intrinsic.quantized"
DynamicLinear.__module__ = "ember.ao.nn.quantized.dynamic"


def _lookup(name):
    """A float fused / QAT class of the workflow (ember.nn.intrinsic.ConvReLU2d,
    ember.nn.intrinsic.qat.ConvBn2d, ...), or None while it does not exist."""
    module, _, attr = name.rpartition(".")
    for prefix in ("ember.", "ember.ao."):
        try:
            found = getattr(importlib.import_module(prefix + module), attr, None)
        except ImportError:
            found = None
        if found is not None:
            return found
    return None


def _type_is(mod, name):
    cls = _lookup(name)
    return cls is not None and type(mod) is cls


# ---- weights (PyTorch's ao/nn/quantized/modules/utils.py) ----

def _get_weight_observer(observer):
    # A FakeQuantize holds its observer.
    if hasattr(observer, "activation_post_process"):
        observer = observer.activation_post_process
    return observer


def _qscheme_code(qscheme):
    from .... import (per_tensor_affine, per_channel_affine, per_tensor_symmetric,
                      per_channel_symmetric, per_channel_affine_float_qparams)
    codes = {per_tensor_affine: 0, per_channel_affine: 1, per_tensor_symmetric: 2,
             per_channel_symmetric: 3, per_channel_affine_float_qparams: 4}
    if qscheme not in codes:
        raise ValueError("Unexpected qscheme " + str(qscheme))
    return codes[qscheme]


def _quantize_weight(float_wt, observer):
    """PyTorch's _quantize_weight: the observer's qparams, qint8 codes clamped to the observer's
    range when it is narrower than int8's (the arithmetic is C++: quantize_weight)."""
    wt_scale, wt_zp = observer.calculate_qparams()
    clamp_to = _get_weight_observer(observer)
    return _nnq._quantize_weight(float_wt, wt_scale, wt_zp, _qscheme_code(observer.qscheme),
                                 getattr(observer, "ch_axis", 0), clamp_to.quant_min,
                                 clamp_to.quant_max)


# ---- from_float ----

def _conv_from_float(cls, mod):
    if hasattr(mod, "weight_fake_quant"):
        if _type_is(mod, cls._NNIQAT_CONV_BN_MODULE):
            from ....nn.utils import fuse_conv_bn_weights
            mod.weight, mod.bias = fuse_conv_bn_weights(
                mod.weight, mod.bias, mod.bn.running_mean, mod.bn.running_var,
                mod.bn.eps, mod.bn.weight, mod.bn.bias)
        assert hasattr(mod, "activation_post_process"), \
            "Input QAT module must have observer attached"
        weight_post_process = mod.weight_fake_quant
        activation_post_process = mod.activation_post_process
    else:
        float_module = cls._float_module()
        assert float_module is not None and type(mod) == float_module, \
            " nnq." + cls.__name__ + ".from_float only works for " + \
            cls._float_module_name() + " but got:" + str(type(mod))
        assert hasattr(mod, "qconfig"), "Input float module must have qconfig defined."
        activation_post_process = getattr(mod, "activation_post_process", None)
        if _type_is(mod, cls._NNI_CONV_RELU_MODULE):
            mod = mod[0]
        weight_post_process = mod.qconfig.weight()
    return cls.get_qconv(mod, activation_post_process, weight_post_process)


def _get_qconv(cls, mod, activation_post_process, weight_post_process=None):
    """Creates a qconv object and returns it (PyTorch's _ConvNd.get_qconv)."""
    if weight_post_process is None:
        weight_post_process = mod.qconfig.weight()
    weight_post_process(mod.weight)
    from .... import qint8, float as _float
    assert weight_post_process.dtype == qint8, "Weight observer must have a dtype of qint8"
    qweight = _quantize_weight(mod.weight.float(), weight_post_process)
    qconv = cls(mod.in_channels, mod.out_channels, mod.kernel_size, mod.stride, mod.padding,
                mod.dilation, mod.groups, mod.bias is not None, mod.padding_mode)
    qconv.set_weight_bias(qweight, mod.bias)
    if activation_post_process is None or activation_post_process.dtype == _float:
        return qconv  # dynamic quantization doesn't need scale/zero_point
    act_scale, act_zp = activation_post_process.calculate_qparams()
    qconv.scale = float(act_scale)
    qconv.zero_point = int(act_zp)
    return qconv


def _conv_float_module(cls):
    found = cls._FLOAT_MODULE
    return _lookup(found) if isinstance(found, str) else found


def _conv_float_module_name(cls):
    found = cls._float_module()
    return found.__name__ if found is not None else cls._FLOAT_MODULE.rpartition(".")[2]


def _conv_native_state(self):
    w, b = self._weight_bias()
    return {"weight": w, "bias": b, "scale": self.scale, "zero_point": self.zero_point}


def _conv_set_native_state(self, state):
    self.set_weight_bias(state["weight"], state["bias"])
    self.scale = state["scale"]
    self.zero_point = state["zero_point"]


_ConvNd.get_qconv = classmethod(_get_qconv)
_ConvNd.from_float = classmethod(_conv_from_float)
_ConvNd._float_module = classmethod(_conv_float_module)
_ConvNd._float_module_name = classmethod(_conv_float_module_name)
_ConvNd._native_state = _conv_native_state
_ConvNd._set_native_state = _conv_set_native_state
Conv1d._FLOAT_MODULE = _nn.Conv1d
Conv1d._NNIQAT_CONV_BN_MODULE = "nn.intrinsic.qat.ConvBn1d"
Conv1d._NNI_CONV_RELU_MODULE = "nn.intrinsic.ConvReLU1d"
Conv2d._FLOAT_MODULE = _nn.Conv2d
Conv2d._NNIQAT_CONV_BN_MODULE = "nn.intrinsic.qat.ConvBn2d"
Conv2d._NNI_CONV_RELU_MODULE = "nn.intrinsic.ConvReLU2d"
ConvReLU1d._FLOAT_MODULE = "nn.intrinsic.ConvReLU1d"
ConvReLU2d._FLOAT_MODULE = "nn.intrinsic.ConvReLU2d"


def _linear_float_modules(cls):
    found = cls._FLOAT_MODULE
    if not isinstance(found, Iterable) or isinstance(found, str):
        found = [found]
    out = []
    for f in found:
        f = _lookup(f) if isinstance(f, str) else f
        if f is not None:
            out.append(f)
    return out


Linear._FLOAT_MODULE = (_nn.Linear,)
LinearReLU._FLOAT_MODULE = "nn.intrinsic.LinearReLU"
Linear._native_state = lambda self: {"scale": self.scale, "zero_point": self.zero_point}


def _linear_set_native_state(self, state):
    self.scale = state["scale"]
    self.zero_point = state["zero_point"]


Linear._set_native_state = _linear_set_native_state


def _packed_native_state(self):
    w, b = self._weight_bias()
    return {"dtype": self.dtype, "weight": w, "bias": b}


def _packed_set_native_state(self, state):
    self.dtype = state["dtype"]
    self.set_weight_bias(state["weight"], state["bias"])


LinearPackedParams._native_state = _packed_native_state
LinearPackedParams._set_native_state = _packed_set_native_state


DynamicLinear._native_state = lambda self: {
    "scale": self.scale, "zero_point": self.zero_point, "version": self.version}


def _dynamic_set_native_state(self, state):
    _linear_set_native_state(self, state)
    self.version = state["version"]


DynamicLinear._set_native_state = _dynamic_set_native_state


# ---- the modules without weights ----

Quantize._native_state = lambda self: {"dtype": self.dtype}
Quantize._set_native_state = lambda self, state: setattr(self, "dtype", state["dtype"])


def _qparams_set_native_state(self, state):
    self.scale = state["scale"]
    self.zero_point = state["zero_point"]


def _qparams_native_state(self):
    return {"scale": self.scale, "zero_point": self.zero_point}


Hardswish._native_state = _qparams_native_state
Hardswish._set_native_state = _qparams_set_native_state


BatchNorm2d._NNI_BN_RELU_MODULE = "nn.intrinsic.BNReLU2d"
BNReLU2d._FLOAT_MODULE = "nn.intrinsic.BNReLU2d"


QFunctional._native_state = _qparams_native_state
QFunctional._set_native_state = _qparams_set_native_state
