"""ember._tensor_str: the print options (PyTorch's module of the same name). The printer and the
options live in C++ (ember/print.h); this module reads and sets them."""
import contextlib

from . import _C

__all__ = ["set_printoptions", "get_printoptions", "printoptions", "PRINT_OPTS"]


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    r"""Set options for printing, as torch.set_printoptions.

    Args:
        precision: digits after the point for floating point output (default 4).
        threshold: number of elements above which a tensor is summarised (default 1000).
        edgeitems: items shown at the beginning and end of each summarised dimension (default 3).
        linewidth: characters per line before wrapping (default 80).
        profile: "default", "short" or "full" sets the four options above; any given option
            then overrides it.
        sci_mode: True / False forces scientific notation on or off; None (the default, also
            when not given) lets the printer choose.
    """
    _C._set_printoptions(precision, threshold, edgeitems, linewidth, profile, sci_mode)


def get_printoptions():
    """The current print options as a dict (PyTorch 2's torch._tensor_str.get_printoptions)."""
    return _C._get_printoptions()


@contextlib.contextmanager
def printoptions(**kwargs):
    """Sets print options within a `with` block, restoring the previous ones after it."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _PrinterOptions:
    """PRINT_OPTS: the current options as attributes (read-only views of the C++ options)."""

    def __getattr__(self, name):
        options = _C._get_printoptions()
        if name in options:
            return options[name]
        raise AttributeError(f"'PrinterOptions' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        if name not in _C._get_printoptions():
            raise AttributeError(f"'PrinterOptions' object has no attribute '{name}'")
        options = get_printoptions()
        options[name] = value
        set_printoptions(**options)

    def __repr__(self):
        return f"PrinterOptions({_C._get_printoptions()})"


PRINT_OPTS = _PrinterOptions()
