"""ember.linalg rows of the op differential table (test_ops_vs_torch.py): ops whose results are
unique for random inputs (no sign freedom), on float32 / float64, contiguous and strided."""
import torch

from ops_table import Op, T, T1, err

F = [torch.float32, torch.float64]
SQUARE = [((3, 3),), ((2, 4, 4),), ((0, 0),)]
INF = float("inf")

CASES = [
    Op("aten::linalg_inv_ex", [T], F, SQUARE),
    # Its LU / pivots outputs are of A or A^T depending on torch's internal layout choice: one layout.
    Op("aten::_linalg_det", [T], F, SQUARE, vary_layout=False),
    Op("aten::linalg_matrix_exp", [T], F, SQUARE),
    Op("aten::linalg_vector_norm", [T], F, [((3, 4),), ((2, 3, 4),), ((0, 3),)]),
    Op("aten::linalg_vector_norm", [T, 1], F, [((3, 4),), ((2, 3, 4),)]),
    Op("aten::linalg_vector_norm", [T, INF, [1], True], F, [((3, 4),), ((2, 3, 4),)]),
    Op("aten::linalg_vector_norm", [T, 0.5, [0, -1]], F, [((3, 4),), ((2, 3, 4),)]),
    Op("aten::linalg_cross", [T, T1], F, [((4, 3), (4, 3)), ((2, 1, 3), (1, 4, 3))]),
    Op("aten::linalg_qr", [T, "reduced"], F, [((5, 3),), ((3, 5),), ((2, 4, 4),)]),
    Op("aten::linalg_qr", [T, "complete"], F, [((5, 3),)]),
    Op("aten::linalg_lu_factor_ex", [T], F, SQUARE),
    err("linalg_inv_ex", [T], [((2, 3),)]),
    err("linalg_inv_ex", [T], [((3, 3),)], [torch.int64]),
    err("linalg_inv_ex", [T], [((3, 3),)], [torch.float16]),
    err("_linalg_det", [T], [((3,),)]),
    err("linalg_qr", [T, "bad"], [((3, 3),)]),
    err("linalg_cross", [T, T1], [((3, 2), (3, 2))]),
]
