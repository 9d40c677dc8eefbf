"""The machinery behind DataLoader (torch.utils.data._utils): collation, fetchers, the worker
loop and the checks that turn a dead worker into an error."""
import atexit
import multiprocessing.util  # noqa: F401  (registers its atexit handler before ours: see below)
import sys
import traceback

IS_WINDOWS = sys.platform == "win32"

MP_STATUS_CHECK_INTERVAL = 5.0
"""Seconds between checks that the other side of a queue is still alive: a worker checks its
parent, the main process its workers (also checked at once on SIGCHLD)."""

python_exit_status = False
"""Set at interpreter exit: worker shutdown from __del__ is then skipped (the modules it needs may
be gone, and multiprocessing's own exit handlers take the workers down)."""


def _set_python_exit_flag():
    global python_exit_status
    python_exit_status = True


# atexit runs its callbacks last-registered first: multiprocessing.util (imported above) registered
# the handler that terminates leftover workers (persistent ones) before this one, so the flag is
# set first and the SIGCHLD handler takes those terminations for what they are.
atexit.register(_set_python_exit_flag)

try:
    import numpy  # noqa: F401
    HAS_NUMPY = True
except ModuleNotFoundError:
    HAS_NUMPY = False


class KeyErrorMessage(str):
    r"""str whose repr is itself: KeyError's str() is the repr of its argument, which would
    print a traceback as one quoted line."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    r"""An exception and its formatted traceback, to raise again in another thread or process
    (torch._utils.ExceptionWrapper). Holds text only: no frames, so no reference cycles."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        r"""Raises the wrapped exception type with "Caught <Type> <where>.\nOriginal Traceback
        ..." as its message (a RuntimeError when the type cannot take one message)."""
        msg = "Caught {} {}.\nOriginal {}".format(self.exc_type.__name__, self.where, self.exc_msg)
        if self.exc_type == KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except TypeError:
            raise RuntimeError(msg) from None
        raise exception


from . import collate, fetch, signal_handling, worker  # noqa: E402,F401
