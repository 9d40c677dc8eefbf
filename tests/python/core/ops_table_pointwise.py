"""The pointwise math and math reductions (atenpw) in the differential op table: unary floating
functions, ember.special's ops, rounding, predicates, binary math, the Scalar overloads, small
composites, reductions and scans — values, dtypes (integer and bool inputs promote as torch's)
and error texts against torch 1.13, with nan / inf / -0.0 where the row's kind is "special"."""
import torch

from ops_table import ALL, BINARY, FLOATS, INTS, NUMERIC, REDUCE, TERNARY, UNARY, Op, T, T1, T2, Tensor, err, idx

F32 = [torch.float32]
F3264 = [torch.float32, torch.float64]
SPECIAL = Tensor(0, "special")
INTEGRAL = INTS + [torch.bool]

# unary floating functions by domain: (name, input kind)
_UNARY = [
    ("atan", "any"), ("asinh", "any"), ("cosh", "any"), ("sinh", "any"), ("tan", "any"),
    ("erf", "any"), ("erfc", "any"), ("exp2", "any"), ("sinc", "any"), ("lgamma", "any"),
    ("digamma", "any"), ("i0", "any"), ("reciprocal", "nonzero"), ("acos", "unit"), ("asin", "unit"),
    ("atanh", "unit"), ("erfinv", "unit"), ("log10", "pos"), ("log2", "pos"), ("acosh", "pos"),
    ("special_entr", "any"), ("special_erfcx", "any"), ("special_i0e", "any"), ("special_i1", "any"),
    ("special_i1e", "any"), ("special_ndtr", "any"), ("special_ndtri", "unit"),
    ("special_log_ndtr", "any"),
]


def _unary_rows():
    rows = []
    for name, kind in _UNARY:
        rows.append(Op(f"aten::{name}", [Tensor(0, kind)], ALL, UNARY))
        rows.append(Op(f"aten::{name}", [SPECIAL], FLOATS, UNARY[:1], vary_layout=False))
        if not name.startswith("special_"):
            rows.append(Op(f"aten::{name}_", [Tensor(0, kind)], FLOATS, UNARY[:2]))
    return rows


