"""torch.ao.quantization.quantization_mappings: the tables of eager-mode quantization, keyed by
ember's classes. torch 1.13's entries whose float or quantized class ember has; the same
tables exist in C++ (ember::quantization::get_default_static_quant_module_mappings, ...), and
the algorithms read these Python dicts through lookups (ember/ao/quantization/quantize.py), so
a user's own classes may be added as in torch."""
import copy
from typing import Any, Callable, Dict, Optional, Set

from ... import nn
from ...nn import functional as F
from ..nn import quantized as nnq
from ..nn.quantized import dynamic as nnqd
from ..nn.intrinsic import quantized as nniq
from ..nn.intrinsic.quantized import dynamic as nniqd
from .stubs import QuantStub, DeQuantStub

__all__ = [
    "DEFAULT_REFERENCE_STATIC_QUANT_MODULE_MAPPINGS", "DEFAULT_STATIC_QUANT_MODULE_MAPPINGS",
    "DEFAULT_QAT_MODULE_MAPPINGS", "DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS",
    "DEFAULT_FLOAT_TO_QUANTIZED_OPERATOR_MAPPINGS", "DEFAULT_MODULE_TO_ACT_POST_PROCESS",
    "no_observer_set", "get_default_static_quant_module_mappings",
    "get_default_static_quant_reference_module_mappings",
    "get_static_quant_module_class", "get_dynamic_quant_module_class",
    "get_default_qat_module_mappings", "get_default_dynamic_quant_module_mappings",
    "get_default_qconfig_propagation_list", "get_default_compare_output_module_list",
    "get_default_float_to_quantized_operator_mappings", "get_quantized_operator",
    "get_embedding_static_quant_module_mappings", "get_embedding_qat_module_mappings",
]


def _mod(path):
    import importlib
    try:
        return importlib.import_module(path)
    except ImportError:
        return None


nni = _mod("ember.ao.nn.intrinsic")
nniqat = _mod("ember.ao.nn.intrinsic.qat")
nnqat = _mod("ember.ao.nn.qat")


def _table(pairs):
    """The pairs whose two classes exist ("nn.Conv3d" style names are looked up)."""
    out = {}
    for key, value in pairs:
        k, v = _resolve(key), _resolve(value)
        if k is not None and v is not None:
            out[k] = v
    return out


def _resolve(spec):
    if not isinstance(spec, tuple):
        return spec
    module, name = spec
    return getattr(module, name, None) if module is not None else None


def _pairs(*names):
    return [((a_mod, a), (b_mod, b)) for a_mod, a, b_mod, b in names]


DEFAULT_REFERENCE_STATIC_QUANT_MODULE_MAPPINGS: Dict[Callable, Any] = {
    QuantStub: nnq.Quantize,
    DeQuantStub: nnq.DeQuantize,
}

DEFAULT_STATIC_QUANT_MODULE_MAPPINGS: Dict[Callable, Any] = _table([
    (QuantStub, nnq.Quantize),
    (DeQuantStub, nnq.DeQuantize),
] + _pairs(
    (nn, "BatchNorm2d", nnq, "BatchNorm2d"),
    (nn, "BatchNorm3d", nnq, "BatchNorm3d"),
    (nn, "Dropout", nnq, "Dropout"),
    (nn, "Conv1d", nnq, "Conv1d"),
    (nn, "Conv2d", nnq, "Conv2d"),
    (nn, "Conv3d", nnq, "Conv3d"),
    (nn, "ConvTranspose1d", nnq, "ConvTranspose1d"),
    (nn, "ConvTranspose2d", nnq, "ConvTranspose2d"),
    (nn, "ConvTranspose3d", nnq, "ConvTranspose3d"),
    (nn, "ELU", nnq, "ELU"),
    (nn, "Embedding", nnq, "Embedding"),
    (nn, "EmbeddingBag", nnq, "EmbeddingBag"),
    (nn, "GroupNorm", nnq, "GroupNorm"),
    (nn, "Hardswish", nnq, "Hardswish"),
    (nn, "InstanceNorm1d", nnq, "InstanceNorm1d"),
    (nn, "InstanceNorm2d", nnq, "InstanceNorm2d"),
    (nn, "InstanceNorm3d", nnq, "InstanceNorm3d"),
    (nn, "LayerNorm", nnq, "LayerNorm"),
    (nn, "LeakyReLU", nnq, "LeakyReLU"),
    (nn, "Linear", nnq, "Linear"),
    (nn, "ReLU6", nnq, "ReLU6"),
    (nn, "PReLU", nnq, "PReLU"),
    (nnq, "FloatFunctional", nnq, "QFunctional"),
    (nni, "BNReLU2d", nniq, "BNReLU2d"),
    (nni, "BNReLU3d", nniq, "BNReLU3d"),
    (nni, "ConvReLU1d", nniq, "ConvReLU1d"),
    (nni, "ConvReLU2d", nniq, "ConvReLU2d"),
    (nni, "ConvReLU3d", nniq, "ConvReLU3d"),
    (nni, "LinearReLU", nniq, "LinearReLU"),
    (nniqat, "ConvBn1d", nnq, "Conv1d"),
    (nniqat, "ConvBn2d", nnq, "Conv2d"),
    (nniqat, "ConvBn3d", nnq, "Conv3d"),
    (nniqat, "ConvBnReLU1d", nniq, "ConvReLU1d"),
    (nniqat, "ConvBnReLU2d", nniq, "ConvReLU2d"),
    (nniqat, "ConvBnReLU3d", nniq, "ConvReLU3d"),
    (nniqat, "ConvReLU2d", nniq, "ConvReLU2d"),
    (nniqat, "ConvReLU3d", nniq, "ConvReLU3d"),
    (nniqat, "LinearReLU", nniq, "LinearReLU"),
    (nniqat, "LinearBn1d", nnq, "Linear"),
    (nnqat, "Linear", nnq, "Linear"),
    (nnqat, "Conv2d", nnq, "Conv2d"),
    (nnqat, "Conv3d", nnq, "Conv3d"),
))

