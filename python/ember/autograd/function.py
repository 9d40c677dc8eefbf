"""ember.autograd.Function: autograd operations written in Python (torch.autograd.function).

A Function's node is a C++ node (Note [Python Functions are C++ nodes] in
python/csrc/python_function.cpp): this file only gives it PyTorch's Python face, the ctx methods,
the `<Name>Backward` class per Function, and `apply`'s argument binding.
"""
import functools
import inspect
import warnings

from .. import _C

_FunctionBase = _C._autograd._FunctionBase

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "FunctionMeta", "once_differentiable"]


class FunctionCtx:
    """What forward (or setup_context) records for backward; read by apply after forward."""

    def save_for_backward(self, *tensors):
        """Saves tensors (or None) for backward, checked against in-place changes when read back
        through `saved_tensors`. The last call wins."""
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        assert all(isinstance(t, _C.TensorBase) or t is None for t in tensors), (
            "save_for_forward expects all arguments to be tensors; you should "
            "save non-tensors as attributes on ctx.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        """Marks inputs that forward modified in place (they must be returned as outputs)."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs):
        warnings.warn(
            'mark_shared_storage is deprecated. '
            'Tensors with shared storages are automatically tracked. Note '
            'that calls to `set_()` are not tracked')

    def mark_non_differentiable(self, *args):
        """Marks outputs that have no gradient (their gradient reaches backward as zeros)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        """False: missing output gradients reach backward as None instead of zeros."""
        self.materialize_grads = value


class BackwardCFunction(_FunctionBase, FunctionCtx):
    """The class of every Function's ctx (and grad_fn): `<Name>Backward`."""

    def apply(self, *args):
        # The node calls this with the output gradients.
        backward_fn = self._forward_cls.backward
        vjp_fn = self._forward_cls.vjp
        if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom "
                               "Function is not allowed. You should only implement one "
                               "of them.")
        user_fn = vjp_fn if vjp_fn is not Function.vjp else backward_fn
        return user_fn(self, *args)


class FunctionMeta(type):
    """Gives each Function its `<Name>Backward` class (the type of its ctx and grad_fn)."""

    def __init__(cls, name, bases, attrs):
        backward_fn = type(name + 'Backward', (BackwardCFunction,), {'_forward_cls': cls})
        cls._backward_cls = backward_fn
        super().__init__(name, bases, attrs)


class _SingleLevelFunction(metaclass=FunctionMeta):
    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom"
                                  " autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")


def _is_setup_context_defined(fn):
    return fn != _SingleLevelFunction.setup_context


def _bind_default_args(func, *args):
    bound = inspect.signature(func).bind(*args)
    bound.apply_defaults()
    return bound.args


class Function(_SingleLevelFunction):
    r"""Base class of custom autograd operations: static `forward` (with `ctx` first, or without
    it plus `setup_context(ctx, inputs, output)`) and static `backward(ctx, *grad_outputs)`,
    used as `Fn.apply(*args)`."""

    def __init__(self, *args, **kwargs):
        cls = self.__class__
        warnings.warn(f"{cls} should not be instantiated. Methods on autograd functions"
                      "are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an "
                      "error in a future version of PyTorch.", DeprecationWarning)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. "
            "Please use new-style autograd function with static forward method. "
            "(Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    generate_vmap_rule = False

    @classmethod
    def apply(cls, *args, **kwargs):
        if kwargs:
            raise TypeError("apply() takes no keyword arguments")
        separate = _is_setup_context_defined(cls.setup_context)
        if separate:
            # setup_context sees every argument of forward, defaults filled in.
            args = _bind_default_args(cls.forward, *args)
        once = (getattr(cls.backward, "_once_differentiable", False)
                or getattr(cls.vjp, "_once_differentiable", False))
        return _C._autograd._function_apply(cls, separate, once, tuple(args))


def once_differentiable(fn):
    """Marks a backward that is not itself differentiable: the node runs it without recording,
    and differentiating its results raises "trying to differentiate twice a function that was
    marked with @once_differentiable"."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        return fn(ctx, *args)

    wrapper._once_differentiable = True
    return wrapper
