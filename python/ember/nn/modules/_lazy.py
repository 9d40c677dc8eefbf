"""Lazy modules (torch.nn.modules.lazy): LazyLinear, LazyConv*, LazyConvTranspose*,
LazyBatchNorm*, LazyInstanceNorm*, with UninitializedParameter / UninitializedBuffer.

PyTorch writes this machinery in Python over its layers, and so does ember, over the C++ layers:
a lazy module is a Python subclass of the C++ layer whose parameters are uninitialized until the
first forward (a forward pre-hook) infers their shapes from the input, materializes them and
turns the module into the regular layer by assigning ``__class__`` (``cls_to_become``).

Note [Lazy modules become their layer]: Python can assign ``__class__`` only between classes of
the same layout, and a C++ (pybind11) class and a Python subclass of it never share one. So the
class a lazy module becomes is a Python subclass of the C++ layer with the layer's name (``type(m)
.__name__ == "Linear"``, ``isinstance(m, nn.Linear)``, its repr and state_dict are the layer's),
not ``nn.Linear`` itself: ``type(m) is nn.Linear`` is the one difference from PyTorch.
"""
import itertools
import warnings

from ... import _C
from ..._grad_mode import no_grad
from ..._tensor import Tensor
from ..parameter import Parameter

__all__ = [
    "LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
    "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d",
    "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]


def _empty(shape, device=None, dtype=None):
    kwargs = {}
    if device is not None:
        kwargs["device"] = device
    if dtype is not None:
        kwargs["dtype"] = dtype
    return _C._op_functions["empty"](shape, **kwargs)


class UninitializedTensorMixin:
    # PyTorch's allowed methods; matched by name too, as ember's C++ module conversion (.double(),
    # .to()) reaches __torch_function__ with the op function rather than the Tensor method
    _allowed_names = frozenset((
        "__hash__", "size", "copy_", "is_floating_point", "half", "float", "double", "char", "short",
        "int", "long", "cuda", "cpu", "to", "get_device", "_has_compatible_shallow_copy_type"))
    _allowed_methods = [getattr(Tensor, name) for name in _allowed_names if hasattr(Tensor, name)]

    def materialize(self, shape, device=None, dtype=None):
        """Gives the tensor data of `shape` (on its device and dtype unless given) and makes it
        the class it stands for (a Parameter, or a plain Tensor for a buffer)."""
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = _empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            'Can\'t access the shape of an uninitialized parameter or buffer. '
            'This error usually happens in `load_state_dict` when trying to load '
            'an uninitialized parameter into an initialized one. '
            'Call `forward` to initialize the parameters before accessing their attributes.')

    def share_memory_(self):
        raise RuntimeError(
            'Can\'t share memory on an uninitialized parameter or buffer. '
            'Call `forward` to initialize the parameters before calling '
            '`module.share_memory()`.')

    def __repr__(self):
        return f'<{self.__class__.__name__}>'

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if (func in cls._allowed_methods or getattr(func, '__name__', None) in cls._allowed_names
                or func.__class__.__name__ == 'method-wrapper'):
            if kwargs is None:
                kwargs = {}
            return super().__torch_function__(func, types, args, kwargs)
        raise ValueError(
            'Attempted to use an uninitialized parameter in {}. '
            'This error happens when you are using a `LazyModule` or '
            'explicitly manipulating `ember.nn.parameter.{}` '
            'objects. When using LazyModules Call `forward` with a dummy batch '
            'to initialize the parameters before calling ember functions'.format(func, cls.__name__))