DEFAULT_QAT_MODULE_MAPPINGS: Dict[Callable, Any] = _table(_pairs(
    (nn, "Conv2d", nnqat, "Conv2d"),
    (nn, "Conv3d", nnqat, "Conv3d"),
    (nn, "Linear", nnqat, "Linear"),
    (nni, "ConvBn1d", nniqat, "ConvBn1d"),
    (nni, "ConvBn2d", nniqat, "ConvBn2d"),
    (nni, "ConvBn3d", nniqat, "ConvBn3d"),
    (nni, "ConvBnReLU1d", nniqat, "ConvBnReLU1d"),
    (nni, "ConvBnReLU2d", nniqat, "ConvBnReLU2d"),
    (nni, "ConvBnReLU3d", nniqat, "ConvBnReLU3d"),
    (nni, "ConvReLU2d", nniqat, "ConvReLU2d"),
    (nni, "ConvReLU3d", nniqat, "ConvReLU3d"),
    (nni, "LinearReLU", nniqat, "LinearReLU"),
    (nni, "LinearBn1d", nniqat, "LinearBn1d"),
))

DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS: Dict[Callable, Any] = _table(_pairs(
    (nn, "GRUCell", nnqd, "GRUCell"),
    (nn, "Linear", nnqd, "Linear"),
    (nn, "LSTM", nnqd, "LSTM"),
    (nn, "GRU", nnqd, "GRU"),
    (nn, "LSTMCell", nnqd, "LSTMCell"),
    (nn, "RNNCell", nnqd, "RNNCell"),
    (nni, "LinearReLU", nniqd, "LinearReLU"),
    (nn, "EmbeddingBag", nnq, "EmbeddingBag"),
    (nn, "Embedding", nnq, "Embedding"),
))

_INCLUDE_QCONFIG_PROPAGATE_LIST: Set[Callable] = {
    nn.Sequential,
}

DEFAULT_FLOAT_TO_QUANTIZED_OPERATOR_MAPPINGS: Dict[Any, Callable] = {}
for _f, _q in (("elu", "elu"), ("hardswish", "hardswish"), ("instance_norm", "instance_norm"),
               ("layer_norm", "layer_norm"), ("leaky_relu", "leaky_relu"), ("dropout", "dropout")):
    # Rows for the functions and quantized ops ember has (F.elu and F.leaky_relu come with the
    # float activations of the op-set issue).
    try:
        from ... import ops as _ops
        _qop = getattr(_ops.quantized, _q)
        _float_fn = getattr(F, _f)
    except (AttributeError, ImportError, RuntimeError):
        continue
    DEFAULT_FLOAT_TO_QUANTIZED_OPERATOR_MAPPINGS[_float_fn] = _qop

DEFAULT_MODULE_TO_ACT_POST_PROCESS: Dict[Callable, Callable] = {}
_fq = _mod("ember.ao.quantization.fake_quantize")
if _fq is not None:
    for _cls, _name in (("Hardsigmoid", "default_fixed_qparams_range_0to1_fake_quant"),
                        ("Sigmoid", "default_fixed_qparams_range_0to1_fake_quant"),
                        ("Softmax", "default_fixed_qparams_range_0to1_fake_quant"),
                        ("Tanh", "default_fixed_qparams_range_neg1to1_fake_quant")):
        if hasattr(nn, _cls) and hasattr(_fq, _name):
            DEFAULT_MODULE_TO_ACT_POST_PROCESS[getattr(nn, _cls)] = getattr(_fq, _name)


def no_observer_set() -> Set[Any]:
    r"""These modules cannot have observers inserted by default (torch's quantizable LSTM and
    MultiheadAttention, which ember does not have)."""
    return set()


