"""ember.autocast, the context manager and decorator of automatic mixed precision, with
torch.amp.autocast_mode's behaviour (PyTorch writes it in Python too): it saves the thread's
autocast state on entry, sets it, and restores it on exit, clearing the cast cache when the
outermost region exits. The casting itself is ember's Autocast dispatch layer (C++)."""
import functools
import warnings

__all__ = ['autocast_decorator', 'autocast']


def autocast_decorator(autocast_instance, func):
    """`func` run inside `autocast_instance` (what `@autocast(...)` returns)."""
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    decorate_autocast.__script_unsupported = '@autocast() decorator is not supported in script mode'
    return decorate_autocast


class autocast(object):
    r"""A region (``with``) or function (decorator) in which the ops of autocast's lists run in
    an op-specific dtype: on the CPU, matmuls, convolutions and linear in ``dtype`` (bfloat16),
    losses, linalg and fft ops in float32, stack and index_copy in their inputs' widest dtype.

    Args:
        device_type (str): ``'cpu'`` or ``'cuda'`` (ember has no CUDA device: a ``'cuda'``
            region warns and is disabled).
        dtype (ember.dtype, optional): the lower precision dtype; CPU autocast supports
            ``ember.bfloat16`` only (any other warns and disables the region).
        enabled (bool, optional): whether autocasting is on in the region. Default: ``True``.
        cache_enabled (bool, optional): whether casts of weights are cached within the region.
            Default: the current setting (``True``).

    Example::

        model = ember.nn.Linear(4, 2)
        with ember.autocast(device_type="cpu", dtype=ember.bfloat16):
            out = model(ember.randn(3, 4))     # out.dtype == ember.bfloat16
        out.float().sum().backward()           # model.weight.grad.dtype == ember.float32
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        import ember
        self.device = device_type
        if self.device == 'cuda':
            self.fast_dtype = ember.get_autocast_gpu_dtype()
        elif self.device == 'cpu':
            self.fast_dtype = ember.get_autocast_cpu_dtype()
        elif self.device == 'xpu':
            self.fast_dtype = ember.xpu.get_autocast_xpu_dtype()
        else:
            raise RuntimeError('User specified autocast device_type must be \'cuda\' or \'cpu\'')
        self._cache_enabled = ember.is_autocast_cache_enabled()
        if enabled and ember.cuda.amp.common.amp_definitely_not_available() and self.device == 'cuda':
            warnings.warn('User provided device_type of \'cuda\', but CUDA is not available. Disabling')
            enabled = False
        if dtype is not None:
            self.fast_dtype = dtype
        if cache_enabled is not None:
            self._cache_enabled = cache_enabled

        if self.device == 'cpu':
            if self.fast_dtype not in [ember.bfloat16]:
                warnings.warn('In CPU autocast, but the target dtype is not supported. Disabling autocast.\n'
                              'CPU Autocast only supports dtype of ember.bfloat16 currently.')
                enabled = False
        if self.device == 'cuda':
            if self.fast_dtype == ember.bfloat16 and not ember.cuda.is_bf16_supported():
                raise RuntimeError('Current CUDA Device does not support bfloat16. Please switch dtype to float16.')
        self._enabled = enabled

    def __enter__(self):
        import ember
        self.prev_cache_enabled = ember.is_autocast_cache_enabled()
        if self.device == 'cpu':
            self.prev = ember.is_autocast_cpu_enabled()
            self.prev_fastdtype = ember.get_autocast_cpu_dtype()
            ember.set_autocast_cpu_enabled(self._enabled)
            ember.set_autocast_cpu_dtype(self.fast_dtype)
            ember.autocast_increment_nesting()
        else:
            self.prev = ember.is_autocast_enabled()
            self.prev_fastdtype = ember.get_autocast_gpu_dtype()
            ember.set_autocast_gpu_dtype(self.fast_dtype)
            ember.set_autocast_enabled(self._enabled)
            ember.autocast_increment_nesting()
        ember.set_autocast_cache_enabled(self._cache_enabled)

    def __exit__(self, exc_type, exc_val, exc_tb):
        import ember
        # The cache is dropped when leaving the outermost autocast region.
        if ember.autocast_decrement_nesting() == 0:
            ember.clear_autocast_cache()
        if self.device == 'cpu':
            ember.set_autocast_cpu_enabled(self.prev)
            ember.set_autocast_cpu_dtype(self.prev_fastdtype)
        else:
            ember.set_autocast_enabled(self.prev)
            ember.set_autocast_gpu_dtype(self.prev_fastdtype)
        ember.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        return autocast_decorator(self, func)
