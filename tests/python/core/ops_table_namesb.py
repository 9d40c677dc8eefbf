"""namesb's rows of the op differential table (test_ops_vs_torch.py): ember.special's Bessel
functions, polynomials and incomplete gamma functions, linalg.vander / diagonal / ldl_*,
geqrf / ormqr, and the torch.* functional forms that torch 1.13 runs on the CPU."""
import torch

from ops_table import BINARY, UNARY, Op, T, T1, Tensor, err, idx

F = [torch.float32, torch.float64]
FI = [torch.float32, torch.float64, torch.int64]
SPECIAL = Tensor(0, "special")
POS0, POS1 = Tensor(0, "pos"), Tensor(1, "pos")

_UNARY = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
          "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
          "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0"]
_POLY = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
         "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
         "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
         "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]
UNIT0 = Tensor(0, "unit")

CASES = []
# torch 1.13's rational approximations of j0 j1 y0 y1 and Ai lose up to ~3e-6 (absolute) between
# 2 and 12, where ember's are exact (test_namesb_special.py compares them with scipy): those five
# are compared on inputs below 2 in magnitude here.
_OSCILLATING = ("airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1")
SMALL0 = Tensor(0, "unit")
for _n in _UNARY:
    _x = SMALL0 if _n in _OSCILLATING else SPECIAL
    CASES += [Op(f"aten::special_{_n}", [_x], FI, UNARY),
              Op(f"aten::special_{_n}", [POS0 if _n not in _OSCILLATING else SMALL0], F, UNARY),
              Op(f"aten::special_{_n}", [_x], [torch.float16, torch.bfloat16], UNARY)]
for _n in _POLY:
    CASES += [Op(f"aten::special_{_n}", [T, idx(1, 12)], F, BINARY),
              Op(f"aten::special_{_n}", [UNIT0, idx(1, 14)], F, BINARY),
              Op(f"aten::special_{_n}.n_scalar", [T, 3], FI, UNARY),
              Op(f"aten::special_{_n}.x_scalar", [0.5, idx(0, 9)], F, UNARY),
              Op(f"aten::special_{_n}", [UNIT0, idx(1, 6)], [torch.float16, torch.bfloat16], BINARY)]
CASES += [
    Op("aten::igamma", [POS0, POS1], F + [torch.float16, torch.bfloat16], BINARY),
    Op("aten::igammac", [POS0, POS1], F + [torch.float16, torch.bfloat16], BINARY),
    Op("aten::igamma", [SPECIAL, POS1], F, BINARY),  # (nan, inf, -inf, 0 in a)
    Op("aten::igammac", [POS0, Tensor(1, "special")], F, BINARY),
    Op("aten::special_gammainc", [POS0, POS1], F, BINARY),
    Op("aten::special_gammaincc", [POS0, POS1], F, BINARY),
    err("igamma", [T, T1], [((3,), (3,))], [torch.int64]),
    # linalg
    Op("aten::linalg_vander", [T], FI, [((3,),), ((2, 4),)]),
    Op("aten::linalg_vander", [T], F, [((),)]),
    err("linalg_vander", [T, 1], [((3,),)]),
    err("linalg_vander", [T], [((3,),)], [torch.bool]),
    Op("aten::linalg_diagonal", [T], F, [((3, 4),), ((2, 3, 3),)]),
    Op("aten::linalg_diagonal", [T, 1, 0, 2], F, [((2, 3, 4),)]),
    Op("aten::linalg_ldl_factor_ex", [T], F, [((3, 3),), ((2, 4, 4),), ((0, 0),)]),
    err("linalg_ldl_factor_ex", [T], [((3, 2),)]),
    err("linalg_ldl_factor_ex", [T], [((3, 3),)], [torch.int64]),
    Op("aten::geqrf", [T], F, [((5, 3),), ((3, 5),), ((2, 4, 4),)]),
    err("geqrf", [T], [((3,),)]),
    Op("aten::ormqr", [T, Tensor(1), Tensor(2)], F, [((4, 3), (3,), (4, 2)), ((2, 4, 3), (2, 3), (2, 4, 5))],
       vary_layout=False),
    Op("aten::ormqr", [T, Tensor(1), Tensor(2), False, True], F, [((4, 3), (3,), (2, 4))],
       vary_layout=False),
    # functional forms that torch 1.13 runs on the CPU
    Op("aten::conv_tbc", [T, Tensor(1), Tensor(2), 1], F, [((5, 2, 3), (2, 3, 4), (4,))]),
    Op("aten::native_channel_shuffle", [T, 2], F, [((1, 4, 3),), ((2, 6, 2, 2),)]),
    Op("aten::batch_norm_update_stats", [T, None, None, 0.1], F, [((4, 3),), ((2, 3, 5),)]),
    Op("aten::_rowwise_prune", [T, Tensor(1, "bool", torch.bool), torch.int32], F, [((4, 3), (4,))],
       vary_layout=False),
]
