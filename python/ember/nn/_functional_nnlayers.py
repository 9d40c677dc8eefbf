"""torch.nn.functional's entries of issue 16 over ember::nn::functional (C++) and the aten ops:
parameterised activations, 1-d / 3-d and power-average pooling, unpooling, instance and
local-response normalisation, distances, folding, grid sampling, channel dropouts, losses."""
import warnings

from .. import _C

_F = _C._nn
_ops = _C._op_functions


def _reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _F._legacy_get_string(size_average, reduce, reduction)
    return reduction


def _ntuple(v, n):
    if isinstance(v, (list, tuple)):
        return list(v)
    return [v] * n


# ---- activations ----
def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _F.leaky_relu(input, negative_slope, inplace)


def leaky_relu_(input, negative_slope=0.01):
    return _F.leaky_relu(input, negative_slope, True)


def elu(input, alpha=1.0, inplace=False):
    return _F.elu(input, alpha, inplace)


def elu_(input, alpha=1.0):
    return _F.elu(input, alpha, True)


def selu(input, inplace=False):
    return _F.selu(input, inplace)


def selu_(input):
    return _F.selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    return _F.celu(input, alpha, inplace)


def celu_(input, alpha=1.0):
    return _F.celu(input, alpha, True)


def softplus(input, beta=1, threshold=20):
    return _F.softplus(input, beta, threshold)


def mish(input, inplace=False):
    return _F.mish(input, inplace)


def glu(input, dim=-1):
    return _F.glu(input, dim)


def logsigmoid(input):
    return _F.logsigmoid(input)


def softsign(input):
    return _F.softsign(input)


def softshrink(input, lambd=0.5):
    return _F.softshrink(input, lambd)


def hardshrink(input, lambd=0.5):
    return _F.hardshrink(input, lambd)


def tanhshrink(input):
    return _F.tanhshrink(input)


def threshold(input, threshold, value, inplace=False):
    return _F.threshold(input, threshold, value, inplace)


