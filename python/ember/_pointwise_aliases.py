"""The alias names torch 1.13 gives pointwise ops (torch.arccos is torch.acos's computation,
torch.clip is clamp, torch.fix is trunc, ...), as ember functions and Tensor methods over the
same op-table rows, plus the shift operators (`t << 1`)."""
from . import _C
from ._tensor import Tensor, _binary, _inplace, _operator

# alias: (the rows it binds, a function too (else a method only))
_ALIASES = {
    "arccos": ["acos"], "arcsin": ["asin"], "arctan": ["atan"], "arccosh": ["acosh"],
    "arcsinh": ["asinh"], "arctanh": ["atanh"], "arctan2": ["atan2"], "fix": ["trunc"],
    "clip": ["clamp.Tensor", "clamp"], "absolute": ["abs"], "negative": ["neg"],
    "multiply": ["mul.Tensor"], "divide": ["div.Tensor", "div.Tensor_mode"],
    "subtract": ["sub.Tensor"], "greater": ["gt.Tensor", "gt.Scalar"],
    "greater_equal": ["ge.Tensor", "ge.Scalar"], "less": ["lt.Tensor", "lt.Scalar"],
    "less_equal": ["le.Tensor", "le.Scalar"], "not_equal": ["ne.Tensor", "ne.Scalar"],
}
# in-place aliases: methods only, as in PyTorch
_INPLACE_ALIASES = {
    "arccos_": ["acos_"], "arcsin_": ["asin_"], "arctan_": ["atan_"], "arccosh_": ["acosh_"],
    "arcsinh_": ["asinh_"], "arctanh_": ["atanh_"], "arctan2_": ["atan2_"], "fix_": ["trunc_"],
    "clip_": ["clamp_.Tensor", "clamp_"], "absolute_": ["abs_"], "negative_": ["neg_"],
    "multiply_": ["mul_.Tensor"], "divide_": ["div_.Tensor", "div_.Tensor_mode"],
    "subtract_": ["sub_.Tensor"], "greater_": ["gt_.Tensor"], "greater_equal_": ["ge_.Tensor"],
    "less_": ["lt_.Tensor"], "less_equal_": ["le_.Tensor"], "not_equal_": ["ne_.Tensor"],
}


def _rows(overloads):
    return [f"aten::{o}" for o in overloads]


functions = {}
for _name, _overloads in _ALIASES.items():
    functions[_name] = _C._make_op_function(_name, _rows(_overloads), False)
    setattr(Tensor, _name, _C._make_op_function(_name, _rows(_overloads), True))
for _name, _overloads in _INPLACE_ALIASES.items():
    setattr(Tensor, _name, _C._make_op_function(_name, _rows(_overloads), True))

Tensor.__lshift__ = _binary("bitwise_left_shift")
Tensor.__rshift__ = _binary("bitwise_right_shift")
Tensor.__rlshift__ = _operator(_C._op_functions["bitwise_left_shift"], "__rlshift__", reflected=True)
Tensor.__rrshift__ = _operator(_C._op_functions["bitwise_right_shift"], "__rrshift__", reflected=True)
Tensor.__ilshift__ = _inplace("bitwise_left_shift_")
Tensor.__irshift__ = _inplace("bitwise_right_shift_")
Tensor.__imod__ = _inplace("remainder_")
Tensor.__ipow__ = _inplace("pow_")
Tensor.__iand__ = _inplace("bitwise_and_")
Tensor.__ior__ = _inplace("bitwise_or_")
Tensor.__ixor__ = _inplace("bitwise_xor_")
for _dunder in ("__lshift__", "__rshift__", "__rlshift__", "__rrshift__", "__ilshift__", "__irshift__",
                "__imod__", "__ipow__", "__iand__", "__ior__", "__ixor__"):
    getattr(Tensor, _dunder).__name__ = _dunder
