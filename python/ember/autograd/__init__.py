"""ember.autograd: reverse-mode differentiation (torch.autograd) over ember's C++ engine.

`backward` and `grad` normalize their arguments as PyTorch's Python code does and run the C++
engine; Python Functions (function.py) are C++ nodes; gradcheck is the C++ one.
"""
import warnings

from .. import _C
from ..overrides import handle_torch_function, has_torch_function
from . import anomaly_mode, function, functional, graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function
from .gradcheck import gradcheck, gradgradcheck

__all__ = ["Function", "backward", "grad", "gradcheck", "gradgradcheck", "graph", "function",
           "functional", "detect_anomaly", "set_detect_anomaly"]


def _tensor_or_tensors_to_tuple(tensors, length):
    if tensors is None:
        return (None,) * length
    if isinstance(tensors, _C.TensorBase):
        return (tensors,)
    return tuple(tensors)


def _as_tensors(tensors):
    return (tensors,) if isinstance(tensors, _C.TensorBase) else tuple(tensors)


def _check_grads(grads):
    for g in grads:
        if g is not None and not isinstance(g, _C.TensorBase):
            raise TypeError("gradients can be either Tensors or None, but got " +
                            type(g).__name__)
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulates the gradients of `tensors` into the .grad of the leaves they depend on (only
    of `inputs` when given). `grad_tensors` may be omitted (or None) for scalar tensors."""
    if grad_variables is not None:
        warnings.warn("'grad_variables' is deprecated. Use 'grad_tensors' instead.")
        if grad_tensors is None:
            grad_tensors = grad_variables
        else:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) "
                               "arguments both passed to backward(). Please only "
                               "use 'grad_tensors'.")
    if inputs is not None and not isinstance(inputs, _C.TensorBase) and len(inputs) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    tensors = _as_tensors(tensors)
    inputs = _as_tensors(inputs) if inputs is not None else ()
    grads = _check_grads(_tensor_or_tensors_to_tuple(grad_tensors, len(tensors)))
    if retain_graph is None:
        retain_graph = create_graph
    _C._autograd._run_backward(tensors, grads, retain_graph, create_graph, inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, is_grads_batched=False):
    """The gradients of `outputs` with respect to `inputs`, as a tuple, without touching any
    .grad (None for an unused input when allow_unused)."""
    t_outputs = _as_tensors(outputs)
    t_inputs = _as_tensors(inputs)
    # As PyTorch's grad: overridable by __torch_function__ (subclasses and modes), which then
    # see `grad` itself, not what the engine runs.
    overridable_args = t_outputs + t_inputs
    if has_torch_function(overridable_args):
        return handle_torch_function(grad, overridable_args, t_outputs, t_inputs,
                                     grad_outputs=grad_outputs, retain_graph=retain_graph,
                                     create_graph=create_graph, only_inputs=only_inputs,
                                     allow_unused=allow_unused, is_grads_batched=is_grads_batched)
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now "
                      "(defaults to True). To accumulate gradient for other "
                      "parts of the graph, please use ember.autograd.backward.")
    if is_grads_batched:
        raise NotImplementedError("grad: is_grads_batched=True is not supported by ember "
                                  "(it has no vmap)")
    grads = _check_grads(_tensor_or_tensors_to_tuple(grad_outputs, len(t_outputs)))
    if retain_graph is None:
        retain_graph = create_graph
    return _C._autograd._run_grad(t_outputs, t_inputs, grads, retain_graph, create_graph,
                                  allow_unused)
