"""ember.autograd.graph: the graph's nodes as Python sees them (torch.autograd.graph)."""
import abc
from collections import namedtuple

from .. import _C

__all__ = ["Node", "GradientEdge", "get_gradient_edge"]


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
