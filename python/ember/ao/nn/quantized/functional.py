"""ember.ao.nn.quantized.functional: torch.ao.nn.quantized.functional's functions (PyTorch
writes them in Python over its ops; so does ember, over the same ops)."""
import warnings

from .... import ops as _ops
from ....nn import functional as _F

__all__ = [
    "avg_pool2d", "adaptive_avg_pool2d", "conv1d", "conv2d", "conv3d", "interpolate", "linear",
    "max_pool1d", "max_pool2d", "celu", "leaky_relu", "hardtanh", "hardswish", "threshold",
    "elu", "hardsigmoid", "clamp", "upsample", "upsample_bilinear", "upsample_nearest",
]


def _tuple(v, n):
    if isinstance(v, (list, tuple)):
        return list(v)
    return [v] * n


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    if not input.is_quantized:
        raise ValueError("Input to 'quantized.avg_pool2d' must be quantized!")
    return _F.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                         divisor_override)


def adaptive_avg_pool2d(input, output_size):
    if not input.is_quantized:
        raise ValueError("Input to 'quantized.functional.adaptive_avg_pool2d' must be quantized!")
    return _F.adaptive_avg_pool2d(input, output_size)


def _check_conv(input, weight, padding_mode, ndim, shape):
    from .... import quint8, qint8
    if padding_mode != "zeros":
        raise NotImplementedError("Only zero-padding is supported!")
    if input.dtype != quint8:
        raise NotImplementedError("Only ember.quint8 is supported for activation tensor!")
    if weight.dtype != qint8:
        raise NotImplementedError("Only ember.qint8 is supported for weight tensor!")
    if input.ndim != ndim:
        raise ValueError("Input shape must be `" + shape + "`!")


def conv1d(input, weight, bias, stride=1, padding=0, dilation=1, groups=1,
           padding_mode="zeros", scale=1.0, zero_point=0, dtype=None):
    _check_conv(input, weight, padding_mode, 3, "(N, C, L)")
    # PyTorch's _pair_from_first gives 2 values; conv1d_prepack takes the 1-d ones.
    packed = _ops.quantized.conv1d_prepack(weight, bias, _tuple(stride, 1), _tuple(padding, 1),
                                           _tuple(dilation, 1), groups)
    return _ops.quantized.conv1d(input, packed, scale, zero_point)


def conv2d(input, weight, bias, stride=1, padding=0, dilation=1, groups=1,
           padding_mode="zeros", scale=1.0, zero_point=0, dtype=None):
    _check_conv(input, weight, padding_mode, 4, "(N, C, H, W)")
    packed = _ops.quantized.conv2d_prepack(weight, bias, _tuple(stride, 2), _tuple(padding, 2),
                                           _tuple(dilation, 2), groups)
    return _ops.quantized.conv2d(input, packed, scale, zero_point)


def conv3d(input, weight, bias, stride=1, padding=0, dilation=1, groups=1,
           padding_mode="zeros", scale=1.0, zero_point=0, dtype=None):
    _check_conv(input, weight, padding_mode, 5, "(N, C, D, H, W)")
    packed = _ops.quantized.conv3d_prepack(weight, bias, _tuple(stride, 3), _tuple(padding, 3),
                                           _tuple(dilation, 3), groups)
    return _ops.quantized.conv3d(input, packed, scale, zero_point)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    if not input.is_quantized:
        raise ValueError("Input to 'quantized.interpolate' must be quantized!")
    return _F.interpolate(input, size, scale_factor, mode, align_corners)


def linear(input, weight, bias=None, scale=None, zero_point=None):
    if scale is None:
        scale = input.q_scale()
    if zero_point is None:
        zero_point = input.q_zero_point()
    packed = _ops.quantized.linear_prepack(weight, bias)
    return _ops.quantized.linear(input, packed, scale, zero_point)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if return_indices:
        raise NotImplementedError("return_indices is not yet implemented!")
    if input.dim() not in (2, 3):
        raise RuntimeError("max_pool1d() Expected 2D or 3D input tensor, but got " +
                           str(list(input.shape)))
    # A 1-d max pool is the 2-d one over a height of 1 (the same maxima).
    k = _tuple(kernel_size, 1)
    s = _tuple(stride, 1) if stride is not None and stride != [] else k
    out = _F.max_pool2d(input.unsqueeze(-2), [1] + k, [1] + s, [0] + _tuple(padding, 1),
                        [1] + _tuple(dilation, 1), ceil_mode=ceil_mode)
    return out.squeeze(-2)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if return_indices:
        raise NotImplementedError("return_indices is not yet implemented!")
    if stride is None:
        stride = []
    return _F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode=ceil_mode,
                         return_indices=return_indices)


def celu(input, scale, zero_point, alpha=1.0):
    if not input.is_quantized:
        raise ValueError("Input to 'quantized.celu' must be quantized!")
    return _ops.quantized.celu(input, scale, zero_point, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False, scale=None, zero_point=None):
    if scale is not None and zero_point is not None:
        assert not inplace, "Cannot rescale with `inplace`"
        return _ops.quantized.leaky_relu(input, negative_slope, False, scale, int(zero_point))
    result = _ops.quantized.leaky_relu(input, negative_slope, False, input.q_scale(),
                                       input.q_zero_point())
    if inplace:
        input.copy_(result)
        return input
    return result


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if not input.is_quantized:
        raise ValueError("Input to 'quantized.hardtanh' must be quantized!")
    return _F.hardtanh(input, min_val, max_val, inplace)


def hardswish(input, scale, zero_point):
    if not input.is_quantized:
        raise ValueError("Input to 'quantized.hardswish' must be quantized!")
    return _ops.quantized.hardswish(input, scale, zero_point)


def threshold(input, threshold, value):
    if not input.is_quantized:
        raise ValueError("Input to 'quantized.threshold' must be quantized!")
    if threshold is None:
        raise ValueError("Input to 'threshold' must be specified!")
    if value is None:
        raise ValueError("Input to 'value' must be specified!")
    return _ops.quantized.threshold(input, threshold, value)


def elu(input, scale, zero_point, alpha=1.0):
    if not input.is_quantized:
        raise ValueError("Input to 'quantized.elu' must be quantized!")
    return _ops.quantized.elu(input, scale, zero_point, alpha)


def hardsigmoid(input, inplace=False):
    if not input.is_quantized:
        raise ValueError("Input to 'quantized.hardsigmoid' must be quantized!")
    return _F.hardsigmoid(input, inplace)


def clamp(input, min_, max_):
    if not input.is_quantized:
        raise ValueError("Input to 'quantized.clamp' must be quantized!")
    from .... import clamp as _clamp
    return _clamp(input, min_, max_)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("nn.quantized.functional.upsample is deprecated. Use "
                  "nn.quantized.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("nn.quantized.functional.upsample_bilinear is deprecated. Use "
                  "nn.quantized.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("nn.quantized.functional.upsample_nearest is deprecated. Use "
                  "nn.quantized.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="nearest")
