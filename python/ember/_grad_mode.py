"""Grad-mode context managers, usable as decorators too, as torch.autograd.grad_mode (1.13).

    with ember.no_grad(): ...            @ember.no_grad()        @ember.no_grad
    ember.set_grad_enabled(False)        # takes effect at once, like PyTorch's

The switch itself is C++ (ember::GradMode, thread-local); this file is only the Python protocol
around it. ember.inference_mode is no_grad: ember has no inference tensors, so inference mode
means exactly "record no graph" here (inference_mode(False) changes nothing).
"""
import functools
import inspect

from . import _C

is_grad_enabled = _C.is_grad_enabled

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled"]


class _DecoratorContextManager:
    """Turns a context manager into a decorator: each call of the function (or each step of a
    generator function) runs inside a fresh copy of the context."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError("ember decorator used on a class; decorate its methods instead")
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def decorate_context(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return decorate_context

    def _wrap_generator(self, func):
        @functools.wraps(func)
        def generator_context(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as e:
                        with self.clone():
                            response = gen.throw(e)
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as e:
                return e.value

        return generator_context

    def clone(self):
        return self.__class__()

    def __enter__(self):
        raise NotImplementedError

    def __exit__(self, exc_type, exc_value, traceback):
        raise NotImplementedError


class _BareDecoratable(_DecoratorContextManager):
    # `@ember.no_grad` without parentheses, as PyTorch 2 accepts, besides `@ember.no_grad()`.
    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_BareDecoratable):
    """Ops record no autograd graph inside (results do not require grad)."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, exc_type, exc_value, traceback):
        _C._set_grad_enabled(self.prev)


class enable_grad(_BareDecoratable):
    """Ops record the graph again inside, e.g. within a no_grad region."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, exc_type, exc_value, traceback):
        _C._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode on construction (also as a plain call); as a context manager or decorator,
    the previous mode comes back at the end."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'mode' must be bool, not {type(mode).__name__}")
        self.prev = _C.is_grad_enabled()
        self.mode = mode
        _C._set_grad_enabled(mode)

    def __call__(self, orig_func):
        _C._set_grad_enabled(self.prev)  # decorating must not change the mode of the caller
        return super().__call__(orig_func)

    def __enter__(self):
        _C._set_grad_enabled(self.mode)

    def __exit__(self, exc_type, exc_value, traceback):
        _C._set_grad_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """no_grad under another name (see the module docstring); mode=False changes nothing."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # used bare as a decorator: `mode` is the function

    def __init__(self, mode=True):
        self.mode = mode if isinstance(mode, bool) else True
        self.prev = False

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        if self.mode:
            _C._set_grad_enabled(False)

    def __exit__(self, exc_type, exc_value, traceback):
        _C._set_grad_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)