def is_lazy(param):
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (see torch.nn.UninitializedParameter)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Parameter.__new__(cls, _empty(0, device=device, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (see torch.nn.UninitializedBuffer)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        return Tensor._make_subclass(cls, _empty(0, device=device, dtype=dtype), requires_grad)


class LazyModuleMixin:
    """A mixin for modules that infer the shapes of their parameters from the first input
    (torch.nn.modules.lazy.LazyModuleMixin)."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        # The layer is built with zero-sized parameters. torch's layer constructor then calls the
        # lazy class's own reset_parameters, which skips them; ember's C++ constructor runs the
        # C++ initialisation, which would warn that initializing zero-element tensors is a no-op.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Initializing zero-element tensors is a no-op")
            super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters)
        warnings.warn('Lazy modules are a new feature under heavy development '
                      'so changes to the API or functionality can happen at any moment.')

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # uninitialized parameters and buffers are saved as they are (never detached)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars else param.detach()
        non_persistent = getattr(self, "_non_persistent_buffers_set", set())
        for name, buf in self._buffers.items():
            if buf is not None and name not in non_persistent:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # PyTorch's _lazy_load_hook: an initialized value loaded into an uninitialized parameter
        # or buffer materializes it with the value's shape first.
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                input_param = state_dict[key]
                if not is_lazy(input_param):
                    with no_grad():
                        param.materialize(input_param.shape)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(
            'initialize_parameters is not implemented for {}'.format(self.__class__.__name__))

    def has_uninitialized_params(self):
        for value in itertools.chain(self._parameters.values(), self._buffers.values()):
            if is_lazy(value):
                return True
        return False

    def _infer_parameters(self, module, input):
        module.initialize_parameters(*input)
        if module.has_uninitialized_params():
            raise RuntimeError('module {} has not been fully initialized'.format(self._get_name()))
        module._initialize_hook.remove()
        delattr(module, '_initialize_hook')
        becomes = module.cls_to_become
        if becomes is not None:
            module.__class__ = becomes
            _C._nn._set_type_name(module, becomes.__name__)

    def _replicate_for_data_parallel(self):
        raise RuntimeError('Modules with uninitialized parameters can\'t be used with `DataParallel`. '
                           'Run a dummy forward pass to correctly initialize the modules')


def _becomes(layer):
    """The class a lazy module of `layer` becomes (Note [Lazy modules become their layer])."""
    cls = type(layer.__name__, (layer,), {"__module__": "ember.nn", "__qualname__": layer.__qualname__})
    return cls


# ---- the lazy layers ----
def _install():
    from .. import modules as nn

    class LazyLinear(LazyModuleMixin, nn.Linear):
        """A Linear whose in_features is inferred from the first input's last dimension."""

        cls_to_become = _becomes(nn.Linear)

        def __init__(self, out_features, bias=True, device=None, dtype=None):
            factory_kwargs = {'device': device, 'dtype': dtype}
            # bias False here: the uninitialized one is assigned below
            super().__init__(0, 0, False)
            self.weight = UninitializedParameter(**factory_kwargs)
            self.out_features = out_features
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)

        def reset_parameters(self):
            if not self.has_uninitialized_params() and self.in_features != 0:
                super().reset_parameters()

        def initialize_parameters(self, input):
            if self.has_uninitialized_params():
                with no_grad():
                    self.in_features = input.shape[-1]
                    self.weight.materialize((self.out_features, self.in_features))
                    if self.bias is not None:
                        self.bias.materialize((self.out_features,))
                    self.reset_parameters()

    class _LazyConvXdMixin(LazyModuleMixin):
        def reset_parameters(self):
            if not self.has_uninitialized_params() and self.in_channels != 0:
                super().reset_parameters()

        def initialize_parameters(self, input):
            if self.has_uninitialized_params():
                self.in_channels = self._get_in_channels(input)
                if self.in_channels % self.groups != 0:
                    raise ValueError('in_channels must be divisible by groups')
                if self.transposed:
                    self.weight.materialize((self.in_channels, self.out_channels // self.groups,
                                             *self.kernel_size))
                else:
                    self.weight.materialize((self.out_channels, self.in_channels // self.groups,
                                             *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()

        def _get_in_channels(self, input):
            num_spatial_dims = self._get_num_spatial_dims()
            num_dims_no_batch = num_spatial_dims + 1
            num_dims_batch = num_dims_no_batch + 1
            if input.dim() not in (num_dims_no_batch, num_dims_batch):
                raise RuntimeError("Expected {}D (unbatched) or {}D (batched) input to {}, but "
                                   "got input of size: {}".format(num_dims_no_batch, num_dims_batch,
                                                                  self.__class__.__name__, input.shape))
            return input.shape[1] if input.dim() == num_dims_batch else input.shape[0]

        def _get_num_spatial_dims(self):
            raise NotImplementedError()

    def conv(name, base, dims):
        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                     bias=True, padding_mode='zeros', device=None, dtype=None):
            factory_kwargs = {'device': device, 'dtype': dtype}
            LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False,
                          padding_mode, **{k: v for k, v in factory_kwargs.items() if v is not None})
            self.weight = UninitializedParameter(**factory_kwargs)
            self.out_channels = out_channels
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)
        return _lazy_class(name, (_LazyConvXdMixin, base), base, __init__, dims)

    def conv_transpose(name, base, dims):
        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                     groups=1, bias=True, dilation=1, padding_mode='zeros', device=None,
                     dtype=None):
            factory_kwargs = {'device': device, 'dtype': dtype}
            LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False,
                          dilation, padding_mode,
                          **{k: v for k, v in factory_kwargs.items() if v is not None})
            self.weight = UninitializedParameter(**factory_kwargs)
            self.out_channels = out_channels
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)
        return _lazy_class(name, (_LazyConvXdMixin, base), base, __init__, dims)

    class _LazyNormBase(LazyModuleMixin):
        def reset_parameters(self):
            if not self.has_uninitialized_params() and self.num_features != 0:
                super().reset_parameters()

        def initialize_parameters(self, input):
            if self.has_uninitialized_params():
                self.num_features = input.shape[1]
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    self.bias.materialize((self.num_features,))
                if self.track_running_stats:
                    self.running_mean.materialize((self.num_features,))
                    self.running_var.materialize((self.num_features,))
                self.reset_parameters()

    def norm(name, base):
        def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                     device=None, dtype=None):
            factory_kwargs = {'device': device, 'dtype': dtype}
            # affine and track_running_stats False here: the uninitialized ones come below
            LazyModuleMixin.__init__(self, 0, eps, momentum, False, False,
                          **{k: v for k, v in factory_kwargs.items() if v is not None})
            self.affine = affine
            self.track_running_stats = track_running_stats
            if self.affine:
                self.weight = UninitializedParameter(**factory_kwargs)
                self.bias = UninitializedParameter(**factory_kwargs)
            if self.track_running_stats:
                self.running_mean = UninitializedBuffer(**factory_kwargs)
                self.running_var = UninitializedBuffer(**factory_kwargs)
                kw = {} if device is None else {"device": device}
                self.num_batches_tracked = _C._op_functions["scalar_tensor"](0, dtype=_C.int64, **kw)
        return _lazy_class(name, (_LazyNormBase, base), base, __init__, None)

    classes = {"LazyLinear": LazyLinear}
    for dims, (c, t) in enumerate([(nn.Conv1d, nn.ConvTranspose1d), (nn.Conv2d, nn.ConvTranspose2d),
                                   (nn.Conv3d, nn.ConvTranspose3d)], start=1):
        classes[f"LazyConv{dims}d"] = conv(f"LazyConv{dims}d", c, dims)
        classes[f"LazyConvTranspose{dims}d"] = conv_transpose(f"LazyConvTranspose{dims}d", t, dims)
    for dims in (1, 2, 3):
        for kind in ("BatchNorm", "InstanceNorm"):
            name = f"Lazy{kind}{dims}d"
            classes[name] = norm(name, getattr(nn, f"{kind}{dims}d"))
    for cls in classes.values():
        cls.__module__ = "ember.nn"
    return classes


def _lazy_class(name, bases, layer, init, dims):
    namespace = {"cls_to_become": _becomes(layer), "__init__": init, "__qualname__": name,
                 "__module__": "ember.nn"}
    if dims is not None:
        namespace["_get_num_spatial_dims"] = lambda self: dims
    return type(name, bases, namespace)
