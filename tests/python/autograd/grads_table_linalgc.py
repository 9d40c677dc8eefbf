"""linalgc rows of the gradient differential table (test_grads_vs_torch.py): the linalg ops that
got their own backward nodes when they learned complex matrices (cholesky_solve,
cholesky_inverse, linalg.pinv: CholeskySolveBackward0, CholeskyInverseBackward0,
LinalgPinvBackward0). The table builds real inputs; the complex gradients are compared with
torch in tests/python/linalg/test_complex_linalg_grads.py."""
import torch

from grads_table import Tensor, op

T, T1 = Tensor(0), Tensor(1)
# The factor's rules (torch's) give the gradient of a full matrix while LAPACK reads one triangle:
# compared with torch, not gradchecked (finite differences see zeros off the triangle); float64
# only, as the random factors are far from well conditioned.
FACTOR = dict(check=False, dtypes=[torch.float64])

GRAD_CASES = [
    op("cholesky_solve", [T, T1, False], [((3, 2), (3, 3)), ((2, 3, 2), (1, 3, 3))], **FACTOR),
    op("cholesky_solve", [T, T1, True], [((3, 2), (3, 3))], **FACTOR),
    op("cholesky_inverse", [T, False], [((3, 3),)], **FACTOR),
    op("cholesky_inverse", [T, True], [((3, 3),)], **FACTOR),
    op("linalg_pinv.atol_rtol_tensor", [T], [((4, 3),), ((2, 3, 5),)]),
]
