"""complex2 rows of the gradient differential table (test_grads_vs_torch.py): linalg.eigvals of
real matrices (complex results; the eigenvalues have no phase freedom, unlike the vectors, whose
gradients tests/python/complex/test_complex2_linalg.py checks with phase-invariant losses)."""
from grads_table import Tensor, op

T = Tensor(0)

GRAD_CASES = [
    op("linalg_eigvals", [T], [((3, 3),), ((2, 4, 4),)]),
]
