"""ember.nn.utils.stateless.functional_call (torch.nn.utils.stateless of torch 1.13): call a
module with some of its parameters and buffers replaced, by dotted name, for that call only.

PyTorch 1.13 swaps the module's class for one whose __getattribute__ answers the replaced names.
ember's layers are C++ and read their parameter and buffer slots in C++, so the replacement
goes into the slots themselves (`_parameters[name] = tensor`, which takes any tensor, as
PyTorch's dict does), and the original objects go back afterwards, also when the call raises.
A name that is neither a parameter nor a buffer is set as a plain attribute for the call, as
PyTorch's lookup would answer it. As in 1.13, tied weights are replaced only under the names
given (passing different tensors for the names of one tied tensor warns).
"""
import contextlib
import warnings

from ..modules.module import Module

__all__ = ["functional_call"]

_ABSENT = object()


def _get(owner, kind, leaf):
    if kind == "attr":
        return owner.__dict__.get(leaf, _ABSENT)
    return getattr(owner, kind)[leaf]


def _put(owner, kind, leaf, value):
    if kind == "attr":
        if value is _ABSENT:
            owner.__dict__.pop(leaf, None)
        else:
            owner.__dict__[leaf] = value
    else:
        getattr(owner, kind)[leaf] = value


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers):
    swapped = []  # (owner, kind, leaf, original), undone in reverse order
    replaced = {}  # id(original tensor) -> (original, its replacement): tied weights
    try:
        for name, value in parameters_and_buffers.items():
            *path, leaf = name.split(".")
            owner = module
            for part in path:
                owner = getattr(owner, part)
            if not isinstance(owner, Module):
                continue  # PyTorch tags such an object without effect on the call
            if leaf in owner._parameters:
                kind = "_parameters"
            elif leaf in owner._buffers:
                kind = "_buffers"
            else:
                kind = "attr"
            original = _get(owner, kind, leaf)
            if kind != "attr" or original is not _ABSENT:
                key = id(original)
                if key not in replaced:
                    replaced[key] = (original, value)
                elif replaced[key][1] is not value:
                    warnings.warn("functional_call was passed multiple values for tied weights. "
                                  "This behavior is deprecated and will be an error in future "
                                  "versions")
            _put(owner, kind, leaf, value)
            swapped.append((owner, kind, leaf, original))
        yield
    finally:
        for owner, kind, leaf, original in reversed(swapped):
            _put(owner, kind, leaf, original)


def functional_call(module, parameters_and_buffers, args, kwargs=None):
    """module(*args, **kwargs) with the tensors of `parameters_and_buffers` (a dict from dotted
    names such as "0.weight" to tensors) in place of the module's own for this call; `args` may
    be a single non-tuple argument. Gradients flow to the tensors passed."""
    if kwargs is None:
        kwargs = {}
    with _reparametrize_module(module, parameters_and_buffers):
        if isinstance(args, tuple):
            return module(*args, **kwargs)
        return module(args, **kwargs)