def get_default_static_quant_module_mappings() -> Dict[Callable, Any]:
    ''' Get module mapping for post training static quantization
    '''
    return copy.copy(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS)


def get_embedding_static_quant_module_mappings() -> Dict[Callable, Any]:
    ''' Get module mapping, including mapping for embedding QAT
    '''
    mapping = copy.copy(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS)
    mapping[nnqat.EmbeddingBag] = nnq.EmbeddingBag
    mapping[nnqat.Embedding] = nnq.Embedding
    return mapping


def get_default_static_quant_reference_module_mappings() -> Dict[Callable, Any]:
    ''' Get reference module mapping for post training static quantization
    '''
    return copy.copy(DEFAULT_REFERENCE_STATIC_QUANT_MODULE_MAPPINGS)


def _combined(default, additional):
    d = dict(default)
    d.update(additional or {})
    return d


def get_static_quant_module_class(float_module_class: Callable,
                                  additional_static_quant_mapping: Optional[Dict] = None,
                                  is_reference: bool = False) -> Any:
    r"""Get the statically quantized module class corresponding to the floating point module
    class"""
    all_mappings = _combined(DEFAULT_REFERENCE_STATIC_QUANT_MODULE_MAPPINGS if is_reference
                             else DEFAULT_STATIC_QUANT_MODULE_MAPPINGS,
                             additional_static_quant_mapping)
    static_quant_module_class = all_mappings.get(float_module_class, None)
    assert static_quant_module_class is not None, \
        "Floating point module class {}".format(str(float_module_class)) + \
        " does not have a corresponding quantized module class"
    return static_quant_module_class


def get_dynamic_quant_module_class(float_module_class: Callable,
                                   additional_dynamic_quant_mapping: Optional[Dict] = None) -> Any:
    r"""Get the dynamically quantized module class corresponding to the floating point module
    class"""
    all_mappings = _combined(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS,
                             additional_dynamic_quant_mapping)
    dynamic_quant_module_class = all_mappings.get(float_module_class, None)
    assert dynamic_quant_module_class is not None, \
        "Floating point module class {}".format(str(float_module_class)) + \
        " does not have a corresponding quantized module class"
    return dynamic_quant_module_class


def get_default_qat_module_mappings() -> Dict[Callable, Any]:
    ''' Get default module mapping for quantization aware training
    '''
    return copy.copy(DEFAULT_QAT_MODULE_MAPPINGS)


def get_embedding_qat_module_mappings() -> Dict[Callable, Any]:
    ''' Get module mapping for quantization aware training
        This is includes default values in addition to
        enabling qat for embeddings.
    '''
    mapping = copy.copy(DEFAULT_QAT_MODULE_MAPPINGS)
    mapping[nn.EmbeddingBag] = nnqat.EmbeddingBag
    mapping[nn.Embedding] = nnqat.Embedding
    return mapping


def get_default_dynamic_quant_module_mappings() -> Dict[Callable, Any]:
    ''' Get module mapping for post training dynamic quantization
    '''
    return DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS


def get_default_qconfig_propagation_list() -> Set[Callable]:
    ''' Get the default list of module types that we'll attach qconfig
    attribute to in prepare
    '''
    return (set(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS.keys()) |
            set(DEFAULT_QAT_MODULE_MAPPINGS.keys()) |
            set(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS.keys()) |
            _INCLUDE_QCONFIG_PROPAGATE_LIST)


def get_default_compare_output_module_list() -> Set[Callable]:
    ''' Get list of module class types that we will record output
    in numeric suite
    '''
    return (set(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS.values())
            | set(DEFAULT_QAT_MODULE_MAPPINGS.values())
            | set(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS.values())
            | set(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS.keys())
            | set(DEFAULT_QAT_MODULE_MAPPINGS.keys())
            | set(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS.keys())
            | _INCLUDE_QCONFIG_PROPAGATE_LIST)


def get_default_float_to_quantized_operator_mappings() -> Dict[Any, Callable]:
    return copy.copy(DEFAULT_FLOAT_TO_QUANTIZED_OPERATOR_MAPPINGS)


def get_quantized_operator(float_op) -> Callable:
    ''' Get the quantized operator corresponding to the float operator
    '''
    quantized_op = DEFAULT_FLOAT_TO_QUANTIZED_OPERATOR_MAPPINGS.get(float_op, None)
    assert quantized_op is not None, \
        'Operator {} does not have corresponding quantized op'.format(str(float_op))
    return quantized_op


def _get_special_act_post_process(module) -> Optional[Callable]:
    return DEFAULT_MODULE_TO_ACT_POST_PROCESS.get(type(module), None)


def _has_special_act_post_process(module) -> bool:
    return module.training and type(module) in DEFAULT_MODULE_TO_ACT_POST_PROCESS
