"""ember.multiprocessing: Python's multiprocessing, with tensors crossing processes through
shared memory (as torch.multiprocessing).

Importing it registers reducers with `multiprocessing.reduction.ForkingPickler`, the pickler
every multiprocessing Queue, Pipe and spawned Process uses: a tensor put on a queue moves its
storage into a shared-memory segment (`Tensor.share_memory_()`) and travels as a file
descriptor, and the receiving process maps the same memory (Note [Shared memory segments] in
include/ember/shared_memory.h). Ordinary `pickle` is not affected.
"""
import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from .reductions import init_reductions

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__  # type: ignore[attr-defined]

# ember shares through file descriptors of anonymous memfd segments, which cannot outlive the
# processes that use them; PyTorch's 'file_system' strategy (named files plus a manager daemon)
# is not offered.
_sharing_strategy = "file_descriptor"
_all_sharing_strategies = {"file_descriptor"}


def set_sharing_strategy(new_strategy):
    """Sets the strategy for sharing CPU tensors (only 'file_descriptor' exists in ember)."""
    assert new_strategy in _all_sharing_strategies
    global _sharing_strategy
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The current strategy for sharing CPU tensors."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The set of sharing strategies this system supports."""
    return _all_sharing_strategies


init_reductions()
