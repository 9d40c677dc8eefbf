"""from_float and pickling state of the quantized modules of python/csrc/nn_quantized_more.cpp
(C++ classes in ember._C._nnq / _nniq): Conv3d, ConvReLU3d, ConvTranspose1d/2d/3d, LeakyReLU,
ELU, Sigmoid, Softmax. As in _modules.py, from_float is written here in Python, as PyTorch
writes it, reading observers by duck typing; the arithmetic is C++."""
from .... import _C
from .... import nn as _nn
from ._modules import (_conv_float_module, _conv_float_module_name, _conv_from_float,
                       _conv_native_state, _conv_set_native_state, _get_qconv,
                       _quantize_weight, _type_is)

_nnq = _C._nnq
_nniq = _C._nniq

Conv3d = _nnq.Conv3d
ConvReLU3d = _nniq.ConvReLU3d
ConvTranspose1d = _nnq.ConvTranspose1d
ConvTranspose2d = _nnq.ConvTranspose2d
ConvTranspose3d = _nnq.ConvTranspose3d
LeakyReLU = _nnq.LeakyReLU
ELU = _nnq.ELU
Sigmoid = _nnq.Sigmoid
Softmax = _nnq.Softmax

for _cls in (_nnq._PackedConvNd, _nnq._ConvTransposeNd, Conv3d, ConvTranspose1d,
             ConvTranspose2d, ConvTranspose3d, LeakyReLU, ELU, Sigmoid, Softmax):
    _cls.__module__ = "ember.ao.nn.quantized"
ConvReLU3d.__module__ = "ember.ao.nn.intrinsic.quantized"

# ---- Conv3d / ConvReLU3d: PyTorch's _ConvNd.from_float / get_qconv ----
_Base = _nnq._PackedConvNd
_Base._float_module = classmethod(_conv_float_module)
_Base._float_module_name = classmethod(_conv_float_module_name)
_Base._native_state = _conv_native_state
_Base._set_native_state = _conv_set_native_state
Conv3d.get_qconv = classmethod(_get_qconv)
Conv3d.from_float = classmethod(_conv_from_float)
Conv3d._FLOAT_MODULE = "nn.Conv3d"
Conv3d._NNIQAT_CONV_BN_MODULE = "nn.intrinsic.qat.ConvBn3d"
Conv3d._NNI_CONV_RELU_MODULE = "nn.intrinsic.ConvReLU3d"
ConvReLU3d._FLOAT_MODULE = "nn.intrinsic.ConvReLU3d"


def _conv_relu_from_float(cls, mod, _qat_name):
    """A QAT ConvBnReLU folds its BatchNorm into the weights first (PyTorch's
    ConvReLU3d.from_float)."""
    if _type_is(mod, _qat_name):
        from ....nn.utils import fuse_conv_bn_weights
        mod.weight, mod.bias = fuse_conv_bn_weights(
            mod.weight, mod.bias, mod.bn.running_mean, mod.bn.running_var,
            mod.bn.eps, mod.bn.weight, mod.bn.bias)
    return _conv_from_float(cls, mod)


ConvReLU3d.from_float = classmethod(
    lambda cls, mod: _conv_relu_from_float(cls, mod, "nn.intrinsic.qat.ConvBnReLU3d"))


# ---- ConvTranspose1d / 2d / 3d: PyTorch's _ConvTransposeNd.from_float ----
def _conv_transpose_from_float(cls, mod):
    float_module = cls._float_module()
    msg = " nnq." + cls.__name__ + ".from_float only works for " + cls._float_module_name()
    assert float_module is not None and type(mod) == float_module, msg
    assert hasattr(mod, "qconfig"), "Input float module must have qconfig defined."
    weight_post_process = mod.qconfig.weight()
    weight_post_process(mod.weight)
    from .... import qint8, float as _float
    assert weight_post_process.dtype == qint8, "Weight observer must have a dtype of qint8"
    qweight = _quantize_weight(mod.weight.float(), weight_post_process)
    qconv = cls(mod.in_channels, mod.out_channels, mod.kernel_size, mod.stride, mod.padding,
                mod.output_padding, mod.groups, mod.bias is not None, mod.dilation,
                mod.padding_mode)
    qconv.set_weight_bias(qweight, mod.bias)
    if not hasattr(mod, "activation_post_process") or \
            mod.activation_post_process.dtype == _float:
        return qconv  # dynamic quantization doesn't need scale/zero_point
    act_scale, act_zp = mod.activation_post_process.calculate_qparams()
    qconv.scale = float(act_scale)
    qconv.zero_point = int(act_zp)
    return qconv


