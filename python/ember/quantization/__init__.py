"""ember.quantization: torch's older name for ember.ao.quantization (as torch 1.13 keeps
``torch.quantization``). Its submodules are the same module objects, so
``import ember.quantization.observer`` works and every class is the same class."""
import importlib
import sys

from ember.ao.quantization import *  # noqa: F401,F403

# torch 1.13's torch/ao/quantization module names; those ember has are aliased here.
_SUBMODULES = ("observer", "fake_quantize", "qconfig", "stubs", "fuse_modules", "fuser_method_mappings",
               "quantize", "quantization_mappings", "utils", "quant_type", "qconfig_mapping")


def _alias_submodules():
    for _name in _SUBMODULES:
        try:
            _mod = importlib.import_module("ember.ao.quantization." + _name)
        except ModuleNotFoundError as e:
            if e.name != "ember.ao.quantization." + _name:
                raise
            continue
        sys.modules[__name__ + "." + _name] = _mod
        # A function of the same name wins, as in torch (`torch.quantization.fuse_modules` is
        # the function; `import torch.quantization.fuse_modules` still finds the module).
        globals().setdefault(_name, _mod)


_alias_submodules()
