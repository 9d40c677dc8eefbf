"""torch.ao.quantization.quantize: eager-mode prepare / convert with torch 1.13's signatures.
The algorithms are C++ (ember::quantization, include/ember/quantization/quantize.h) over the one
module tree; this module passes them torch's Python tables (dicts and sets keyed by classes,
ember/ao/quantization/quantization_mappings.py), so users' own classes work as keys and targets.

Observers are attached as `activation_post_process` children with a C++ forward hook that runs
whoever calls the module (a C++ Sequential as well as Python's __call__); convert removes them.
"""
import copy
import itertools

from ... import _C
from ... import nn
from .quantization_mappings import (  # noqa: F401  (torch's module re-exports these)
    get_default_dynamic_quant_module_mappings,
    get_default_static_quant_module_mappings,
    get_default_static_quant_reference_module_mappings,
    get_default_qat_module_mappings,
    get_default_qconfig_propagation_list,
    no_observer_set,
    _has_special_act_post_process,
    _get_special_act_post_process,
    DEFAULT_MODULE_TO_ACT_POST_PROCESS,
)
from .stubs import DeQuantStub, QuantWrapper  # noqa: F401

_w = _C._qworkflow

__all__ = [
    "get_default_custom_config_dict", "is_activation_post_process", "propagate_qconfig_",
    "register_activation_post_process_hook", "add_observer_", "get_unique_devices_",
    "add_quant_dequant", "prepare", "quantize", "quantize_dynamic", "prepare_qat",
    "quantize_qat", "convert", "swap_module", "get_observer_dict",
]

_DEFAULT_CUSTOM_CONFIG_DICT = {
    'float_to_observed_custom_module_class': {},
    'observed_to_quantized_custom_module_class': {},
}


def get_default_custom_config_dict():
    r"""Defines the default custom config dict (torch maps LSTM and MultiheadAttention to
    quantizable versions, which ember does not have: empty)."""
    return _DEFAULT_CUSTOM_CONFIG_DICT


def is_activation_post_process(module):
    return _w.is_activation_post_process(module)


def propagate_qconfig_(module, qconfig_dict=None, prepare_custom_config_dict=None):
    r"""Propagate qconfig through the module hierarchy and assign `qconfig`
    attribute on each leaf module

    Args:
        module: input module
        qconfig_dict: dictionary that maps from name or type of submodule to
            quantization configuration, qconfig applies to all submodules of a
            given module unless qconfig for the submodules are specified (when
            the submodule already has qconfig attribute)
        prepare_custom_config_dict: dictionary for custom handling of modules
    """
    _w.propagate_qconfig_(module, qconfig_dict, prepare_custom_config_dict)


def _observer_forward_hook(self, input, output):
    r"""Forward hook that calls observer on the output
    """
    return self.activation_post_process(output)


def _observer_forward_pre_hook(self, input):
    r"""Forward pre hook that calls observer on the output
    """
    return self.activation_post_process(input[0])


def register_activation_post_process_hook(module, pre_hook=False):
    assert hasattr(module, 'activation_post_process'), \
        'Expect activation_post_process attribute already attached to the module'
    if pre_hook:
        module.register_forward_pre_hook(_observer_forward_pre_hook, prepend=True)
    else:
        module.register_forward_hook(_observer_forward_hook, prepend=True)


def _special_act_post_process_table():
    return {cls: fn for cls, fn in DEFAULT_MODULE_TO_ACT_POST_PROCESS.items()}


def add_observer_(module, qconfig_propagation_list=None, non_leaf_module_list=None, device=None,
                  custom_module_class_mapping=None):
    r"""Add observer for the leaf child of the module.

    This function insert observer module to all leaf child module that
    has a valid qconfig attribute.
    """
    if qconfig_propagation_list is None:
        qconfig_propagation_list = get_default_qconfig_propagation_list()
    _w.add_observer_(module, qconfig_propagation_list, non_leaf_module_list,
                     custom_module_class_mapping or {}, _special_act_post_process_table())


