"""ember.utils: swap_tensors and the subclass helpers (torch.utils)."""
import copyreg
import weakref

from .. import _C
from . import _python_dispatch  # noqa: F401  (installs the __torch_dispatch__ dispatcher)

__all__ = ["swap_tensors"]


def swap_tensors(t1, t2):
    """Exchanges the contents of two tensors; each keeps its identity.

    Everything moves: data, shape, dtype, autograd state, class, __dict__ and slots. A tensor
    the autograd graph saved for backward cannot be swapped; a leaf's AccumulateGrad node is
    poisoned so that a backward through a graph recorded before the swap fails loudly.
    """
    if weakref.getweakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if weakref.getweakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    if set(copyreg._slotnames(type(t1))) != set(copyreg._slotnames(type(t2))):
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    # The use-count checks, the impl swap and the class / __dict__ / slot exchange: C++
    # (python/csrc/swap.cpp), the same path Module conversion and load_state_dict take.
    _C._swap_tensors(t1, t2)


def __getattr__(name):
    # ember.utils.data is imported on first use: it needs the whole ember package, which is
    # still being built when ember/__init__.py imports this module.
    if name in ("data", "checkpoint"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
