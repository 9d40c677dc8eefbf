"""torch.ao.quantization.fuse_modules. The steps over the module tree (find the modules by
their dotted names, fuse, put the results back, move C++ hooks) are C++
(ember::quantization::fuse_modules_group, ember/quantization/fuse.h); what is Python here is
PyTorch's Python-shaped API: `fuser_func` and the class-keyed fuser table, the Python hooks,
and the deep copy of a Python model.

Beyond 1.13, whose fuse_modules / fuse_modules_qat silently ignore their `fuser_func` and
`fuse_custom_config_dict` arguments (always the built-in table), both are honoured, as the
documentation says and later PyTorch versions do.
"""
import copy
from typing import List, Optional

from ... import _C
from ... import nn
from .fuser_method_mappings import get_fuser_method
# for backward compatibility
from .fuser_method_mappings import fuse_conv_bn  # noqa: F401
from .fuser_method_mappings import fuse_conv_bn_relu  # noqa: F401

__all__ = ["fuse_known_modules", "fuse_modules", "fuse_modules_qat"]

_fuse = _C._fuse


def _get_module(model, submodule_key):
    """Generalization of getattr."""
    return _fuse._get_module(model, submodule_key)


def _set_module(model, submodule_key, module):
    """Generalization of setattr."""
    tokens = submodule_key.split('.')
    cur_mod = model
    for s in tokens[:-1]:
        cur_mod = getattr(cur_mod, s)
    setattr(cur_mod, tokens[-1], module)


def _move_hooks(src, src_dict, register, dst):
    hooks = src.__dict__.get(src_dict)  # read without creating an empty dict
    if not hooks:
        return
    kwargs_flags = src.__dict__.get(src_dict + "_with_kwargs") or {}
    for handle_id, hook_fn in list(hooks.items()):
        if handle_id in kwargs_flags:
            register(dst, hook_fn, with_kwargs=True)
        else:
            register(dst, hook_fn)
        del hooks[handle_id]
        kwargs_flags.pop(handle_id, None)


def fuse_known_modules(mod_list, is_qat, additional_fuser_method_mapping=None):
    r"""Returns a list of modules that fuses the operations specified
     in the input module list.

    Fuses only the following sequence of modules:
    conv, bn
    conv, bn, relu
    conv, relu
    linear, bn
    linear, relu
    For these sequences, the first element in the output module list performs
    the fused operation. The rest of the elements are set to nn.Identity()
    """
    types = tuple(type(m) for m in mod_list)
    fuser_method = get_fuser_method(types, additional_fuser_method_mapping)
    if fuser_method is None:
        raise NotImplementedError("Cannot fuse modules: {}".format(types))
    new_mod: List[Optional[nn.Module]] = [None] * len(mod_list)
    fused = fuser_method(is_qat, *mod_list)
    # Move pre forward hooks of the base module and post forward hooks of the last module to
    # the resulting fused module (Python's and C++'s; 1.13 fails with "OrderedDict mutated
    # during iteration" when there are two of them, ember moves them all).
    _move_hooks(mod_list[0], "_forward_pre_hooks", nn.Module.register_forward_pre_hook, fused)
    _move_hooks(mod_list[-1], "_forward_hooks", nn.Module.register_forward_hook, fused)
    _fuse._move_native_fusion_hooks(mod_list[0], mod_list[-1], fused)
    new_mod[0] = fused

    for i in range(1, len(mod_list)):
        identity = nn.Identity()
        identity.training = mod_list[0].training
        new_mod[i] = identity

    return new_mod


def _fuse_modules_helper(model, modules_to_fuse, is_qat, fuser_func=fuse_known_modules,
                         fuse_custom_config_dict=None):
    if fuse_custom_config_dict is None:
        fuse_custom_config_dict = {}
    additional_fuser_method_mapping = fuse_custom_config_dict.get(
        "additional_fuser_method_mapping", {})
    _fuse._fuse_modules_group(
        model, list(modules_to_fuse), is_qat,
        lambda mod_list, qat: fuser_func(mod_list, qat, additional_fuser_method_mapping))


def _fuse_modules(model, modules_to_fuse, is_qat, inplace=False, fuser_func=fuse_known_modules,
                  fuse_custom_config_dict=None):
    if not inplace:
        model = copy.deepcopy(model)

    if all(isinstance(module_element, str) for module_element in modules_to_fuse):
        # Handle case of modules_to_fuse being a list
        _fuse_modules_helper(model, modules_to_fuse, is_qat, fuser_func, fuse_custom_config_dict)
    else:
        # Handle case of modules_to_fuse being a list of lists
        for module_list in modules_to_fuse:
            _fuse_modules_helper(model, module_list, is_qat, fuser_func, fuse_custom_config_dict)
    return model


def fuse_modules(model, modules_to_fuse, inplace=False, fuser_func=fuse_known_modules,
                 fuse_custom_config_dict=None):
    r"""Fuses a list of modules into a single module

    Fuses only the following sequence of modules:
    conv, bn
    conv, bn, relu
    conv, relu
    linear, relu
    bn, relu
    All other sequences are left unchanged.
    For these sequences, replaces the first item in the list
    with the fused module, replacing the rest of the modules
    with identity.

    Args:
        model: Model containing the modules to be fused
        modules_to_fuse: list of list of module names to fuse. Can also be a list
                         of strings if there is only a single list of modules to fuse.
        inplace: bool specifying if fusion happens in place on the model, by default
                 a new model is returned
        fuser_func: Function that takes in a list of modules and outputs a list of fused modules
                    of the same length. For example,
                    fuser_func([convModule, BNModule]) returns the list [ConvBNModule, nn.Identity()]
                    Defaults to ember.ao.quantization.fuse_known_modules
        `fuse_custom_config_dict`: custom configuration for fusion

    .. code-block:: python

       # Example of fuse_custom_config_dict
       fuse_custom_config_dict = {
           # Additional fuser_method mapping
           "additional_fuser_method_mapping": {
               (ember.nn.Conv2d, ember.nn.BatchNorm2d): fuse_conv_bn
           },
       }

    Returns:
        model with fused modules. A new copy is created if inplace=True.
    """
    return _fuse_modules(model, modules_to_fuse, is_qat=False, inplace=inplace,
                         fuser_func=fuser_func, fuse_custom_config_dict=fuse_custom_config_dict)


def fuse_modules_qat(model, modules_to_fuse, inplace=False, fuser_func=fuse_known_modules,
                     fuse_custom_config_dict=None):
    """ QAT version for `fuse_modules`
    """
    return _fuse_modules(model, modules_to_fuse, is_qat=True, inplace=inplace,
                         fuser_func=fuser_func, fuse_custom_config_dict=fuse_custom_config_dict)
