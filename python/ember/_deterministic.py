"""torch.use_deterministic_algorithms and its companions (the flag lives in C++:
ember/deterministic.h). ember's kernels are all deterministic CPU kernels, so the flag changes
no op's behaviour; PyTorch 1.13 only refuses CUDA kernels under it."""
from . import _C

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode"]


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Sets whether ops must use deterministic algorithms (mode) and whether an op that has
    none warns instead of raising (warn_only)."""
    _C._set_deterministic_algorithms(mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled():
    """True if the global deterministic flag is on (use_deterministic_algorithms)."""
    return _C._get_deterministic_algorithms()


def is_deterministic_algorithms_warn_only_enabled():
    """True if the flag is on with warn_only=True."""
    return _C._get_deterministic_algorithms_warn_only()


def set_deterministic_debug_mode(debug_mode):
    """The same flag as a debug level: 0 / "default" off, 1 / "warn" warn only, 2 / "error" on."""
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = names[debug_mode]
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode == 0:
        _C._set_deterministic_algorithms(False)
    elif debug_mode == 1:
        _C._set_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        _C._set_deterministic_algorithms(True)
    else:
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")


def get_deterministic_debug_mode():
    """0 when the flag is off, 1 when it is on with warn_only, 2 when it is on."""
    if not _C._get_deterministic_algorithms():
        return 0
    return 1 if _C._get_deterministic_algorithms_warn_only() else 2
