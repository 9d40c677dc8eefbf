"""torch.nn's remaining classes that PyTorch writes in Python over functional calls or other
modules: NLLLoss2d and Container (deprecated), TripletMarginWithDistanceLoss (its distance is any
callable), AdaptiveLogSoftmaxWithLoss (over Linear / Sequential / ModuleList), CrossMapLRN2d (an
autograd Function in PyTorch, ported with its own backward) and SyncBatchNorm, over ember's C++
layers."""
import warnings
from collections import namedtuple

from ... import _C
from ..._grad_mode import no_grad as _no_grad
from ...autograd import Function
from .module import Module

__all__ = ["NLLLoss2d", "Container", "TripletMarginWithDistanceLoss", "AdaptiveLogSoftmaxWithLoss",
           "CrossMapLRN2d", "SyncBatchNorm", "FractionalMaxPool2d", "FractionalMaxPool3d"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


def _tuple(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n



class _CrossMapLRN2dFunction(Function):
    """PyTorch's legacy cross-channel LRN (torch.nn.modules._functions.CrossMapLRN2d): the window
    of squares per channel is built incrementally as there (so its boundary handling is the same),
    and the backward is its hand-written one."""

    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        if input.dim() != 4:
            raise AssertionError()
        channels = input.size(1)
        square = input * input
        pre_pad = int((size - 1) / 2 + 1)
        pre_pad_crop = channels if pre_pad > channels else pre_pad
        current = square.select(1, 0) * 0
        for c in range(pre_pad_crop):
            current = current + square.select(1, c)
        scales = [current]
        for c in range(1, channels):
            current = scales[-1]
            if c < channels - pre_pad + 1:
                current = current + square.select(1, c + pre_pad - 1)
            if c > pre_pad:
                current = current - square.select(1, c - pre_pad)
            scales.append(current)
        scale = _C._op_functions["stack"](scales, 1) * (alpha / size) + k
        output = scale.pow(-beta) * input
        ctx.size, ctx.alpha, ctx.beta, ctx.k, ctx.scale = size, alpha, beta, k, scale
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output = ctx.saved_tensors
        fn = _C._op_functions
        channels, height, width = input.size(1), input.size(2), input.size(3)
        size = ctx.size
        cache_ratio_value = 2 * ctx.alpha * ctx.beta / size
        inverse_pre_pad = int(size - (size - 1) / 2)
        grad_input = ctx.scale.pow(-ctx.beta) * grad_output
        padded = fn["zeros"]((input.size(0), channels + size - 1, height, width), dtype=input.dtype)
        padded.narrow(1, inverse_pre_pad, channels).copy_(grad_output * output / ctx.scale)
        accum = padded.narrow(1, 0, size - 1).sum(1)
        columns = []
        for c in range(channels):
            accum = accum + padded[:, c + size - 1]
            columns.append(grad_input[:, c] - cache_ratio_value * input[:, c] * accum)
            accum = accum - padded[:, c]
        return fn["stack"](columns, 1), None, None, None, None


def _install(nn, F):
    class NLLLoss2d(nn.NLLLoss):
        def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                     reduction='mean'):
            warnings.warn("NLLLoss2d has been deprecated. "
                          "Please use NLLLoss instead as a drop-in replacement and see "
                          "https://pytorch.org/docs/master/nn.html#torch.nn.NLLLoss for more details.")
            super().__init__(weight, size_average, ignore_index, reduce, reduction)

    class Container(Module):
        def __init__(self, **kwargs):
            super().__init__()
            warnings.warn("nn.Container is deprecated. All of it's functionality "
                          "is now implemented in nn.Module. Subclass that instead.")
            for key, value in kwargs.items():
                self.add_module(key, value)

    class TripletMarginWithDistanceLoss(Module):
        __constants__ = ['margin', 'swap', 'reduction']

        def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction='mean'):
            super().__init__()
            self.reduction = reduction
            self.distance_function = (distance_function if distance_function is not None
                                      else nn.PairwiseDistance())
            self.margin = margin
            self.swap = swap

        def forward(self, anchor, positive, negative):
            return F.triplet_margin_with_distance_loss(
                anchor, positive, negative, distance_function=self.distance_function,
                margin=self.margin, swap=self.swap, reduction=self.reduction)

    class AdaptiveLogSoftmaxWithLoss(Module):
        def __init__(self, in_features, n_classes, cutoffs, div_value=4., head_bias=False,
                     device=None, dtype=None):
            factory_kwargs = {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}
            super().__init__()
            cutoffs = list(cutoffs)
            if (cutoffs != sorted(cutoffs)) \
                    or (min(cutoffs) <= 0) \
                    or (max(cutoffs) > (n_classes - 1)) \
                    or (len(set(cutoffs)) != len(cutoffs)) \
                    or any([int(c) != c for c in cutoffs]):
                raise ValueError("cutoffs should be a sequence of unique, positive "
                                 "integers sorted in an increasing order, where "
                                 "each value is between 1 and n_classes-1")
            self.in_features = in_features
            self.n_classes = n_classes
            self.cutoffs = cutoffs + [n_classes]
            self.div_value = div_value
            self.head_bias = head_bias
            self.shortlist_size = self.cutoffs[0]
            self.n_clusters = len(self.cutoffs) - 1
            self.head_size = self.shortlist_size + self.n_clusters
            self.head = nn.Linear(self.in_features, self.head_size, bias=self.head_bias, **factory_kwargs)
            self.tail = nn.ModuleList()
            for i in range(self.n_clusters):
                hsz = int(self.in_features // (self.div_value ** (i + 1)))
                osz = self.cutoffs[i + 1] - self.cutoffs[i]
                self.tail.append(nn.Sequential(
                    nn.Linear(self.in_features, hsz, bias=False, **factory_kwargs),
                    nn.Linear(hsz, osz, bias=False, **factory_kwargs)))

        def reset_parameters(self):
            self.head.reset_parameters()
            for i2h, h2o in self.tail:
                i2h.reset_parameters()
                h2o.reset_parameters()

        def forward(self, input_, target_):
            targ_dim = target_.dim()
            if targ_dim == 1:
                if input_.size(0) != target_.size(0):
                    raise RuntimeError('Input and target should have the same size '
                                       'in the batch dimension.')
                if input_.dim() != 2:
                    raise RuntimeError('1D target tensor expects 2D input tensors, '
                                       'but found inputs with size', input_.size())
            elif targ_dim == 0:
                if input_.dim() != 1:
                    raise RuntimeError('0D target tensor expects 1D input tensors, '
                                       'but found inputs with size', input_.size())
            else:
                raise RuntimeError('0D or 1D target tensor expected, '
                                   'multi-target not supported')
            is_batched = targ_dim > 0
            input = input_ if is_batched else input_.unsqueeze(0)
            target = target_ if is_batched else target_.unsqueeze(0)
            used_rows = 0
            batch_size = target.size(0)
            output = input.new_zeros(batch_size)
            gather_inds = target.new_empty(batch_size)
            cutoff_values = [0] + self.cutoffs
            for i in range(len(cutoff_values) - 1):
                low_idx, high_idx = cutoff_values[i], cutoff_values[i + 1]
                target_mask = (target >= low_idx) & (target < high_idx)
                row_indices = target_mask.nonzero().squeeze()
                if row_indices.numel() == 0:
                    continue
                if i == 0:
                    gather_inds.index_copy_(0, row_indices, target[target_mask])
                else:
                    relative_target = target[target_mask] - low_idx
                    input_subset = input.index_select(0, row_indices)
                    cluster_output = self.tail[i - 1](input_subset)
                    cluster_index = self.shortlist_size + i - 1
                    gather_inds.index_fill_(0, row_indices, cluster_index)
                    cluster_logprob = F.log_softmax(cluster_output, dim=1)
                    local_logprob = cluster_logprob.gather(1, relative_target.unsqueeze(1))
                    output.index_copy_(0, row_indices, local_logprob.squeeze(1))
                used_rows += row_indices.numel()
            if used_rows != batch_size:
                raise RuntimeError("Target values should be in [0, {}], "
                                   "but values in range [{}, {}] "
                                   "were found. ".format(self.n_classes - 1,
                                                         target.min().item(),
                                                         target.max().item()))
            head_output = self.head(input)
            head_logprob = F.log_softmax(head_output, dim=1)
            output += head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
            loss = (-output).mean()
            if not is_batched:
                output = output.squeeze(0)
            return _ASMoutput(output, loss)

        def _get_full_log_prob(self, input, head_output):
            out = input.new_empty((head_output.size(0), self.n_classes))
            head_logprob = F.log_softmax(head_output, dim=1)
            out[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
            for i, (start_idx, stop_idx) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
                cluster_output = self.tail[i](input)
                cluster_logprob = F.log_softmax(cluster_output, dim=1)
                output_logprob = cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1)
                out[:, start_idx:stop_idx] = output_logprob
            return out

        def log_prob(self, input):
            head_output = self.head(input)
            return self._get_full_log_prob(input, head_output)

        def predict(self, input):
            argmax = _C._op_functions["argmax"]
            head_output = self.head(input)
            output = argmax(head_output, dim=1)
            not_in_shortlist = (output >= self.shortlist_size)
            all_in_shortlist = not (not_in_shortlist.any())
            if all_in_shortlist:
                return output
            elif not_in_shortlist.all():
                log_prob = self._get_full_log_prob(input, head_output)
                return argmax(log_prob, dim=1)
            else:
                log_prob = self._get_full_log_prob(input[not_in_shortlist], head_output[not_in_shortlist])
                output[not_in_shortlist] = argmax(log_prob, dim=1)
                return output

    class CrossMapLRN2d(Module):
        def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
            super().__init__()
            self.size = size
            self.alpha = alpha
            self.beta = beta
            self.k = k

        def forward(self, input):
            return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

        def extra_repr(self):
            return '{}, alpha={}, beta={}, k={}'.format(self.size, self.alpha, self.beta, self.k)

    # (over BatchNorm1d's C++ layer: ember binds no constructor for the abstract _BatchNorm)
    class SyncBatchNorm(nn.BatchNorm1d):
        """Batch norm whose statistics are reduced across processes. As in PyTorch 1.13 it runs
        on CUDA tensors only (ember has none), so its forward refuses CPU input; modules convert
        to it (convert_sync_batchnorm) keeping their parameters and buffers."""

        def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                     track_running_stats=True, process_group=None, device=None, dtype=None):
            factory_kwargs = {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}
            super().__init__(num_features, eps, momentum, affine, track_running_stats, **factory_kwargs)
            self.process_group = process_group

        def _check_input_dim(self, input):
            if input.dim() < 2:
                raise ValueError("expected at least 2D input (got {}D input)".format(input.dim()))

        def _check_non_zero_input_channels(self, input):
            if input.size(1) == 0:
                raise ValueError("SyncBatchNorm number of input channels should be non-zero")

        def forward(self, input):
            if not input.is_cuda:
                raise ValueError("SyncBatchNorm expected input tensor to be on GPU")
            self._check_input_dim(input)
            self._check_non_zero_input_channels(input)
            return super().forward(input)

        @classmethod
        def convert_sync_batchnorm(cls, module, process_group=None):
            module_output = module
            if isinstance(module, nn._BatchNorm) and not isinstance(
                    module, (nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d)):
                module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                              module.affine, module.track_running_stats, process_group)
                if module.affine:
                    with _no_grad():
                        module_output.weight = module.weight
                        module_output.bias = module.bias
                module_output.running_mean = module.running_mean
                module_output.running_var = module.running_var
                module_output.num_batches_tracked = module.num_batches_tracked
                if hasattr(module, "qconfig"):
                    module_output.qconfig = module.qconfig
            for name, child in module.named_children():
                module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
            del module
            return module_output

    def fractional(n):
        def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                     _random_samples=None):
            Module.__init__(self)
            name = type(self).__name__
            self.kernel_size = _tuple(kernel_size, n)
            self.return_indices = return_indices
            self.register_buffer('_random_samples', _random_samples)
            self.output_size = _tuple(output_size, n) if output_size is not None else None
            self.output_ratio = _tuple(output_ratio, n) if output_ratio is not None else None
            if output_size is None and output_ratio is None:
                raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
            if output_size is not None and output_ratio is not None:
                raise ValueError("only one of output_size and output_ratio may be specified")
            if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
                raise ValueError("output_ratio must be between 0 and 1 (got {})".format(output_ratio))

        def forward(self, input):
            fn = F.fractional_max_pool2d if n == 2 else F.fractional_max_pool3d
            return fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                      _random_samples=self._random_samples)

        return type(f"FractionalMaxPool{n}d", (Module,), {"__init__": __init__, "forward": forward})

    classes = {"NLLLoss2d": NLLLoss2d, "Container": Container,
               "FractionalMaxPool2d": fractional(2), "FractionalMaxPool3d": fractional(3),
               "TripletMarginWithDistanceLoss": TripletMarginWithDistanceLoss,
               "AdaptiveLogSoftmaxWithLoss": AdaptiveLogSoftmaxWithLoss,
               "CrossMapLRN2d": CrossMapLRN2d, "SyncBatchNorm": SyncBatchNorm}
    for cls in classes.values():
        cls.__module__ = "ember.nn"
    return classes


def install_all():
    """Adds the lazy modules (_lazy.py) and the classes above to ember.nn and ember.nn.modules,
    and UninitializedParameter / UninitializedBuffer to ember.nn and ember.nn.parameter."""
    import ember.nn as nn
    from .. import functional as F, modules, parameter
    from . import _lazy

    classes = _lazy._install()
    classes.update(_install(nn, F))
    classes["LazyModuleMixin"] = _lazy.LazyModuleMixin
    for name, cls in classes.items():
        setattr(modules, name, cls)
        setattr(nn, name, cls)
    modules.__all__ += [n for n in classes if n not in modules.__all__]
    for name in ("UninitializedParameter", "UninitializedBuffer"):
        setattr(parameter, name, getattr(_lazy, name))
        setattr(nn, name, getattr(_lazy, name))
    parameter.is_lazy = _lazy.is_lazy