CASES = [
    *_unary_rows(),
    # wide arguments: the series / asymptotic switch points of the special functions
    Op("aten::i0", [Tensor(0, "any", torch.float64)], [torch.float64], [((3, 4),)]),
    # ---- rounding and predicates ----
    *[Op(f"aten::{n}", [T], NUMERIC, UNARY) for n in ("ceil", "floor", "round", "trunc")],
    *[Op(f"aten::{n}", [SPECIAL], FLOATS, UNARY[:1]) for n in ("ceil", "floor", "round", "trunc", "frac")],
    *[Op(f"aten::{n}_", [T], NUMERIC, UNARY[:2]) for n in ("ceil", "floor", "round", "trunc")],
    Op("aten::frac", [T], FLOATS, UNARY), Op("aten::frac_", [T], FLOATS, UNARY[:2]),
    *[Op("aten::round.decimals", [T, d], FLOATS, UNARY) for d in (0, 2, -1)],
    # (contiguous only: torch 1.13's in-place round(decimals=) of strided bfloat16 rounds through
    # a different path and differs from its own out-of-place result by a bfloat16 ulp)
    Op("aten::round_.decimals", [T, 1], FLOATS, UNARY[:2], vary_layout=False),
    *[Op(f"aten::{n}", [SPECIAL], ALL, UNARY) for n in ("isnan", "isinf", "isfinite", "isposinf",
                                                         "isneginf", "signbit", "isreal")],
    # ---- binary math ----
    Op("aten::atan2", [T, T1], ALL, BINARY), Op("aten::atan2_", [T, T1], FLOATS, BINARY[:2]),
    Op("aten::hypot", [T, T1], FLOATS, BINARY), Op("aten::hypot_", [T, T1], FLOATS, BINARY[:2]),
    Op("aten::copysign.Tensor", [T, T1], ALL, BINARY), Op("aten::copysign.Tensor", [SPECIAL, Tensor(1, "special")], FLOATS, [((2, 3), (2, 3))], vary_layout=False),
    Op("aten::copysign_.Tensor", [T, T1], FLOATS, BINARY[:2]),
    Op("aten::nextafter", [T, T1], F3264, BINARY), Op("aten::nextafter_", [T, T1], F3264, BINARY[:2]),
    Op("aten::logaddexp", [T, T1], FLOATS, BINARY), Op("aten::logaddexp2", [T, T1], FLOATS, BINARY),
    Op("aten::logaddexp", [SPECIAL, Tensor(1, "special")], FLOATS, [((2, 3), (2, 3))], vary_layout=False),
    Op("aten::xlogy.Tensor", [T, Tensor(1, "pos")], ALL, BINARY),
    Op("aten::xlogy.Tensor", [SPECIAL, Tensor(1, "special")], FLOATS, [((2, 3), (2, 3))], vary_layout=False),
    Op("aten::xlogy_.Tensor", [T, Tensor(1, "pos")], FLOATS, BINARY[:2]),
    Op("aten::special_xlog1py", [T, Tensor(1, "pos")], ALL, BINARY),
    Op("aten::special_zeta", [Tensor(0, "pos"), Tensor(1, "any")], F3264, BINARY),
    Op("aten::special_zeta", [Tensor(0, "nonzero"), Tensor(1, "special")], F3264, [((2, 3), (2, 3))], vary_layout=False),
    Op("aten::fmod.Tensor", [T, Tensor(1, "nonzero")], NUMERIC, BINARY),
    Op("aten::fmod.Tensor", [SPECIAL, Tensor(1, "special")], FLOATS, [((2, 3), (2, 3))], vary_layout=False),
    Op("aten::fmod_.Tensor", [T, Tensor(1, "nonzero")], NUMERIC, BINARY[:2]),
    Op("aten::heaviside", [T, T1], ALL, BINARY), Op("aten::heaviside_", [T, T1], ALL, BINARY[:2]),
    Op("aten::gcd", [T, T1], INTS, BINARY), Op("aten::lcm", [T, T1], INTS, BINARY),
    Op("aten::gcd_", [T, T1], INTS, BINARY[:2]), Op("aten::lcm_", [T, T1], INTS, BINARY[:2]),
    Op("aten::bitwise_left_shift.Tensor", [T, idx(1, 9)], INTS, BINARY),
    Op("aten::bitwise_right_shift.Tensor", [T, idx(1, 9)], INTS, BINARY),
    Op("aten::bitwise_left_shift_.Tensor", [T, idx(1, 4)], [torch.int64, torch.int32], BINARY[:2]),
    # ---- Scalar overloads ----
    Op("aten::add.Scalar", [T, 2, 3], NUMERIC, UNARY), Op("aten::add.Scalar", [T, 1.5, 1], FLOATS + INTS, UNARY),
    Op("aten::sub.Scalar", [T, 2, 1], NUMERIC, UNARY),
    Op("aten::div.Scalar_mode", [T, 3, "floor"], NUMERIC, UNARY),
    Op("aten::div.Scalar_mode", [T, -2.5, "trunc"], NUMERIC, UNARY),
    Op("aten::div.Scalar_mode", [T, 2, None], ALL, UNARY),
    *[Op(f"aten::{c}.Scalar", [T, v], ALL, UNARY) for c in ("eq", "ne", "lt", "le", "gt", "ge") for v in (1, 0.5)],
    *[Op(f"aten::bitwise_{b}.Scalar", [T, 3], INTEGRAL, UNARY) for b in ("and", "or", "xor")],
    *[Op(f"aten::bitwise_{b}.Scalar_Tensor", [6, T], INTEGRAL, UNARY) for b in ("and", "or", "xor")],
    Op("aten::fmod.Scalar", [T, 2.5], ALL, UNARY), Op("aten::fmod.Scalar", [T, -3], NUMERIC, UNARY),
    Op("aten::fmod_.Scalar", [T, 2], NUMERIC, UNARY[:2]),
    Op("aten::remainder.Scalar", [T, -3], NUMERIC, UNARY),
    Op("aten::remainder.Scalar_Tensor", [5, Tensor(0, "nonzero")], NUMERIC, UNARY),
    Op("aten::pow.Scalar", [2, T], FLOATS, UNARY), Op("aten::pow.Scalar", [1.5, Tensor(0, "pos")], ALL, UNARY),
    Op("aten::copysign.Scalar", [T, -1.0], ALL, UNARY), Op("aten::copysign_.Scalar", [T, -0.0], FLOATS, UNARY[:2]),
    Op("aten::xlogy.Scalar_Self", [2, Tensor(0, "pos")], ALL, UNARY),
    Op("aten::xlogy.Scalar_Other", [T, 3], ALL, UNARY), Op("aten::xlogy_.Scalar_Other", [T, 3], FLOATS, UNARY[:2]),
    Op("aten::special_xlog1py.self_scalar", [2, Tensor(0, "pos")], ALL, UNARY),
    Op("aten::special_xlog1py.other_scalar", [T, 3], ALL, UNARY),
    Op("aten::special_zeta.self_scalar", [2.5, Tensor(0, "pos")], F3264, UNARY),
    Op("aten::special_zeta.other_scalar", [Tensor(0, "pos"), 1.5], F3264, UNARY),
    Op("aten::true_divide.Tensor", [T, Tensor(1, "nonzero")], ALL, BINARY),
    Op("aten::true_divide.Scalar", [T, 4], ALL, UNARY), Op("aten::true_divide_.Scalar", [T, 4], FLOATS, UNARY[:2]),
    Op("aten::true_divide_.Tensor", [T, Tensor(1, "nonzero")], FLOATS, BINARY[:2]),
    Op("aten::floor_divide.Scalar", [T, 3], NUMERIC, UNARY),
    Op("aten::float_power.Tensor_Tensor", [Tensor(0, "pos"), T1], ALL, BINARY),
    Op("aten::float_power.Tensor_Scalar", [T, 3], ALL, UNARY),
    Op("aten::float_power.Scalar", [2, T], ALL, UNARY),
    Op("aten::float_power_.Scalar", [T, 2], [torch.float64], UNARY[:2]),
    Op("aten::float_power_.Tensor", [T, T1], [torch.float64], BINARY[:2]),
    *[Op(f"aten::bitwise_{s}_shift.Tensor_Scalar", [T, 3], INTS, UNARY) for s in ("left", "right")],
    *[Op(f"aten::bitwise_{s}_shift.Scalar_Tensor", [100, idx(0, 8)], [torch.int64], UNARY) for s in ("left", "right")],
    Op("aten::bitwise_right_shift_.Tensor_Scalar", [T, 2], INTS, UNARY[:2]),
    # ---- small composites ----
    Op("aten::scalar_tensor", [2.5], F32, [()]), Op("aten::scalar_tensor", [3, torch.int32], F32, [()]),
    Op("aten::fill.Scalar", [T, 2.5], ALL, UNARY), Op("aten::fill.Scalar", [T, 3], ALL, UNARY),
    Op("aten::fill.Tensor", [T, Tensor(1)], ALL, [((3, 4), ()), ((), ())]),
    Op("aten::fill_.Tensor", [T, Tensor(1)], ALL, [((3, 4), ()), ((), ())]),
    *[Op(f"aten::{n}", [T], ALL, UNARY) for n in ("sgn", "square", "deg2rad", "rad2deg", "conj",
                                                  "resolve_conj", "resolve_neg")],
    Op("aten::positive", [T], NUMERIC, UNARY),
    *[Op(f"aten::{n}_", [T], FLOATS, UNARY[:2]) for n in ("sgn", "square", "deg2rad", "rad2deg")],
    Op("aten::logit", [Tensor(0, "unit"), None], ALL, UNARY), Op("aten::logit", [T, 0.2], FLOATS, UNARY),
    Op("aten::logit_", [Tensor(0, "unit"), 0.05], FLOATS, UNARY[:2]),
    Op("aten::nan_to_num", [SPECIAL, None, None, None], ALL, UNARY),
    Op("aten::nan_to_num", [SPECIAL, 1.0, 100.0, -100.0], ALL, UNARY),
    Op("aten::nan_to_num_", [SPECIAL, -1.0, None, None], FLOATS, UNARY[:1]),
    Op("aten::lerp.Scalar", [T, T1, 0.3], FLOATS, BINARY), Op("aten::lerp.Scalar", [T, T1, 0.75], FLOATS, BINARY),
    Op("aten::lerp.Tensor", [T, T1, T2], FLOATS, TERNARY),
    Op("aten::lerp_.Scalar", [T, T1, 0.6], FLOATS, BINARY[:2]), Op("aten::lerp_.Tensor", [T, T1, T2], FLOATS, TERNARY[:2]),
    # (n = 1: torch 1.13's trigamma is a truncated series good to ~5e-10; ember's polygamma is the
    # zeta sum for every n >= 1, good to double precision: test_pointwise_math.py compares n = 1
    # with a tolerance that covers torch's error)
    Op("aten::polygamma", [2, T], F3264, UNARY), Op("aten::polygamma", [3, Tensor(0, "pos")], F3264, UNARY),
    Op("aten::polygamma", [0, T], ALL, UNARY), Op("aten::polygamma_", [Tensor(0, "pos"), 2], F3264, UNARY[:2]),
    Op("aten::mvlgamma", [Tensor(0, "pos"), 1], F3264, UNARY), Op("aten::mvlgamma", [Tensor(0, "pos"), 3], F3264, UNARY),
    Op("aten::mvlgamma_", [Tensor(0, "pos"), 2], F3264, UNARY[:2]),
    Op("aten::clamp_min", [T, 0.5], NUMERIC, UNARY), Op("aten::clamp_max", [T, -0.5], NUMERIC, UNARY),
    Op("aten::clamp_min.Tensor", [T, T1], NUMERIC, BINARY), Op("aten::clamp_max.Tensor", [T, T1], NUMERIC, BINARY),
    Op("aten::clamp_min_", [T, 0], NUMERIC, UNARY[:2]), Op("aten::clamp_max_.Tensor", [T, T1], NUMERIC, BINARY[:2]),
    Op("aten::isclose", [T, T1, 1e-5, 1e-8, False], ALL, BINARY),
    Op("aten::isclose", [T, T1, 0.5, 1.0, False], ALL, BINARY),
    Op("aten::isclose", [SPECIAL, Tensor(1, "special"), 1e-5, 1e-8, True], FLOATS, [((2, 3), (2, 3))], vary_layout=False),
    # ---- reductions and scans ----
    Op("aten::logsumexp", [T, [1], False], ALL, [((3, 4),), ((2, 3, 4),)]),
    Op("aten::logsumexp", [T, [0, -1], True], FLOATS, [((3, 4),), ((2, 3, 4),)]),
    Op("aten::logsumexp", [SPECIAL, [1], False], FLOATS, [((3, 4),)], vary_layout=False),
    Op("aten::logsumexp", [T, [0], False], FLOATS, [((0, 3),), ((),)]),
    Op("aten::nansum", [SPECIAL, None, False, None], ALL, REDUCE),
    Op("aten::nansum", [SPECIAL, [1], True, None], FLOATS, [((3, 4),)]),
    Op("aten::nansum", [T, [0], False, torch.float64], NUMERIC, [((3, 4),)]),
    Op("aten::nanmean", [SPECIAL, None, False, None], FLOATS, REDUCE),
    Op("aten::nanmean", [SPECIAL, [0], True, None], FLOATS, [((3, 4),)]),
    Op("aten::count_nonzero.dim_IntList", [T, [0]], ALL, [((3, 4),), ((2, 3, 4),)]),
    Op("aten::count_nonzero.dim_IntList", [T, [0, 2]], ALL, [((2, 3, 4),)]),
    Op("aten::count_nonzero", [T, None], ALL, REDUCE), Op("aten::count_nonzero", [T, -1], ALL, [((3, 4),)]),
    *[Op("aten::dist", [T, T1, p], FLOATS, BINARY) for p in (2, 1, 0, 3.5, float("inf"))],
    Op("aten::renorm", [T, 2, 0, 1.0], FLOATS, [((3, 4),), ((2, 3, 4),)]),
    Op("aten::renorm", [T, 1, -1, 0.5], FLOATS, [((3, 4),)]),
    Op("aten::renorm_", [T, 2, 1, 1.5], F3264, [((3, 4),)]),
    Op("aten::cumprod", [T, 1, None], ALL, [((3, 4),), ((2, 3, 4),)]),
    Op("aten::cumprod", [T, 0, None], ALL, [((),), ((0, 3),), ((5,),)]),
    Op("aten::cumprod", [T, -1, torch.float64], NUMERIC, [((3, 4),)]),
    Op("aten::cumprod_", [T, 0, None], F3264, [((3, 4),)]),
    *[Op(f"aten::{n}", [T, d], ALL, [((3, 4),), ((2, 3, 4),)]) for n in ("cummax", "cummin") for d in (0, -1)],
    *[Op(f"aten::{n}", [SPECIAL, 1], FLOATS, [((3, 4),)], vary_layout=False) for n in ("cummax", "cummin")],
    *[Op(f"aten::{n}", [T, 0], ALL, [((),), ((0,),)]) for n in ("cummax", "cummin")],
    Op("aten::logcumsumexp", [T, 1], F3264, [((3, 4),), ((2, 3, 4),)]),
    Op("aten::logcumsumexp", [SPECIAL, 1], F3264, [((3, 4),)], vary_layout=False),
    Op("aten::logcumsumexp", [T, 0], F3264, [((),), ((0, 3),)]),
    # ---- errors ----
    err("ceil", [T], [((3,),)], [torch.bool]), err("round", [T], [((3,),)], [torch.bool]),
    err("frac", [T], [((3,),)], [torch.int64, torch.bool]),
    err("round.decimals", [T, 2], [((3,),)], [torch.int64]),
    err("ceil_", [T], [((3,),)], [torch.bool]),
    err("acos_", [T], [((3,),)], [torch.int64]), err("erf_", [T], [((3,),)], [torch.bool]),
    err("hypot", [T, T1], [((3,), (3,))], [torch.int64]),
    err("nextafter", [T, T1], [((3,), (3,))], [torch.int32]),
    err("logaddexp", [T, T1], [((3,), (3,))], [torch.int64]),
    err("gcd", [T, T1], [((3,), (3,))], [torch.float32, torch.bool]),
    err("bitwise_left_shift.Tensor", [T, T1], [((3,), (3,))], [torch.float32, torch.bool]),
    err("heaviside", [T, Tensor(1, dtype=torch.float64)], [((3,), (3,))]),
    err("fmod.Tensor", [T, idx(1, 1)], [((3,), (3,))], [torch.int64]),
    err("atan2_", [T, T1], [((3,), (3,))], [torch.int64]),
    err("copysign_.Tensor", [T, Tensor(1, dtype=torch.float32)], [((3,), (3,))], [torch.int64]),
    err("atan2", [T, T1], [((2, 3), (3, 2))]),
    err("lerp.Scalar", [T, Tensor(1, dtype=torch.float64), 0.5], [((3,), (3,))]),
    err("lerp.Tensor", [T, T1, Tensor(2, dtype=torch.float64)], [((3,), (3,), (3,))]),
    err("lerp.Scalar", [T, T1, 0.5], [((3,), (3,))], [torch.int64]),
    err("isclose", [T, Tensor(1, dtype=torch.float64), 1e-5, 1e-8, False], [((3,), (3,))]),
    err("isclose", [T, T1, -1.0, 1e-8, False], [((3,), (3,))]),
    err("isclose", [T, T1, 1e-5, -1.0, False], [((3,), (3,))]),
    err("renorm", [T, 2, 0, 1.0], [((3,),)]), err("renorm", [T, 0, 0, 1.0], [((3, 4),)]),
    err("renorm", [T, 2, 0, -1.0], [((3, 4),)]), err("renorm", [T, 2, 2, 1.0], [((3, 4),)]),
    err("nanmean", [T, None, False, None], [((3,),)], [torch.int64]),
    err("mvlgamma", [T, 0], [((3,),)]), err("mvlgamma", [T, 1], [((3,),)], [torch.bool]),
    err("polygamma", [-1, T], [((3,),)]),
    err("logcumsumexp", [T, 0], [((3,),)], [torch.int64]),
    err("cumprod", [T, 2], [((3, 4),)]), err("cummax", [T, 2], [((3, 4),)]), err("cummin", [T, -3], [((3, 4),)]),
    err("logcumsumexp", [T, 1], [((3,),)]),
    err("float_power_.Scalar", [T, 2], [((3,),)]),
    err("positive", [T], [((3,),)], [torch.bool]),
    err("deg2rad_", [T], [((3,),)], [torch.int64]),
    err("fill.Tensor", [T, T1], [((3,), (3,))]), err("fill_.Tensor", [T, T1], [((3,), (2,))]),
    err("logsumexp", [T, [2], False], [((3, 4),)]),
    err("div.Scalar_mode", [T, 0, "floor"], [((3,),)], [torch.int64]),
    err("div.Scalar_mode", [T, 2, "round"], [((3,),)]),
    err("remainder.Scalar", [T, 0], [((3,),)], [torch.int64]),
]