def threshold_(input, threshold, value):
    return _F.threshold(input, threshold, value, True)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return _F.softmin(input, dim, dtype)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    return _F.rrelu(input, lower, upper, training, inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return _F.rrelu(input, lower, upper, training, True)


def prelu(input, weight):
    return _F.prelu(input, weight)


# ---- convolutions (the op-table functions, as PyTorch's builtins) ----
conv3d = _ops["conv3d"]
conv_transpose1d = _ops["conv_transpose1d"]
conv_transpose3d = _ops["conv_transpose3d"]


# ---- pooling ----
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _ops["avg_pool1d"](input, kernel_size, [] if stride is None else stride, padding,
                              ceil_mode, count_include_pad)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _ops["avg_pool3d"](input, kernel_size, [] if stride is None else stride, padding,
                              ceil_mode, count_include_pad, divisor_override)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _ops["max_pool1d_with_indices"](input, kernel_size, [] if stride is None else stride,
                                           padding, dilation, ceil_mode)


def _max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    return _ops["max_pool1d"](input, kernel_size, [] if stride is None else stride, padding,
                              dilation, ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    fn = max_pool1d_with_indices if return_indices else _max_pool1d
    return fn(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _ops["max_pool3d_with_indices"](input, kernel_size, [] if stride is None else stride,
                                           padding, dilation, ceil_mode)


def _max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    return _ops["max_pool3d"](input, kernel_size, [] if stride is None else stride, padding,
                              dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    fn = max_pool3d_with_indices if return_indices else _max_pool3d
    return fn(input, kernel_size, stride, padding, dilation, ceil_mode)


def _list_with_default(out_size, defaults):
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError("Input dimension should be at least {}".format(len(out_size) + 1))
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def adaptive_avg_pool1d(input, output_size):
    return _ops["adaptive_avg_pool1d"](input, output_size)


def adaptive_avg_pool3d(input, output_size):
    size = _list_with_default(output_size, input.size())
    return _ops["adaptive_avg_pool3d"](input, _ntuple(size, 3))


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _ops["adaptive_max_pool1d"](input, output_size)


def _adaptive_max_pool1d(input, output_size, return_indices=False):
    return adaptive_max_pool1d_with_indices(input, output_size)[0]


def adaptive_max_pool1d(input, output_size, return_indices=False):
    fn = adaptive_max_pool1d_with_indices if return_indices else _adaptive_max_pool1d
    return fn(input, output_size)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    size = _list_with_default(output_size, input.size())
    return _ops["adaptive_max_pool3d"](input, _ntuple(size, 3))


def _adaptive_max_pool3d(input, output_size, return_indices=False):
    return adaptive_max_pool3d_with_indices(input, output_size)[0]


def adaptive_max_pool3d(input, output_size, return_indices=False):
    fn = adaptive_max_pool3d_with_indices if return_indices else _adaptive_max_pool3d
    return fn(input, output_size)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    k = _ntuple(kernel_size, 1)
    return _F.lp_pool1d(input, float(norm_type), k, k if stride is None else _ntuple(stride, 1),
                        ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    k = _ntuple(kernel_size, 2)
    return _F.lp_pool2d(input, float(norm_type), k, k if stride is None else _ntuple(stride, 2),
                        ceil_mode)


def _max_unpool(n, input, indices, kernel_size, stride, padding, output_size):
    k = _ntuple(kernel_size, n)
    s = k if stride is None else _ntuple(stride, n)
    return _F.max_unpool(input, indices, k, s, _ntuple(padding, n),
                         None if output_size is None else list(output_size), n)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


# ---- normalisation, distances, shapes, sampling ----
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    return _F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                            momentum, eps)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    return _F.local_response_norm(input, size, alpha, beta, k)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    if out is not None:
        return out.copy_(_F.normalize(input, p, dim, eps))
    return _F.normalize(input, p, dim, eps)


cosine_similarity = _ops["cosine_similarity"]
pairwise_distance = _ops["pairwise_distance"]
pdist = _ops["pdist"]
pixel_shuffle = _ops["pixel_shuffle"]
pixel_unshuffle = _ops["pixel_unshuffle"]
channel_shuffle = _ops["channel_shuffle"]


def one_hot(tensor, num_classes=-1):
    return _ops["one_hot"](tensor, num_classes)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    return _F.unfold(input, _ntuple(kernel_size, 2), _ntuple(dilation, 2), _ntuple(padding, 2),
                     _ntuple(stride, 2))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    return _F.fold(input, _ntuple(output_size, 2), _ntuple(kernel_size, 2), _ntuple(dilation, 2),
                   _ntuple(padding, 2), _ntuple(stride, 2))


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    return _F.grid_sample(input, grid, mode, padding_mode, align_corners)


def affine_grid(theta, size, align_corners=None):
    return _F.affine_grid(theta, list(size), align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.")
    from .functional import interpolate
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.")
    from .functional import interpolate
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---- dropouts ----
def dropout1d(input, p=0.5, training=True, inplace=False):
    return _F.dropout1d(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _F.dropout3d(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _F.alpha_dropout(input, p, training, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _F.feature_alpha_dropout(input, p, training, inplace)


# ---- losses ----
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    return _F.binary_cross_entropy(input, target, weight, _reduction(size_average, reduce, reduction))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    return _F.kl_div(input, target, _reduction(size_average, reduce, reduction), log_target)


def huber_loss(input, target, reduction="mean", delta=1.0):
    return _F.huber_loss(input, target, reduction, delta)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _F.soft_margin_loss(input, target, _reduction(size_average, reduce, reduction))


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    return _F.multilabel_soft_margin_loss(input, target, weight,
                                          _reduction(size_average, reduce, reduction))


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    return _F.multi_margin_loss(input, target, p, margin, weight,
                                _reduction(size_average, reduce, reduction))


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _F.multilabel_margin_loss(input, target, _reduction(size_average, reduce, reduction))


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    return _F.margin_ranking_loss(input1, input2, target, margin,
                                  _reduction(size_average, reduce, reduction))


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    return _F.hinge_embedding_loss(input, target, margin, _reduction(size_average, reduce, reduction))


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    return _F.cosine_embedding_loss(input1, input2, target, margin,
                                    _reduction(size_average, reduce, reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    return _F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                  _reduction(size_average, reduce, reduction))


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    # PyTorch writes this one in Python: any distance function, then the hinge.
    if margin <= 0:
        raise ValueError("TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {} instead"
                         .format(margin))
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number "
                           "of dimensions, but got: anchor {}D, positive {}D, and negative {}D inputs"
                           .format(a_dim, p_dim, n_dim))
    dist = distance_function if distance_function is not None else pairwise_distance
    dist_pos = dist(anchor, positive)
    dist_neg = dist(anchor, negative)
    if swap:
        dist_neg = _ops["minimum"](dist_neg, dist(positive, negative))
    loss = (margin + dist_pos - dist_neg).clamp(min=0.0)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(reduction + " is not a valid value for reduction")


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    return _F.poisson_nll_loss(input, target, log_input, full, eps,
                               _reduction(size_average, reduce, reduction))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    return _F.gaussian_nll_loss(input, target, var, full, eps, reduction)


__all__ = [n for n in list(globals()) if not n.startswith("_") and n not in ("warnings",)]