def get_unique_devices_(module):
    return {p.device for p in module.parameters()} | \
        {p.device for p in module.buffers()}


def add_quant_dequant(module):
    r"""Wrap the leaf child module in QuantWrapper if it has a valid qconfig
    Note that this function will modify the children of module inplace and it
    can return a new module which wraps the input module as well.
    """
    return _w.add_quant_dequant(module)


def prepare(model, inplace=False, allow_list=None,
            observer_non_leaf_module_list=None,
            prepare_custom_config_dict=None):
    r"""Prepares a copy of the model for quantization calibration or quantization-aware training.

    Quantization configuration should be assigned preemptively
    to individual submodules in `.qconfig` attribute.

    The model will be attached with observer or fake quant modules, and qconfig
    will be propagated.

    Args:
        `model`: input model to be modified in-place
        `inplace`: carry out model transformations in-place, the original module is mutated
        `allow_list`: list of quantizable modules
        `observer_non_leaf_module_list`: list of non-leaf modules we want to add observer
        `prepare_custom_config_dict`: customization configuration dictionary for prepare function
    """
    if prepare_custom_config_dict is None:
        prepare_custom_config_dict = get_default_custom_config_dict()
    qconfig_propagation_list = allow_list
    if allow_list is None:
        qconfig_propagation_list = get_default_qconfig_propagation_list()
    if not inplace:
        model = copy.deepcopy(model)  # Python's deepcopy keeps Python modules' classes
    return _w.prepare(model, True, qconfig_propagation_list, observer_non_leaf_module_list,
                      prepare_custom_config_dict, _special_act_post_process_table())


def quantize(model, run_fn, run_args, mapping=None, inplace=False):
    r"""Quantize the input float model with post training static quantization.

    First it will prepare the model for calibration, then it calls
    `run_fn` which will run the calibration step, after that we will
    convert the model to a quantized model.
    """
    if mapping is None:
        mapping = get_default_static_quant_module_mappings()
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    prepare(model, inplace=True)
    run_fn(model, *run_args)
    convert(model, mapping, inplace=True)
    return model


def quantize_dynamic(model, qconfig_spec=None, dtype=None, mapping=None, inplace=False):
    r"""Converts a float model to dynamic (i.e. weights-only) quantized model.

    Replaces specified modules with dynamic weight-only quantized versions and output the
    quantized model. `qconfig_spec` is a dict {class or name: qconfig} or a set of classes and
    names (then `dtype` picks the qconfig); ember quantizes Linear and the recurrent layers
    and cells (LSTM, GRU, LSTMCell, RNNCell, GRUCell) to qint8.
    """
    from ... import qint8, float16, quint8
    import ember
    quint4x2 = getattr(ember, "quint4x2", object())
    from .qconfig import default_dynamic_qconfig, float_qparams_weight_only_qconfig
    from . import qconfig as _qc
    if dtype is None:
        dtype = qint8
    float16_dynamic_qconfig = getattr(_qc, "float16_dynamic_qconfig", None)
    if qconfig_spec is None:
        if dtype == qint8:
            qconfig_spec = {cls: default_dynamic_qconfig for cls in (
                nn.Linear, nn.LSTM, nn.GRU, nn.LSTMCell, nn.RNNCell, nn.GRUCell)}
        elif dtype == float16:
            qconfig_spec = {cls: float16_dynamic_qconfig for cls in (
                nn.Linear, nn.LSTM, nn.GRU, nn.LSTMCell, nn.RNNCell, nn.GRUCell)}
        elif dtype == quint8:
            qconfig_spec = {nn.EmbeddingBag: float_qparams_weight_only_qconfig,
                            nn.Embedding: float_qparams_weight_only_qconfig}
        elif dtype == quint4x2:
            qconfig_spec = {nn.EmbeddingBag: getattr(
                _qc, "float_qparams_weight_only_qconfig_4bit", None)}
        else:
            raise ValueError(
                "Don't know how to quantize with default settings for {}. Provide full qconfig "
                "please".format(dtype))
    elif isinstance(qconfig_spec, set):
        if dtype is qint8:
            default_qconfig = default_dynamic_qconfig
        elif dtype is float16:
            default_qconfig = float16_dynamic_qconfig
        elif dtype is quint8:
            default_qconfig = float_qparams_weight_only_qconfig
        elif dtype is quint4x2:
            default_qconfig = getattr(_qc, "float_qparams_weight_only_qconfig_4bit", None)
        else:
            raise RuntimeError('Unknown dtype specified for quantize_dynamic: ', str(dtype))
        qconfig_spec = dict(zip(qconfig_spec, itertools.repeat(default_qconfig)))

    if mapping is None:
        mapping = get_default_dynamic_quant_module_mappings()

    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    propagate_qconfig_(model, qconfig_spec)
    convert(model, mapping, inplace=True)
    return model