# For tests/python/quantized/test_qtensor_unsupported.py: the rows of this family whose refusal of a
# quantized input comes from another step than PyTorch's (both refuse): ember's dispatcher names
# the op itself where PyTorch names its structured out= kernel ("aten::acos.out"), the Scalar
# overloads and composites reach the ops their bodies call, and binary ops refuse the quantized
# operand before promoting types.
QUANTIZED_KNOWN = {name: "ember refuses the quantized input at another step than PyTorch (both refuse)"
                   for name in ['aten::acos', 'aten::acos_', 'aten::acosh', 'aten::acosh_', 'aten::asin', 'aten::asin_', 'aten::asinh', 'aten::asinh_', 'aten::atan', 'aten::atan2', 'aten::atan2_', 'aten::atan_', 'aten::atanh', 'aten::atanh_', 'aten::bitwise_left_shift.Tensor', 'aten::ceil', 'aten::ceil_', 'aten::clamp_min_', 'aten::copysign.Scalar', 'aten::copysign.Tensor', 'aten::copysign_.Scalar', 'aten::copysign_.Tensor', 'aten::cosh', 'aten::cosh_', 'aten::cummax', 'aten::cummin', 'aten::cumprod', 'aten::cumprod_', 'aten::deg2rad', 'aten::deg2rad_', 'aten::digamma', 'aten::digamma_', 'aten::div.Scalar_mode', 'aten::erf', 'aten::erf_', 'aten::erfc', 'aten::erfc_', 'aten::erfinv', 'aten::erfinv_', 'aten::exp2', 'aten::exp2_', 'aten::floor', 'aten::floor_', 'aten::floor_divide.Scalar', 'aten::fmod.Scalar', 'aten::fmod.Tensor', 'aten::fmod_.Scalar', 'aten::fmod_.Tensor', 'aten::frac', 'aten::frac_', 'aten::gcd', 'aten::heaviside', 'aten::heaviside_', 'aten::hypot', 'aten::hypot_', 'aten::i0', 'aten::i0_', 'aten::isfinite', 'aten::isinf', 'aten::isneginf', 'aten::isposinf', 'aten::isreal', 'aten::lerp.Scalar', 'aten::lerp.Tensor', 'aten::lerp_.Scalar', 'aten::lerp_.Tensor', 'aten::lgamma', 'aten::lgamma_', 'aten::log10', 'aten::log10_', 'aten::log2', 'aten::log2_', 'aten::logaddexp', 'aten::logaddexp2', 'aten::logcumsumexp', 'aten::logit', 'aten::logit_', 'aten::logsumexp', 'aten::mvlgamma', 'aten::mvlgamma_', 'aten::nanmean', 'aten::nansum', 'aten::nextafter', 'aten::nextafter_', 'aten::polygamma', 'aten::polygamma_', 'aten::pow.Scalar', 'aten::rad2deg', 'aten::rad2deg_', 'aten::reciprocal', 'aten::reciprocal_', 'aten::remainder.Scalar_Tensor', 'aten::renorm', 'aten::renorm_', 'aten::round', 'aten::round.decimals', 'aten::round_', 'aten::round_.decimals', 'aten::sgn', 'aten::sgn_', 'aten::signbit', 'aten::sinc', 'aten::sinc_', 'aten::sinh', 'aten::sinh_', 'aten::special_entr', 'aten::special_erfcx', 'aten::special_i0e', 'aten::special_i1', 'aten::special_i1e', 'aten::special_log_ndtr', 'aten::special_ndtr', 'aten::special_ndtri', 'aten::special_xlog1py', 'aten::special_xlog1py.other_scalar', 'aten::special_xlog1py.self_scalar', 'aten::special_zeta', 'aten::special_zeta.other_scalar', 'aten::special_zeta.self_scalar', 'aten::square_', 'aten::tan', 'aten::tan_', 'aten::trunc', 'aten::trunc_', 'aten::xlogy.Scalar_Other', 'aten::xlogy.Scalar_Self', 'aten::xlogy.Tensor', 'aten::xlogy_.Scalar_Other', 'aten::xlogy_.Tensor']}
