"""ember.allclose / ember.equal (and the Tensor methods): C++ predicates that answer a Python bool,
with the __torch_function__ check PyTorch's Python-level functions make."""
from . import _C
from .overrides import handle_torch_function, has_torch_function_variadic


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if has_torch_function_variadic(input, other):
        return handle_torch_function(allclose, (input, other), input, other, rtol=rtol,
                                     atol=atol, equal_nan=equal_nan)
    return _C._allclose(input, other, rtol, atol, equal_nan)


def equal(input, other):
    if has_torch_function_variadic(input, other):
        return handle_torch_function(equal, (input, other), input, other)
    return _C._equal(input, other)
