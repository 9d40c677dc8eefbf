"""Gradient rows of the nnutils composites: the weight-norm ops and the Householder product
(their gradients come from the ops they are composed of)."""
from grads_table import Tensor, op

T, T1 = Tensor(0), Tensor(1)

GRAD_CASES = [
    op("norm_except_dim", [T, 2, 0], [((3, 4),), ((2, 3, 4),)]),
    op("norm_except_dim", [T, 2, 1], [((2, 3, 4),)]),
    op("norm_except_dim", [T, 2, -1], [((2, 3, 4),)]),
    op("_weight_norm", [T, T1, 0], [((3, 4), (3, 1))]),
    op("_weight_norm", [T, T1, 1], [((2, 3, 4), (1, 3, 1))]),
    op("linalg_householder_product", [T, T1], [((5, 3), (3,)), ((2, 4, 3), (2, 2))]),
]
