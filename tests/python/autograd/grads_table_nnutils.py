"""Gradient rows of the nnutils composites: the weight-norm ops and the Householder product
(their gradients come from the ops they are composed of)."""
import torch

from grads_table import Tensor, op

T, T1 = Tensor(0), Tensor(1)

GRAD_CASES = [
    op("norm_except_dim", [T, 2, 0], [((3, 4),), ((2, 3, 4),)]),
    op("norm_except_dim", [T, 2, 1], [((2, 3, 4),)]),
    op("norm_except_dim", [T, 2, -1], [((2, 3, 4),)]),
    op("_weight_norm", [T, T1, 0], [((3, 4), (3, 1))]),
    op("_weight_norm", [T, T1, 1], [((2, 3, 4), (1, 3, 1))]),
    # float64 only: the gradient sums the rank-one updates' terms in another order than torch's
    # formula (float32 differs by ~1e-4 where terms cancel)
    op("linalg_householder_product", [T, T1], [((5, 3), (3,)), ((2, 4, 3), (2, 2))],
       dtypes=[torch.float64]),
]

# The composites record their parts' nodes, where torch's kernels record one node of their own.
GRAD_FN_ALLOWLIST = [
    (r"::norm_except_dim$", "NormBackward0", "NormBackward1",
     "the whole-tensor norm is norm.ScalarOpt_dim here, norm.Scalar in torch"),
    (r"::_weight_norm$", "WeightNormInterfaceBackward0", "MulBackward0",
     "composed as v * (g / norm_except_dim(v)), torch's non-fused formula"),
    (r"::linalg_householder_product$", "LinalgHouseholderProductBackward0", "SubBackward0",
     "composed of rank-one updates (Note [householder_product by composition])"),
]
