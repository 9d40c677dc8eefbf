"""ember.Tensor: the one Python type of every tensor (subclassable), over ember._C.TensorBase.

The C part holds the tensor and gives every op of the table as a method (ember._C._op_methods);
this file adds what PyTorch writes in Python: operators and their reflected forms, conversions to
Python numbers, and the default __torch_function__.
"""
import copyreg
import sys
from collections import OrderedDict
from copy import deepcopy

from . import _C, _utils
from ._grad_mode import no_grad
from .storage import TypedStorage, UntypedStorage, _untyped_of

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
        if self.is_quantized:  # the dequantized value (item() truncates it to an int)
            return bool(self.dequantize().item())
        return bool(self.item())

    def __float__(self):
        if self.is_quantized:
            return float(self.dequantize().item())
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

    # ---- storages (ember/storage.py) ----
    def untyped_storage(self):
        if _has_tf(self):
            return _handle_tf(Tensor.untyped_storage, (self,), self)
        return _untyped_of(self)

    _storage = untyped_storage  # PyTorch 1.13's name

    def storage(self):
        if _has_tf(self):
            return _handle_tf(Tensor.storage, (self,), self)
        return TypedStorage(wrap_storage=_untyped_of(self), dtype=self.dtype)

    def set_(self, source=None, storage_offset=0, size=None, stride=None):
        """set_() (empty), set_(Tensor source), set_(Storage source[, offset, size, stride])."""
        if source is None:
            return _C._set_storage(self, _C._StorageImpl.new_empty(0, self.device), 0, [0], None)
        if isinstance(source, Tensor):
            return _C._set_from_tensor(self, source)
        if isinstance(source, TypedStorage):
            if source.dtype != self.dtype:
                raise RuntimeError(f"Expected a Storage of type {self.dtype} but got type "
                                   f"{source.dtype} for argument #1 'source'")
            source = source.untyped()
        if not isinstance(source, UntypedStorage):
            raise TypeError("set_(): argument 'source' must be Tensor or Storage, not "
                            f"{type(source).__name__}")
        if size is None:
            size = (source.nbytes() // self.element_size(),)
        return _C._set_storage(self, source._impl, storage_offset, list(size),
                               None if stride is None else list(stride))

    # ---- copy, deepcopy and pickle (Note [Tensor pickling and deep copies] in _utils.py) ----
    def __deepcopy__(self, memo):
        if _has_tf(self):
            return _handle_tf(Tensor.__deepcopy__, (self,), self, memo)
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user "
                               "(graph leaves) support the deepcopy protocol at the moment")
        if id(self) in memo:
            return memo[id(self)]
        with no_grad():
            if self.device.type == "meta" or (type(self) is not Tensor and self.data_ptr() == 0):
                new_tensor = self.clone()
                if type(new_tensor) is not type(self):
                    raise RuntimeError(
                        "The default implementation of __deepcopy__() for wrapper subclasses "
                        "only works for subclass types that implement clone() and for which "
                        "cloning returns another instance of the same subclass. You should either "
                        "properly implement clone() for your subclass or override __deepcopy__() "
                        "if it is intended behavior for clone() to return an instance of a "
                        "different type.")
            elif self.is_quantized:
                new_storage = _untyped_of(self).__deepcopy__(memo)
                new_tensor = _utils._rebuild_qtensor(
                    TypedStorage(wrap_storage=new_storage, dtype=self.dtype),
                    self.storage_offset(), tuple(self.size()), self.stride(),
                    _utils._qtensor_params(self), self.requires_grad, OrderedDict())
            else:
                new_storage = _untyped_of(self).__deepcopy__(memo)
                new_tensor = self.new_empty([])
                if type(new_tensor) is not type(self):
                    # PyTorch 2.x: a subclass keeps its class (1.13 refuses here).
                    new_tensor = new_tensor.as_subclass(type(self))
                new_tensor.set_(new_storage, self.storage_offset(), self.size(), self.stride())
            if self.requires_grad:
                new_tensor.requires_grad_()
            if self.grad is not None:
                new_tensor.grad = self.grad.__deepcopy__(memo)
            if type(self) is not Tensor:
                slots_to_save = copyreg._slotnames(self.__class__)
                for slot in slots_to_save:
                    if hasattr(self, slot):
                        setattr(new_tensor, slot, deepcopy(getattr(self, slot), memo))
            new_tensor.__dict__ = deepcopy(_utils._dict_without_hooks(self), memo)
            if new_tensor.__dict__.get("_is_param", False):
                _C._nn._mark_parameter(new_tensor)  # a custom-class parameter stays one
            memo[id(self)] = new_tensor
            return new_tensor

    def __reduce_ex__(self, proto):
        if type(self) is Tensor:
            return self._reduce_ex_internal(proto)
        if _has_tf(self):
            return _handle_tf(Tensor.__reduce_ex__, (self,), self, proto)
        func, args = self._reduce_ex_internal(proto)
        return (_rebuild_from_type_v2, (func, type(self), args, _utils._get_obj_state(self)))

    def _reduce_ex_internal(self, proto):
        if self.device.type == "meta":
            # As PyTorch: meta tensors do not keep their storage sharing.
            return (_utils._rebuild_meta_tensor_no_storage,
                    (self.dtype, tuple(self.size()), self.stride(), self.requires_grad))
        if (self.data_ptr() == 0 and type(self) is not Tensor
                and type(self).__torch_dispatch__ is not Tensor.__torch_dispatch__):
            return (_utils._rebuild_wrapper_subclass,
                    (type(self), self.dtype, tuple(self.size()), self.stride(),
                     self.storage_offset(), self.layout, self.device, self.requires_grad))
        if self.is_quantized:
            return (_utils._rebuild_qtensor,
                    (TypedStorage(wrap_storage=_untyped_of(self), dtype=self.dtype),
                     self.storage_offset(), tuple(self.size()), self.stride(),
                     _utils._qtensor_params(self), self.requires_grad, OrderedDict()))
        args = (TypedStorage(wrap_storage=_untyped_of(self), dtype=self.dtype),
                self.storage_offset(), tuple(self.size()), self.stride(), self.requires_grad,
                OrderedDict())  # backward hooks are never serialized, as in PyTorch
        return (_utils._rebuild_tensor_v2, args)

    def __setstate__(self, state):
        if _has_tf(self):
            return _handle_tf(Tensor.__setstate__, (self,), self, state)
        # Not called when unpickling (the rebuild functions build the tensor): legacy states.
        if not self.is_leaf:
            raise RuntimeError("__setstate__ can be only called on leaf Tensors")
        if len(state) == 4:
            self.set_(*state)
            return
        elif len(state) == 5:
            self.data = state[0]
            state = (state[3], state[4], state[2])
        self.requires_grad = state[0]

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


def _has_tf(t):
    from .overrides import has_torch_function_unary
    return has_torch_function_unary(t)


def _handle_tf(func, relevant, *args, **kwargs):
    from .overrides import handle_torch_function
    return handle_torch_function(func, relevant, *args, **kwargs)


def _rebuild_from_type_v2(func, new_type, args, state):
    """Unpickling a subclass: rebuild, make it new_type, then its state (PyTorch 2.x's rules)."""
    ret = func(*args)
    if type(ret) is not new_type:
        # _make_subclass rather than PyTorch's as_subclass: the result stays a leaf (an alias of
        # a tensor that requires grad would be a non-leaf, which no module accepts as parameter).
        ret = Tensor._make_subclass(new_type, ret, ret.requires_grad)
    # Tensor defines __setstate__ without __getstate__: only a subclass's own one is called.
    if getattr(ret.__class__, "__setstate__", Tensor.__setstate__) is not Tensor.__setstate__:
        ret.__setstate__(state)
    else:
        ret = _utils._set_obj_state(ret, state)
    if getattr(ret, "_is_param", False):
        _C._nn._mark_parameter(ret)
    return ret


_utils._rebuild_from_type_v2 = _rebuild_from_type_v2

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
