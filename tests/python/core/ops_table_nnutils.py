"""Op-table rows of the nnutils composites against torch 1.13: norm_except_dim, _weight_norm,
linalg_householder_product / orgqr, and their errors."""
import torch

from ops_table import Op, T, T1, err

F = [torch.float32, torch.float64]

CASES = [
    Op("aten::norm_except_dim", [T, 2, 0], F, [((3, 4),), ((2, 3, 4),)]),
    Op("aten::norm_except_dim", [T, 2, 2], F, [((2, 3, 4),)]),
    Op("aten::norm_except_dim", [T, 2, -1], F, [((2, 3, 4),)]),
    Op("aten::_weight_norm", [T, T1, 0], F, [((3, 4), (3, 1))]),
    Op("aten::linalg_householder_product", [T, T1], F, [((5, 3), (3,)), ((2, 4, 3), (2, 2))]),
    Op("aten::orgqr", [T, T1], F, [((5, 3), (2,))]),
    err("linalg_householder_product", [T, T1], [((3,), (1,))]),
    err("linalg_householder_product", [T, T1], [((2, 3), (1,))]),
    err("linalg_householder_product", [T, T1], [((3, 2), (3,))]),
]
