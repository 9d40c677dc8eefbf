"""Gradients of the pointwise math and math reductions (atenpw) against torch 1.13."""
import torch

from grads_table import BINARY, F64, GF, REDUCE, SMALL, TERNARY, UNARY, T, T1, T2, Tensor, op

POS0, UNIT0, NZ0 = Tensor(0, "pos"), Tensor(0, "unit"), Tensor(0, "nonzero")
POS1, NZ1 = Tensor(1, "pos"), Tensor(1, "nonzero")

_UNARY = [
    ("atan", "any"), ("asinh", "any"), ("cosh", "any"), ("sinh", "any"), ("tan", "unit"),
    ("erf", "any"), ("erfc", "any"), ("exp2", "any"), ("sinc", "any"), ("lgamma", "pos"),
    ("digamma", "pos"), ("i0", "any"), ("reciprocal", "nonzero"), ("acos", "unit"), ("asin", "unit"),
    ("atanh", "unit"), ("erfinv", "unit"), ("log10", "pos"), ("log2", "pos"),
    ("special_entr", "pos"), ("special_erfcx", "any"), ("special_i0e", "nonzero"),
    ("special_i1", "any"), ("special_i1e", "nonzero"), ("special_ndtr", "any"),
    ("special_log_ndtr", "any"),
]

GRAD_CASES = [
    *[op(n, [Tensor(0, k)]) for n, k in _UNARY],
    # (torch 1.13 has no derivative for asinh_ and atanh_: "the derivative for 'inplace version of
    # asinh' is not implemented"; ember's are gradchecked in test_grad_math_pointwise.cpp)
    *[op(f"{n}_", [Tensor(0, k)], SMALL) for n, k in _UNARY
      if not n.startswith("special_") and n not in ("asinh", "atanh")],
    op("acosh", [Tensor(0, "pos")], [((3, 4),)], dtypes=F64, check=False),
    op("special_ndtri", [Tensor(0, "pos")], [((),)], dtypes=F64),
    *[op(n, [T]) for n in ("ceil", "floor", "round", "trunc", "frac")],
    op("round.decimals", [T, 2]), op("frac_", [T], SMALL), op("floor_", [T], SMALL),
    op("atan2", [T, T1], BINARY), op("atan2_", [T, T1], BINARY[:1]),
    op("hypot", [NZ0, NZ1], BINARY), op("copysign.Tensor", [NZ0, NZ1], BINARY),
    op("copysign.Scalar", [NZ0, -2.0]),
    op("logaddexp", [T, T1], BINARY), op("logaddexp2", [T, T1], BINARY),
    op("xlogy.Tensor", [T, POS1], BINARY), op("xlogy.Scalar_Self", [3, POS0]), op("xlogy.Scalar_Other", [T, 2.5]),
    op("special_xlog1py", [T, POS1], BINARY), op("special_xlog1py.other_scalar", [T, 0.5]),
    # zeta(x, q) is nan where x < 1: those outputs' finite differences are nan, which gradcheck
    # (as torch's) does not take as close to the analytical gradient.
    op("special_zeta", [Tensor(0, "pos"), POS1], [((3, 4), (3, 4))], diff=[1], dtypes=F64, check=False),
    op("special_zeta.self_scalar", [2.5, POS0], [((3, 4),)], dtypes=F64),
    op("fmod.Tensor", [T, NZ1], BINARY), op("fmod.Scalar", [T, 1.5]), op("remainder.Scalar", [T, 1.5]),
    op("pow.Scalar", [2.0, T]), op("float_power.Tensor_Scalar", [T, 2]),
    op("float_power.Tensor_Tensor", [POS0, T1], BINARY[:1]),
    op("true_divide.Tensor", [T, NZ1], BINARY), op("add.Scalar", [T, 2, 3]), op("sub.Scalar", [T, 2, 1]),
    op("sgn", [NZ0]), op("square", [T]), op("deg2rad", [T]), op("rad2deg", [T]),
    # (logit without eps: torch 1.13's node gives NaN gradients outside [0, 1] where the
    # composite's log gives 1 / (x (1 - x)); inside they agree: test_pointwise_math.py)
    op("logit", [UNIT0, 0.2]), op("logit_", [UNIT0, 0.3], SMALL), op("nan_to_num", [T, None, None, None]),
    op("lerp.Scalar", [T, T1, 0.3], BINARY), op("lerp.Scalar", [T, T1, 0.8], BINARY),
    op("lerp.Tensor", [T, T1, T2], TERNARY),
    op("polygamma", [1, POS0], dtypes=F64), op("polygamma", [2, POS0], dtypes=F64),
    op("mvlgamma", [Tensor(0, "pos"), 1]),
    op("clamp_min", [T, 0.3]), op("clamp_max", [T, 0.3]), op("clamp_min.Tensor", [T, T1], BINARY[:1]),
    op("fill.Scalar", [T, 2.0]),
    op("logsumexp", [T, [1], False], [((3, 4),), ((2, 3, 4),)]),
    op("logsumexp", [T, [0, 2], True], [((2, 3, 4),)]),
    op("nansum", [T, None, False, None], REDUCE[:2]), op("nanmean", [T, [1], True, None], [((3, 4),)]),
    op("dist", [T, T1, 2], BINARY[:2]), op("dist", [T, T1, 3.0], BINARY[:1]),
    op("renorm", [T, 2, 0, 1.0], [((3, 4),)]),
    op("cumprod", [NZ0, 1, None], [((3, 4),), ((2, 3, 4),)]), op("cumprod", [NZ0, 0, None], [((),)]),
    op("cumprod", [T, 0, torch.float64], [((3, 4),)], dtypes=[torch.float32]),
    op("cummax", [Tensor(0, "distinct"), 1], [((3, 4),)]), op("cummax", [T, 0], [((),)]),
    op("cummin", [Tensor(0, "distinct"), 0], [((3, 4),)]),
    op("logcumsumexp", [T, 1], [((3, 4),), ((2, 3, 4),)]),
    op("cumprod_", [NZ0, 0, None], SMALL[:1]),
]

