"""Anomaly detection for the autograd engine (torch.autograd.anomaly_mode; Note [Anomaly mode]
in ember/autograd/anomaly_mode.h): with it on, a failing backward node warns with the traceback
of the forward call that created it, and (with check_nan) a node whose gradient has a NaN
raises."""
import warnings

from .. import _C

__all__ = ["detect_anomaly", "set_detect_anomaly"]


class detect_anomaly:
    r"""Context manager (or decorator) that enables anomaly detection for the autograd engine.

    - Running the forward pass with detection enabled lets the backward pass print the traceback
      of the forward operation that created the failing backward function.
    - If ``check_nan`` is ``True``, any backward computation that generates "nan" values raises
      an error. Default ``True``.

    This mode should be enabled only for debugging: it slows the program down.
    """

    def __init__(self, check_nan=True):
        self.prev = _C._autograd.is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = _C._autograd.is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and "
                      "should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        _C._autograd.set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        _C._autograd.set_anomaly_enabled(self.prev, self.prev_check_nan)

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return func(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    r"""Sets anomaly detection on or off (``mode``), as a function or a context manager that
    restores the previous setting on exit. ``check_nan``: raise when a backward produces NaN."""

    def __init__(self, mode, check_nan=True):
        self.prev = _C._autograd.is_anomaly_enabled()
        self.prev_check_nan = _C._autograd.is_anomaly_check_nan_enabled()
        _C._autograd.set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        _C._autograd.set_anomaly_enabled(self.prev, self.prev_check_nan)