def prepare_qat(model, mapping=None, inplace=False):
    r"""
    Prepares a copy of the model for quantization calibration or
    quantization-aware training and converts it to quantized version.

    Quantization configuration should be assigned preemptively
    to individual submodules in `.qconfig` attribute.
    """
    assert model.training, "prepare_qat only works on models in training mode"
    if mapping is None:
        mapping = get_default_qat_module_mappings()

    if not inplace:
        model = copy.deepcopy(model)

    propagate_qconfig_(model, qconfig_dict=None)
    convert(model, mapping=mapping, inplace=True, remove_qconfig=False)
    prepare(model, observer_non_leaf_module_list=set(mapping.values()), inplace=True)
    return model


def quantize_qat(model, run_fn, run_args, inplace=False):
    r"""Do quantization aware training and output a quantized model
    """
    if not inplace:
        model = copy.deepcopy(model)
    model.train()
    prepare_qat(model, inplace=True)
    run_fn(model, *run_args)
    convert(model, inplace=True)
    return model


def convert(module, mapping=None, inplace=False, remove_qconfig=True,
            is_reference=False, convert_custom_config_dict=None):
    r"""Converts submodules in input module to a different module according to `mapping`
    by calling `from_float` method on the target module class. And remove qconfig at the
    end if remove_qconfig is set to True.
    """
    if mapping is None:
        mapping = get_default_static_quant_reference_module_mappings() if is_reference \
            else get_default_static_quant_module_mappings()
    if convert_custom_config_dict is None:
        convert_custom_config_dict = get_default_custom_config_dict()
    if not inplace:
        module = copy.deepcopy(module)
    return _w.convert(module, mapping, True, remove_qconfig, is_reference,
                      convert_custom_config_dict)


def swap_module(mod, mapping, custom_module_class_mapping):
    r"""Swaps the module if it has a quantized counterpart and it has an
    `observer` attached.
    """
    return _w.swap_module(mod, mapping, custom_module_class_mapping)


def get_observer_dict(mod, target_dict, prefix=""):
    r"""Traverse the modules and save all observers into dict.
    This is mainly used for quantization accuracy debug
    """
    def get_prefix(prefix):
        return prefix if prefix == "" else prefix + '.'

    if hasattr(mod, 'activation_post_process'):
        target_dict[get_prefix(prefix) + 'activation_post_process'] = mod.activation_post_process
    for name, child in mod.named_children():
        module_prefix = get_prefix(prefix) + name if prefix else name
        get_observer_dict(child, target_dict, module_prefix)


def _copy_front_end_hooks(old, new):
    """swap_module's Python part (called from C++): the Python forward pre-hooks and the
    forward hooks but the observer hook carry over to the new module."""
    # The Python dicts themselves: the C++ hooks that `_forward_hooks` also lists are copied by
    # swap_module in C++.
    for pre_hook_fn in list((old.__dict__.get("_forward_pre_hooks") or {}).values()):
        new.register_forward_pre_hook(pre_hook_fn)
    for hook_fn in list((old.__dict__.get("_forward_hooks") or {}).values()):
        if hook_fn is not _observer_forward_hook:
            new.register_forward_hook(hook_fn)
