"""ember.linalg rows of the gradient differential table (test_grads_vs_torch.py): ops whose
gradients are well defined at random inputs (no sign freedom in the outputs)."""
from grads_table import Tensor, op

T, T1 = Tensor(0), Tensor(1)
SQUARE = [((3, 3),), ((2, 3, 3),)]

GRAD_CASES = [
    op("linalg_inv_ex", [T], SQUARE),
    op("_linalg_det", [T], SQUARE),
    op("linalg_matrix_exp", [T], SQUARE),
    op("linalg_vector_norm", [T], [((3, 4),), ((2, 3, 4),)]),
    op("linalg_vector_norm", [T, 3.0, [1]], [((3, 4),), ((2, 3, 4),)]),
    op("linalg_cross", [T, T1], [((4, 3), (4, 3)), ((2, 1, 3), (1, 4, 3))]),
    op("linalg_qr", [T, "reduced"], [((5, 3),), ((3, 5),)]),
]
