"""ember.nn.Parameter: a tensor marked as a module parameter (nn::Parameter in C++)."""
from .. import _C
from .._tensor import Tensor


class Parameter(Tensor):
    """A leaf over ``data``'s storage that requires grad and that modules register when assigned.
    Its repr ("Parameter containing:\n...") is the C++ tensor's, which knows it is a parameter."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C._op_functions["empty"](0)
        return _C._nn._make_parameter(cls, data, requires_grad)

    # Parameters are plain tensors to __torch_function__ (results of ops are not Parameters).
    __torch_function__ = _C._disabled_torch_function_impl


# Tensors that C++ marks as parameters come back to Python as Parameter objects.
_C._set_tensor_classes(None, Parameter)