NONDIFF_CASES = [
    *[op(n, [T], UNARY[:1], dtypes=F64) for n in ("isnan", "isinf", "isfinite", "signbit")],
    op("isclose", [T, T1, 1e-5, 1e-8, False], BINARY[:1], dtypes=F64),
    op("eq.Scalar", [T, 0.5], UNARY[:1], dtypes=F64),
]

# Composite rows: the nodes are those of the ops their bodies call, where torch 1.13 has a fused
# node of its own (or names the Scalar overload's node).
_COMPOSITE = "ember's row is a Composite: the node is the one its body's op records"
GRAD_FN_ALLOWLIST = [
    (r"::sgn$", "SgnBackward0", "SignBackward0", _COMPOSITE),
    (r"::square$", "PowBackward0", "PowBackward0", _COMPOSITE),
    (r"::deg2rad$", "Deg2RadBackward0", "MulBackward0", _COMPOSITE),
    (r"::rad2deg$", "Rad2DegBackward0", "MulBackward0", _COMPOSITE),
    (r"::logit$", "LogitBackward0", "LogBackward0", _COMPOSITE),
    (r"::nan_to_num$", "NanToNumBackward0", "WhereBackward0", _COMPOSITE),
    (r"::lerp\.Scalar$", "LerpBackward0", "AddBackward0", _COMPOSITE),
    (r"::lerp\.Scalar$", "LerpBackward0", "SubBackward0", _COMPOSITE),
    (r"::lerp\.Tensor$", "LerpBackward1", "WhereBackward0", _COMPOSITE),
    (r"::polygamma$", "PolygammaBackward0", "MulBackward0", _COMPOSITE),
    (r"::mvlgamma$", "MvlgammaBackward0", "AddBackward0", _COMPOSITE),
    (r"::clamp_min$", "ClampMinBackward0", "ClampBackward1", _COMPOSITE),
    (r"::clamp_max$", "ClampMaxBackward0", "ClampBackward1", _COMPOSITE),
    (r"::clamp_min\.Tensor$", "ClampMinBackward1", "MaximumBackward0", _COMPOSITE),
    (r"::fill\.Scalar$", "FillBackward0", "FillBackward2", _COMPOSITE),
    (r"::logsumexp$", "LogsumexpBackward0", "AddBackward0", _COMPOSITE),
    (r"::nansum$", "NansumBackward0", "SumBackward0", _COMPOSITE),
    (r"::nansum$", "NansumBackward0", "SumBackward1", _COMPOSITE),
    (r"::special_ndtr$", "MulBackward1", "SpecialNdtrBackward0",
     "torch 1.13's special_ndtr is a composite (0.5 * erfc(-x / sqrt(2))); ember's is a kernel with a node of its own"),
    (r"::logit_$", "LogitBackward0", "CopyBackwards", _COMPOSITE),
    (r"::deg2rad_$", "Deg2RadBackward0", "CopyBackwards", _COMPOSITE),
    (r"::nanmean$", "DivBackward0", "DivBackward0", _COMPOSITE),
    (r"::dist$", "DistBackward0", "NormBackward1", _COMPOSITE),
    (r"::dist$", "DistBackward0", "NormBackward0", _COMPOSITE),
    (r"::renorm$", "RenormBackward0", "MulBackward0", _COMPOSITE),
    (r"::float_power\.Tensor_Scalar$", "PowBackward0", "PowBackward0", _COMPOSITE),
    (r"::true_divide\.Tensor$", "DivBackward0", "DivBackward0", _COMPOSITE),
    (r"::add\.Scalar$", "AddBackward1", "AddBackward0", _COMPOSITE),
    (r"::sub\.Scalar$", "SubBackward1", "SubBackward0", _COMPOSITE),
    (r"::remainder\.Scalar$", "RemainderBackward0", "RemainderBackward0", _COMPOSITE),
    (r"::pow\.Scalar$", "PowBackward2", "PowBackward2", _COMPOSITE),
    (r"::cumprod_$", "CumprodBackward0", "CopyBackwards", _COMPOSITE),
]
