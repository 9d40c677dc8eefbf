"""``ember.safetensors.torch``: the same functions under safetensors' own module path, so that
``from safetensors.torch import load_file`` becomes ``from ember.safetensors.torch import load_file``."""
from . import (  # noqa: F401
    save, save_file, load, load_file, safe_open, save_model, load_model, PySafeSlice, SafetensorError,
)

__all__ = ["save", "save_file", "load", "load_file", "safe_open", "save_model", "load_model", "SafetensorError"]
