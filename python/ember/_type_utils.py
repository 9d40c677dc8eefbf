"""ember.is_tensor, is_storage, is_floating_point, is_complex, is_nonzero, numel: PyTorch's
predicates over tensors, with its argument errors and __torch_function__ overrides."""
from ._tensor import Tensor
from .overrides import handle_torch_function, has_torch_function_unary


def is_tensor(obj):
    """True if obj is an ember tensor (isinstance(obj, ember.Tensor), as PyTorch's)."""
    return isinstance(obj, Tensor)


def is_storage(obj):
    """False: ember exposes no storage objects (a tensor's memory is reached through it)."""
    return False


def _check_input(fn_name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn_name}(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")


def is_floating_point(input):
    """True if input's dtype is a floating point type."""
    if has_torch_function_unary(input):
        return handle_torch_function(is_floating_point, (input,), input)
    _check_input("is_floating_point", input)
    return input.dtype.is_floating_point


def is_complex(input):
    """True for complex64 and complex128 tensors."""
    if has_torch_function_unary(input):
        return handle_torch_function(is_complex, (input,), input)
    _check_input("is_complex", input)
    return input.dtype.is_complex


def is_nonzero(input):
    """The truth value of a one-element tensor; RuntimeError for any other number of elements."""
    if has_torch_function_unary(input):
        return handle_torch_function(is_nonzero, (input,), input)
    _check_input("is_nonzero", input)
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


def numel(input):
    """The number of elements of input."""
    if has_torch_function_unary(input):
        return handle_torch_function(numel, (input,), input)
    _check_input("numel", input)
    return input.numel()
