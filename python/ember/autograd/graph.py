"""ember.autograd.graph: the graph's nodes as Python sees them (torch.autograd.graph)."""
import abc
import contextlib
from collections import namedtuple

from .. import _C

__all__ = ["Node", "GradientEdge", "get_gradient_edge", "saved_tensors_hooks", "save_on_cpu",
           "disable_saved_tensors_hooks"]


class Node(abc.ABC):
    """What every grad_fn is: a built-in node (MulBackward0, AccumulateGrad) or a Python
    Function's ctx. `isinstance(t.grad_fn, Node)` holds for both."""

    @abc.abstractmethod
    def name(self):
        """The node's name, e.g. "MulBackward0"."""

    @property
    @abc.abstractmethod
    def next_functions(self):
        """((node or None, input_nr), ...): where this node's gradients go."""

    @property
    @abc.abstractmethod
    def metadata(self):
        """A dict kept with the node."""

    @abc.abstractmethod
    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) after the node ran; may return replacement grad_inputs."""

    @abc.abstractmethod
    def register_prehook(self, fn):
        """fn(grad_outputs) before the node runs; may return replacement grad_outputs."""

    @classmethod
    def __subclasshook__(cls, C):
        if cls is Node and issubclass(C, (_C._autograd._CppNode, _C._autograd._FunctionBase)):
            return True
        return NotImplemented


GradientEdge = namedtuple("GradientEdge", ("node", "output_nr"))
GradientEdge.__doc__ = "Where a tensor's gradient enters the graph: (node, output_nr)."


def get_gradient_edge(tensor):
    """(grad_fn, output_nr) for a tensor with history, (its AccumulateGrad, 0) for a leaf that
    requires grad (the node is created if needed)."""
    return GradientEdge(*_C._autograd._gradient_edge(tensor))


class saved_tensors_hooks:
    """Context manager that sets a pair of pack / unpack hooks for saved tensors
    (Note [Saved tensor hooks] in ember/autograd/saved_tensor_hooks.h).

    Inside it, ``pack_hook(tensor)`` is called every time an operation saves a tensor for
    backward (ops and ``ctx.save_for_backward`` alike), and the graph keeps what it returns
    instead of the tensor; ``unpack_hook(packed)`` is called whenever the saved tensor is needed
    (backward, ``grad_fn._saved_*``) and must return a tensor with the original's contents.

        pack_hook(tensor: Tensor) -> Any
        unpack_hook(Any) -> Tensor

    Hooks are per thread; when nested, only the innermost pair applies. Modifying the input of
    pack_hook in place raises.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _C._autograd._push_saved_tensors_default_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _C._autograd._pop_saved_tensors_default_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Context manager under which tensors saved by the forward pass are stored on the CPU and
    moved back to their device for backward. ember's tensors live on the CPU already (the meta
    device has no data), so the copy is only made for tensors elsewhere; ``pin_memory`` is
    accepted for compatibility (ember has no pinned memory)."""

    def __init__(self, pin_memory=False):
        def pack_to_cpu(tensor):
            return (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Context manager that disables saved-tensor hooks: pushing a pair inside it raises
    RuntimeError(error_message), and so does entering it while a pair is pushed."""
    maybe_prev_message = _C._autograd._saved_tensors_hooks_get_disabled_error_message()
    _C._autograd._saved_tensors_hooks_disable(error_message)
    try:
        yield
    finally:
        if maybe_prev_message is None:
            _C._autograd._saved_tensors_hooks_enable()
        else:
            _C._autograd._saved_tensors_hooks_disable(maybe_prev_message)
