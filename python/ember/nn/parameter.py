"""ember.nn.Parameter: a tensor marked as a module parameter (nn::Parameter in C++)."""
from collections import OrderedDict

from .. import _C, _utils
from .._tensor import Tensor


class _ParameterMeta(type(Tensor)):
    # A tensor subclass instance made a parameter (see __new__) is a Parameter to isinstance.
    def __instancecheck__(self, instance):
        # Also a subclass instance that C++ marked as a parameter (swap_tensors, to() with the
        # swap flag and load_state_dict(assign=True) make Parameters in C++).
        if self is Parameter and isinstance(instance, Tensor) and (
                getattr(instance, "_is_param", False) or _C._is_parameter_flag(instance)):
            return True
        return super().__instancecheck__(instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A leaf over ``data``'s storage that requires grad and that modules register when assigned.
    Its repr ("Parameter containing:\n...") is the C++ tensor's, which knows it is a parameter."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C._op_functions["empty"](0)
        if type(data) is Tensor or type(data) is Parameter:
            return _C._nn._make_parameter(cls, data, requires_grad)
        # A tensor subclass (e.g. a wrapper) stays its own class: the detached instance is marked
        # as a parameter, as PyTorch does for custom tensors.
        t = data.detach().requires_grad_(requires_grad)
        if type(t) is not type(data):
            raise RuntimeError(
                f"Creating a Parameter from an instance of type {type(data).__name__} "
                "requires that detach() returns an instance of the same type, but return "
                f"type {type(t).__name__} was found instead. To use the type as a "
                "Parameter, please correct the detach() semantics defined by "
                "its __torch_dispatch__() implementation.")
        t._is_param = True
        _C._nn._mark_parameter(t)
        return t

    def __deepcopy__(self, memo):
        # PyTorch's: a new Parameter over a clone of the data (no grad, no attributes).
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(memory_format=_C.preserve_format), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        # PyTorch 2.x's: the data and requires_grad, plus the attributes when there are any
        # (hooks are never serialized).
        state = _utils._get_obj_state(self)
        if not state:
            return (_utils._rebuild_parameter, (self.data, self.requires_grad, OrderedDict()))
        return (_utils._rebuild_parameter_with_state,
                (self.data, self.requires_grad, OrderedDict(), state))

    # Parameters are plain tensors to __torch_function__ (results of ops are not Parameters).
    __torch_function__ = _C._disabled_torch_function_impl


# Tensors that C++ marks as parameters come back to Python as Parameter objects.
_C._set_tensor_classes(None, Parameter)
