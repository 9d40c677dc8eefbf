"""ember.__future__: process-wide switches for behaviour that will change (torch.__future__).

The flags live in C++ (ember::nn), where Module conversion (_apply) and load_state_dict read them.
"""
from . import _C

__all__ = [
    "get_overwrite_module_params_on_conversion", "get_swap_module_params_on_conversion",
    "set_overwrite_module_params_on_conversion", "set_swap_module_params_on_conversion",
]


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """Module conversions (to, float, ...) assign new Parameters instead of changing `.data`."""
    _C._set_overwrite_module_params_on_conversion(bool(value))


def get_overwrite_module_params_on_conversion() -> bool:
    return _C._get_overwrite_module_params_on_conversion()


def set_swap_module_params_on_conversion(value: bool) -> None:
    """Module conversions and load_state_dict swap parameters in place (utils.swap_tensors),
    keeping every reference to them; wins over the overwrite flag."""
    _C._set_swap_module_params_on_conversion(bool(value))


def get_swap_module_params_on_conversion() -> bool:
    return _C._get_swap_module_params_on_conversion()