_nnq._ConvTransposeNd.from_float = classmethod(_conv_transpose_from_float)
ConvTranspose1d._FLOAT_MODULE = "nn.ConvTranspose1d"
ConvTranspose2d._FLOAT_MODULE = _nn.ConvTranspose2d
ConvTranspose3d._FLOAT_MODULE = "nn.ConvTranspose3d"


# ---- activations ----
def _leaky_relu_from_float(cls, mod):
    scale, zero_point = mod.activation_post_process.calculate_qparams()
    return cls(float(scale), int(zero_point), mod.negative_slope, mod.inplace)


def _elu_from_float(mod):
    scale, zero_point = mod.activation_post_process.calculate_qparams()
    return ELU(float(scale), int(zero_point), mod.alpha)


def _sigmoid_from_float(cls, mod):
    output_scale, output_zero_point = mod.activation_post_process.calculate_qparams()
    return cls(float(output_scale), int(output_zero_point))


def _softmax_from_float(mod):
    scale, zero_point = mod.activation_post_process.calculate_qparams()
    return Softmax(mod.dim, float(scale), int(zero_point))


LeakyReLU._FLOAT_MODULE = "nn.LeakyReLU"
LeakyReLU.from_float = classmethod(_leaky_relu_from_float)
ELU.from_float = staticmethod(_elu_from_float)


def _attrs_state(*names):
    """_native_state / _set_native_state for plain C++ attributes (what pickling needs beyond
    parameters, buffers and children)."""
    def get(self):
        return {n: getattr(self, n) for n in names}

    def put(self, state):
        for n in names:
            setattr(self, n, state[n])
    return get, put


LeakyReLU._native_state, LeakyReLU._set_native_state = _attrs_state("negative_slope", "inplace")
ELU._native_state, ELU._set_native_state = _attrs_state("alpha", "inplace", "scale", "zero_point")
Sigmoid.from_float = classmethod(_sigmoid_from_float)
Sigmoid._native_state, Sigmoid._set_native_state = _attrs_state("output_scale",
                                                                   "output_zero_point")
Softmax.from_float = staticmethod(_softmax_from_float)
Softmax._native_state, Softmax._set_native_state = _attrs_state("dim", "scale", "zero_point")


# ---- normalisation ----

LayerNorm = _nnq.LayerNorm
GroupNorm = _nnq.GroupNorm
InstanceNorm1d = _nnq.InstanceNorm1d
InstanceNorm2d = _nnq.InstanceNorm2d
InstanceNorm3d = _nnq.InstanceNorm3d
BatchNorm3d = _nnq.BatchNorm3d
BNReLU3d = _nniq.BNReLU3d
for _cls in (LayerNorm, GroupNorm, _nnq._InstanceNorm, InstanceNorm1d, InstanceNorm2d,
             InstanceNorm3d, BatchNorm3d):
    _cls.__module__ = "ember.ao.nn.quantized"
BNReLU3d.__module__ = "ember.ao.nn.intrinsic.quantized"


def _layer_norm_from_float(cls, mod):
    scale, zero_point = mod.activation_post_process.calculate_qparams()
    return cls(mod.normalized_shape, mod.weight, mod.bias, float(scale), int(zero_point),
               mod.eps, mod.elementwise_affine)


def _group_norm_from_float(cls, mod):
    scale, zero_point = mod.activation_post_process.calculate_qparams()
    return cls(mod.num_groups, mod.num_channels, mod.weight, mod.bias, float(scale),
               int(zero_point), mod.eps, mod.affine)


def _instance_norm_from_float(cls, mod):
    scale, zero_point = mod.activation_post_process.calculate_qparams()
    return cls(mod.num_features, mod.weight, mod.bias, float(scale), int(zero_point), mod.eps,
               mod.affine)


def _batch_norm_from_float(cls, mod):
    """PyTorch's _BatchNorm.from_float: a BNReLU container gives its BatchNorm."""
    activation_post_process = mod.activation_post_process
    if _type_is(mod, cls._NNI_BN_RELU_MODULE):
        mod = mod[0]
    scale, zero_point = activation_post_process.calculate_qparams()
    new_mod = cls(mod.num_features, mod.eps)
    new_mod.weight = mod.weight
    new_mod.bias = mod.bias
    new_mod.running_mean = mod.running_mean
    new_mod.running_var = mod.running_var
    new_mod.scale = scale
    new_mod.zero_point = zero_point
    return new_mod


LayerNorm.from_float = classmethod(_layer_norm_from_float)
GroupNorm.from_float = classmethod(_group_norm_from_float)
_nnq._InstanceNorm.from_float = classmethod(_instance_norm_from_float)
BatchNorm3d._NNI_BN_RELU_MODULE = "nn.intrinsic.BNReLU3d"
BatchNorm3d.from_float = classmethod(_batch_norm_from_float)
BNReLU3d._FLOAT_MODULE = "nn.intrinsic.BNReLU3d"
