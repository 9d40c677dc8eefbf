"""ember.ao.quantization.utils: torch 1.13's helpers of the eager-mode workflow (qconfig dtype
queries, qparam dicts, module paths). check_min_max_valid and calculate_qmin_qmax are the C++
ones the observers use."""
import functools
from typing import Any, Optional

import ember
from ember._C._quantization import check_min_max_valid, calculate_qmin_qmax  # noqa: F401
from .quant_type import QuantType

__all__ = [
    "get_combined_dict",
    "is_per_tensor",
    "is_per_channel",
    "getattr_from_fqn",
    "get_qparam_dict",
    "get_swapped_custom_module_class",
    "activation_dtype",
    "weight_dtype",
    "activation_is_statically_quantized",
    "activation_is_dynamically_quantized",
    "activation_is_int8_quantized",
    "activation_is_int32_quantized",
    "weight_is_quantized",
    "weight_is_statically_quantized",
    "op_is_int8_dynamically_quantized",
    "get_qconfig_dtypes",
    "get_quant_type",
    "check_min_max_valid",
    "calculate_qmin_qmax",
    "has_no_children_ignoring_parametrizations",
]


def get_combined_dict(default_dict, additional_dict):
    d = default_dict.copy()
    d.update(additional_dict)
    return d


def is_per_tensor(qscheme):
    return qscheme == ember.per_tensor_affine or qscheme == ember.per_tensor_symmetric


def is_per_channel(qscheme):
    return qscheme in [ember.per_channel_affine, ember.per_channel_affine_float_qparams, ember.per_channel_symmetric]


def getattr_from_fqn(obj: Any, fqn: str) -> Any:
    """Given an obj and a fqn such as "foo.bar.baz", returns obj.foo.bar.baz."""
    return functools.reduce(getattr, fqn.split("."), obj)


def get_qparam_dict(observer_or_fake_quant):
    qscheme = observer_or_fake_quant.qscheme if hasattr(observer_or_fake_quant, "qscheme") else None
    dtype = observer_or_fake_quant.dtype
    qparams = {"qscheme": qscheme, "dtype": dtype}

    if not qscheme:
        return qparams

    if is_per_tensor(qscheme):
        qscheme = ember.per_tensor_affine
    elif is_per_channel(qscheme):
        # change symmetric to affine since we do not have symmetric quantized Tensor
        if qscheme == ember.per_channel_symmetric:
            qscheme = ember.per_channel_affine
        qparams["axis"] = observer_or_fake_quant.ch_axis
    else:
        raise RuntimeError(f"Unrecognized qscheme: {qscheme}")
    qparams["qscheme"] = qscheme

    scale, zero_point = observer_or_fake_quant.calculate_qparams()
    qparams["scale"] = scale
    qparams["zero_point"] = zero_point
    return qparams


def get_swapped_custom_module_class(custom_module, custom_module_class_mapping, qconfig):
    """The observed / quantized custom module class `custom_module` swaps to."""
    quant_type = get_quant_type(qconfig)
    class_mapping = custom_module_class_mapping.get(quant_type, {})
    assert type(custom_module) in class_mapping, "did not find corresponding observed " \
        "module class for {} in mapping: {}".format(type(custom_module), class_mapping)
    return class_mapping[type(custom_module)]


def activation_dtype(qconfig):
    assert qconfig is not None
    activation = qconfig.activation()
    return activation.dtype


def weight_dtype(qconfig):
    assert qconfig is not None
    weight = qconfig.weight()
    return weight.dtype


def activation_is_statically_quantized(qconfig):
    """Whether the activation is quantized (quint8, qint8 or float16), not dynamically."""
    return (
        activation_dtype(qconfig) in [ember.quint8, ember.qint8, ember.float16]
        and (not activation_is_dynamically_quantized(qconfig))
    )


def activation_is_dynamically_quantized(qconfig):
    """Whether the activation is dynamically quantized (quint8, qint8 or float16)."""
    activation_dtype, _, activation_compute_dtype = get_qconfig_dtypes(qconfig)
    return activation_compute_dtype in [ember.quint8, ember.qint8, ember.float16]


def activation_is_int8_quantized(qconfig):
    return activation_dtype(qconfig) in [ember.quint8, ember.qint8]


def activation_is_int32_quantized(qconfig):
    return activation_dtype(qconfig) == ember.qint32


def weight_is_quantized(qconfig):
    return weight_dtype(qconfig) in [ember.quint8, ember.qint8, ember.float16]


def weight_is_statically_quantized(qconfig):
    return weight_dtype(qconfig) in [ember.quint8, ember.qint8]


def op_is_int8_dynamically_quantized(qconfig) -> bool:
    activation_dtype, weight_dtype, activation_compute_dtype = get_qconfig_dtypes(qconfig)
    return (
        activation_dtype is ember.quint8 and
        weight_dtype is ember.qint8 and
        activation_compute_dtype is ember.quint8
    )


def get_qconfig_dtypes(qconfig):
    r"""(activation_dtype, weight_dtype, activation_compute_dtype) of `qconfig`."""
    assert qconfig is not None
    activation = qconfig.activation()
    weight = qconfig.weight()
    compute_dtype = activation.compute_dtype if hasattr(activation, 'compute_dtype') else None
    return (activation.dtype, weight.dtype, compute_dtype)


def get_quant_type(qconfig):
    assert qconfig is not None
    activation = qconfig.activation()
    weight = qconfig.weight()
    static_dtypes = [ember.quint8, ember.qint8]
    if weight.dtype in static_dtypes:
        if hasattr(activation, 'compute_dtype') and activation.compute_dtype in static_dtypes:
            return QuantType.DYNAMIC
        elif activation.dtype in static_dtypes:
            return QuantType.STATIC
        else:
            return QuantType.WEIGHT_ONLY

    if weight.dtype == ember.float16:
        if hasattr(activation, 'compute_dtype') and activation.compute_dtype in static_dtypes:
            return QuantType.DYNAMIC
        elif activation.dtype == ember.float16:
            return QuantType.STATIC

    raise Exception("Unrecognized dtype combination in get_quant_type: activation({}),"
                    "weight({})".format(activation.dtype, weight.dtype))


def _parent_name(target):
    """Turn 'foo.bar' into ['foo', 'bar']."""
    r = target.rsplit('.', 1)
    if len(r) == 1:
        return '', r[0]
    else:
        return r[0], r[1]


def has_no_children_ignoring_parametrizations(module):
    """Whether module._modules is empty (or holds only a parametrization's 'parametrizations')."""
    if len(module._modules) == 0:
        return True
    parametrized = getattr(ember.nn.utils, "parametrize", None)
    if parametrized is not None and parametrized.is_parametrized(module):
        return len(module._modules) == 1 and 'parametrizations' in module._modules
    return False


def _get_path_of_module(root: ember.nn.Module, submodule: ember.nn.Module) -> Optional[str]:
    """The fully qualified name of `submodule` in `root`, or None."""
    for n, p in root.named_modules():
        if submodule is p:
            return n
    return None
