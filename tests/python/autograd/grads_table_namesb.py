"""namesb's rows of the gradient differential table (test_grads_vs_torch.py): igamma / igammac
(differentiable in their second argument only, as in torch 1.13), linalg.vander and conv_tbc."""
from grads_table import Tensor, op

T, T1, T2 = Tensor(0), Tensor(1), Tensor(2)
POS0, POS1 = Tensor(0, "pos"), Tensor(1, "pos")

GRAD_CASES = [
    op("igamma", [POS0, POS1], [((3, 4), (3, 4)), ((2, 1, 4), (3, 4))], diff=[1]),
    op("igammac", [POS0, POS1], [((3, 4), (3, 4)), ((), (3,))], diff=[1]),
    op("linalg_vander", [T], [((3,),), ((2, 4),)]),
    # (torch's own backward refuses a transposed input: its view of the gradient fails)
    op("conv_tbc", [T, T1, T2, 1], [((5, 2, 3), (2, 3, 4), (4,))], layouts=["c", "s"]),
]

GRAD_FN_ALLOWLIST = [
    (r"::conv_tbc$", "ConvTbcBackward0", "CloneBackward0",
     "ember's conv_tbc is a Composite row over conv1d (torch's a primitive with its own node)"),
]
