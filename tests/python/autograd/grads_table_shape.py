"""Gradient rows of the shape, indexing, scatter and sorting family (see grads_table.py). The
composites whose grad_fn is the op PyTorch records too (index_add -> IndexAddBackward0, tile ->
RepeatBackward0, ...) are here as well; einsum / tensordot / kron / cov, whose nodes are their
parts', are compared with torch's gradients in tests/python/ops/test_shape_grads.py.
"""
from typing import List

import torch

from grads_table import F64, MASK1, T, T1, T2, Fixed, GradOp, Tensor, idx, op

M34 = [((3, 4),), ((2, 3, 4),)]

GRAD_CASES: List[GradOp] = [
    # views
    op("diagonal", [T, 1, 0, 1], M34), op("diagonal", [T, -1, 2, 0], [((2, 3, 4),)]),
    op("movedim.intlist", [T, [0, 1], [2, 0]], [((2, 3, 4),)]), op("swapaxes", [T, 0, -1], M34),
    op("broadcast_to", [T, [2, 3, 4]], [((3, 1),)]), op("atleast_3d", [T], [((3,),)]),
    op("tensor_split.sections", [T, 3, 1], [((3, 7),)]),
    # shape copies
    op("flip", [T, [0, -1]], M34), op("fliplr", [T], [((3, 4),)]),
    op("roll", [T, [1, -2], [0, 1]], [((3, 4),)]), op("roll", [T, [2], []], [((3, 4),)]),
    op("repeat", [T, [2, 1, 3]], [((3, 4),), ((),)]), op("tile", [T, [2]], [((3, 4),)]),
    op("repeat_interleave.self_int", [T, 2, 1, None], [((3, 4),)]),
    op("tril", [T, 0], M34), op("triu", [T, -1], M34),
    op("tril_", [T, 1], [((3, 4),)]), op("triu_", [T, 0], [((3, 4),)]),
    # stacking
    op("hstack", [[T, T1]], [((2, 3), (2, 1))]), op("vstack", [[T, T1]], [((3,), (3,))]),
    op("outer", [T, T1], [((3,), (4,))]), op("diff", [T, 1, -1, None, None], [((3, 4),)]),
    op("corrcoef", [T], [((3, 5),)]),
    # indexing
    op("index_put", [T, [Fixed([2, 0])], T2, False], [((3, 4), None, (2, 4))]),
    op("index_put", [T, [idx(1, 3)], T2, True], [((3, 4), (5,), (5, 4))]),
    # (contiguous: torch 1.13's masked_select_backward scatters into a zeros_like(self) that keeps
    # self's strides, and its masked_scatter_ walks them in memory order, so a transposed self
    # gets its gradient in the wrong places; ember's is the derivative, gradchecked here)
    op("masked_select", [T, MASK1], [((3, 4), (3, 4)), ((3, 4), (4,))], layouts=["c"]),
    op("masked_scatter", [T, MASK1, T2], [((3, 4), (3, 4), (12,)), ((3, 4), (4,), (3, 5))]),
    op("masked_scatter_", [T, MASK1, T2], [((3, 4), (3, 4), (13,))], layouts=["c"]),  # (the same 1.13 bug)
    op("take", [T, idx(1, 12)], [((3, 4), (5,))]),
    op("take_along_dim", [T, idx(1, 4), 1], [((3, 4), (3, 2))]),
    op("put", [T, Fixed([0, 5, 7]), T2, False], [((3, 4), None, (3,))]),
    op("put_", [T, idx(1, 12), T2, True], [((3, 4), (4,), (4,))]),
    op("index_add", [T, 0, idx(1, 3), T2, 2.0], [((3, 4), (5,), (5, 4))]),
    op("index_add_", [T, 1, idx(1, 4), T2], [((3, 4), (5,), (3, 5))]),
    op("index_copy", [T, 0, Fixed([2, 0]), T2], [((3, 4), None, (2, 4))]),
    op("index_fill.int_Scalar", [T, 1, idx(1, 4), 1.5], [((3, 4), (2,))]),
    op("index_fill.int_Tensor", [T, 1, idx(1, 4), T2], [((3, 4), (2,), ())]),
    # scatter
    *[op("scatter_reduce.two", [T, 0, idx(1, 3), T2, r, incl], [((3, 4), (5, 4), (5, 4))])
      for r in ("sum", "mean", "amax", "amin", "prod") for incl in (True, False)],
    op("select_scatter", [T, T1, 0, 1], [((3, 4), (4,))]),
    op("slice_scatter", [T, T1, 1, 0, 4, 2], [((3, 4), (3, 2))]),
    op("diagonal_scatter", [T, T1, 0, 0, 1], [((3, 4), (3,))]),
    # sorting
    op("msort", [Tensor(0, "distinct")], [((3, 4),)]),
    op("mode", [Tensor(0, "distinct"), -1, False], [((3, 4),)]),
    op("quantile.scalar", [T, 0.3, 1, False, "linear"], [((3, 5),)], dtypes=F64),
]

NONDIFF_CASES: List[GradOp] = [
    op("argsort", [Tensor(0, "distinct"), -1, False], [((3, 4),)], dtypes=F64),
    op("searchsorted.Tensor", [T, T1], [((5,), (3,))], dtypes=F64),
    op("histc", [T, 4, 0, 0], [((6,),)], dtypes=F64),
]

GRAD_FN_ALLOWLIST = [
    (r"::quantile\.scalar$", "SqueezeBackward3", "ReshapeAliasBackward0",
     "ember's quantile is a composite ending in a reshape of its [q, rows] result; torch 1.13 squeezes"),
]
