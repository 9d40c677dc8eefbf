"""ember.Tensor: the one Python type of every tensor (subclassable), over ember._C.TensorBase.

The C part holds the tensor and gives every op of the table as a method (ember._C._op_methods);
this file adds what PyTorch writes in Python: operators and their reflected forms, conversions to
Python numbers, and the default __torch_function__.
"""
import sys

from . import _C

_ops = _C._op_functions


def _numpy_operand(other):
    """A numpy array on the other side of an operator as a tensor (a 0-d array like a 0-d
    tensor, so `x * np.array(2.0)` keeps x's dtype as in PyTorch), else None."""
    np = sys.modules.get("numpy")
    if np is not None and isinstance(other, np.ndarray):
        return _C.as_tensor(other)
    return None


def _operator(fn, name, reflected=False):
    """A binary operator over fn(a, b): a numpy array on the other side becomes a tensor; other
    operands that do not bind give NotImplemented, so Python tries the other side, as PyTorch."""

    def dunder(self, other):
        try:
            return fn(other, self) if reflected else fn(self, other)
        except TypeError:
            converted = _numpy_operand(other)
            if converted is None:
                return NotImplemented
            return fn(converted, self) if reflected else fn(self, converted)

    dunder.__name__ = name
    return dunder


def _binary(method_name):
    return _operator(_C._op_methods[method_name], f"__{method_name}__")


def _reflected(function_name):
    return _operator(_ops[function_name], f"__r{function_name}__", reflected=True)


def _inplace(method_name):
    method = _C._op_methods[method_name]

    def dunder(self, other):
        try:
            return method(self, other)
        except TypeError:
            if _numpy_operand(other) is None:
                raise
            # PyTorch's in-place operators refuse numpy arrays, so Python falls back to
            # `x = x op array` (a new tensor): the same here
            return NotImplemented

    dunder.__name__ = f"__i{method_name[:-1]}__"
    return dunder


def _divmod(a, b):
    return _ops["floor_divide"](a, b), _ops["remainder"](a, b)


class Tensor(_C.TensorBase):
    __module__ = "ember"

    # ---- operators ----
    __add__ = _binary("add")
    __radd__ = _binary("add")
    __sub__ = _binary("sub")
    __rsub__ = _reflected("sub")
    __mul__ = _binary("mul")
    __rmul__ = _binary("mul")
    __truediv__ = _binary("div")
    __rtruediv__ = _reflected("div")
    __mod__ = _binary("remainder")
    __rmod__ = _reflected("remainder")
    __pow__ = _binary("pow")
    __rpow__ = _reflected("pow")
    __matmul__ = _binary("matmul")
    __rmatmul__ = _reflected("matmul")
    __and__ = _binary("bitwise_and")
    __rand__ = _binary("bitwise_and")
    __or__ = _binary("bitwise_or")
    __ror__ = _binary("bitwise_or")
    __xor__ = _binary("bitwise_xor")
    __rxor__ = _binary("bitwise_xor")
    __eq__ = _binary("eq")
    __ne__ = _binary("ne")
    __lt__ = _binary("lt")
    __le__ = _binary("le")
    __gt__ = _binary("gt")
    __ge__ = _binary("ge")
    __floordiv__ = _binary("floor_divide")
    __rfloordiv__ = _reflected("floor_divide")

    # Python's divmod: (a // b, a % b), the floor quotient and the remainder with b's sign.
    __divmod__ = _operator(_divmod, "__divmod__")
    __rdivmod__ = _operator(_divmod, "__rdivmod__", reflected=True)

    __iadd__ = _inplace("add_")
    __isub__ = _inplace("sub_")
    __imul__ = _inplace("mul_")
    __itruediv__ = _inplace("div_")
    __ifloordiv__ = _inplace("floor_divide_")
    __neg__ = _C._op_methods["neg"]
    __abs__ = _C._op_methods["abs"]
    __invert__ = _C._op_methods["bitwise_not"]
    __hash__ = object.__hash__  # identity, as torch.Tensor (defining __eq__ would remove it)

    def __pos__(self):
        return self

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self.dtype == _C.bool or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    __array_priority__ = 1000  # numpy defers its binary operators to tensors, as to torch's

    def __array__(self, dtype=None):
        """np.asarray(t): the zero-copy t.numpy(), converted only when a dtype is asked for."""
        array = self.numpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """See ember.norm (PyTorch writes Tensor.norm in Python too)."""
        from .functional import norm
        from .overrides import handle_torch_function, has_torch_function_unary
        if has_torch_function_unary(self):
            return handle_torch_function(Tensor.norm, (self,), self, p=p, dim=dim,
                                         keepdim=keepdim, dtype=dtype)
        return norm(self, p, dim, keepdim, dtype=dtype)

    @property
    def T(self):
        if self.dim() > 2:
            raise RuntimeError("The use of `x.T` on tensors of dimension other than 2 to reverse "
                               "their shape is not supported.")
        return self.t() if self.dim() == 2 else self

    @property
    def is_sparse(self):
        return False

    @property
    def layout(self):
        return _C.strided

    def __repr__(self, *, tensor_contents=None):
        """PyTorch's repr: "tensor(...)" for Tensor and Parameter, else the class's name
        ("TaggedTensor([...])"); tensor_contents replaces the elements (wrapper subclasses)."""
        from .overrides import has_torch_function_unary, handle_torch_function
        if has_torch_function_unary(self):
            return handle_torch_function(Tensor.__repr__, (self,), self, tensor_contents=tensor_contents)
        from .nn.parameter import Parameter
        cls = type(self)
        name = "" if cls is Tensor or cls is Parameter else cls.__name__
        r = _C._tensor_repr(self, name, tensor_contents)
        # A subclass of Parameter also goes through Parameter.__repr__ in PyTorch.
        return "Parameter containing:\n" + r if name and issubclass(cls, Parameter) else r

    def __format__(self, format_spec):
        if self.dim() == 0:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """The default: run func with subclass overrides off, and give the result back as cls."""
        for t in types:
            if not issubclass(cls, t):
                return NotImplemented
        # _disabled_torch_function_impl runs func under DisableTorchFunctionSubclass in one C
        # call (a `with` block costs two more Python-level calls per op: benchmarks/bench_python.py).
        ret = _C._disabled_torch_function_impl(func, types, args, kwargs)
        if func in _default_nowrap_functions():
            return ret
        return _convert(ret, cls)


_NOWRAP = None


def _default_nowrap_functions():
    global _NOWRAP
    if _NOWRAP is None:
        _NOWRAP = frozenset({Tensor._base.__get__, Tensor.grad.__get__})
    return _NOWRAP


def _convert(ret, cls):
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor):
        return ret if isinstance(ret, cls) else ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        ret = type(ret)(_convert(r, cls) for r in ret)
    return ret


_C._set_tensor_classes(Tensor, None)
