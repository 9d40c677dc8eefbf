"""ember.nn.functional: torch.nn.functional's signatures over ember::nn::functional (C++)."""
import warnings

from .. import _C

_F = _C._nn


def _reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _F._legacy_get_string(size_average, reduce, reduction)
    return reduction


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                  "Change the call to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def linear(input, weight, bias=None):
    return _F.linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    return _F.bilinear(input1, input2, weight, bias)


def relu(input, inplace=False):
    return _F.relu(input, inplace)


def relu_(input):
    return _F.relu(input, True)


def relu6(input, inplace=False):
    return _F.relu6(input, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _F.hardtanh(input, min_val, max_val, inplace)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return _F.hardtanh(input, min_val, max_val, True)


def hardswish(input, inplace=False):
    return _F.hardswish(input, inplace)


def hardsigmoid(input, inplace=False):
    return _F.hardsigmoid(input, inplace)


def sigmoid(input):
    return _F.sigmoid(input)


def tanh(input):
    return _F.tanh(input)


def gelu(input, approximate="none"):
    return _F.gelu(input, approximate)


def silu(input, inplace=False):
    return _F.silu(input, inplace)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return _F.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _F.log_softmax(input, dim, dtype)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _F.layer_norm(input, list(normalized_shape), weight, bias, eps)


def dropout(input, p=0.5, training=True, inplace=False):
    return _F.dropout(input, p, training, inplace)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    return _F.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _F.mse_loss(input, target, _reduction(size_average, reduce, reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _F.l1_loss(input, target, _reduction(size_average, reduce, reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    return _F.smooth_l1_loss(input, target, _reduction(size_average, reduce, reduction), beta)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    return _F.nll_loss(input, target, weight, ignore_index,
                       _reduction(size_average, reduce, reduction))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    return _F.cross_entropy(input, target, weight, ignore_index,
                            _reduction(size_average, reduce, reduction), label_smoothing)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    return _F.binary_cross_entropy_with_logits(
        input, target, weight, _reduction(size_average, reduce, reduction), pos_weight)


# ---- convolution, normalisation, pooling, padding, resampling (issue 6) ----
# The op-table functions themselves where PyTorch's F names are its builtins (F.conv2d is
# torch.conv2d); Python wrappers where torch.nn.functional has Python logic.
_ops = _C._op_functions
conv1d = _ops["conv1d"]
conv2d = _ops["conv2d"]
conv_transpose2d = _ops["conv_transpose2d"]
pad = _ops["pad"]


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    return _F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    return _F.group_norm(input, num_groups, weight, bias, eps)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _ops["max_pool2d_with_indices"](input, kernel_size, [] if stride is None else stride,
                                           padding, dilation, ceil_mode)


def _max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    return _ops["max_pool2d"](input, kernel_size, [] if stride is None else stride, padding,
                              dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    # torch's boolean_dispatch on return_indices.
    fn = max_pool2d_with_indices if return_indices else _max_pool2d
    return fn(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return _ops["avg_pool2d"](input, kernel_size, [] if stride is None else stride, padding,
                              ceil_mode, count_include_pad, divisor_override)


def _list_with_default(out_size, defaults):
    # torch.nn.modules.utils._list_with_default: None entries keep the input's size.
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError("Input dimension should be at least {}".format(len(out_size) + 1))
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def adaptive_avg_pool2d(input, output_size):
    return _ops["adaptive_avg_pool2d"](input, _list_with_default(output_size, input.size()))


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _ops["adaptive_max_pool2d"](input, _list_with_default(output_size, input.size()))


def _adaptive_max_pool2d(input, output_size, return_indices=False):
    return adaptive_max_pool2d_with_indices(input, output_size)[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    fn = adaptive_max_pool2d_with_indices if return_indices else _adaptive_max_pool2d
    return fn(input, output_size)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _F.dropout2d(input, p, training, inplace)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if isinstance(size, int):
        size = [size]
    if isinstance(scale_factor, (int, float)):
        scale_factor = [float(scale_factor)]
    return _F.interpolate(input, None if size is None else list(size),
                          None if scale_factor is None else [float(s) for s in scale_factor],
                          mode, align_corners, recompute_scale_factor, antialias)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)
from ._functional_nnlayers import *  # noqa: F401,F403,E402  (issue 16: the remaining functions)


from ._functional_seq import *  # noqa: E402,F401,F403  (issue 16: attention, RNN, embedding_bag)
from ._functional_nnutils import *  # noqa: E402,F401,F403  (nnutils: ctc_loss)
from ._functional_namesb import *  # noqa: E402,F401,F403  (namesb: gumbel_softmax, _threshold, ...)
