"""The complex side of Tensor's Python face (docs/complex.md): the `real` / `imag` properties
(views of a complex tensor, writable through their setters), `is_complex()`, `is_conj()` (always
False: ember conjugates eagerly, Note [Eager conj] in src/ops/complex.cpp), and the
`ember.is_conj` function. The ops themselves are rows of the op table."""
from . import _C
from ._tensor import Tensor

_real = _C._op_functions["real"]
_imag = _C._op_functions["imag"]


def _real_get(self):
    return _real(self)  # the op function hands subclasses' __torch_function__ the call


def _assign(view, value):
    # As PyTorch's setters: a copy into the view (a number fills it).
    if isinstance(value, Tensor):
        view.copy_(value)
    else:
        view.fill_(value)


def _real_set(self, value):
    _assign(_real(self), value)  # a real tensor's real part is itself


def _imag_get(self):
    return _imag(self)


def _imag_set(self, value):
    _assign(_imag(self), value)


Tensor.real = property(_real_get, _real_set, doc="The real part of a complex tensor, as a view (self for real tensors).")
Tensor.imag = property(_imag_get, _imag_set, doc="The imaginary part of a complex tensor, as a view.")


def is_complex(self):
    return self.dtype.is_complex


def is_conj(self):
    return False


Tensor.is_complex = is_complex
Tensor.is_conj = is_conj


def _is_conj_function(input):
    """ember.is_conj: always False (ember conjugates eagerly)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_conj(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return False


_is_conj_function.__name__ = "is_conj"
_is_conj_function.__module__ = "ember"
