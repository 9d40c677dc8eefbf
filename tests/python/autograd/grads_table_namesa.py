"""Gradient rows of the namesa part of issue 16 (see grads_table.py): the BLAS family with beta /
alpha and its in-place forms, fmax / fmin, frexp, igamma / igammac (d/dx), ldexp, unfold and the
in-place views, the *_copy views, the trapezoid rules, sum_to_size, index_reduce, as_strided_scatter
and the random samplers' zero gradients."""
from typing import List

import torch

from grads_table import F64, Fixed, GradOp, Tensor, op

# This table's own random stream (the shared one feeds the families sorting after this file).
_GEN = torch.Generator().manual_seed(1611)


class NTensor(Tensor):
    def build(self, shape, dtype, layout, gen):
        return super().build(shape, dtype, layout, _GEN)


T, T1, T2 = NTensor(0), NTensor(1), NTensor(2)
POS, POS1 = NTensor(0, "pos"), NTensor(1, "pos")
SMALL = [((3, 4),), ((),)]

GRAD_CASES: List[GradOp] = [
    # ---- BLAS family ----
    op("addmv", [T, T1, T2, 0.5, 2.0], [((3,), (3, 4), (4,)), ((1,), (3, 4), (4,)), ((), (3, 4), (4,))]),
    op("addmv", [T, T1, T2], [((3,), (3, 4), (4,))], diff=[1]),
    op("addr", [T, T1, T2, 0.5, -1.5], [((3, 4), (3,), (4,)), ((4,), (3,), (4,))]),
    op("baddbmm", [T, T1, T2, 0.5, 2.0], [((2, 3, 5), (2, 3, 4), (2, 4, 5)), ((3, 5), (2, 3, 4), (2, 4, 5))]),
    # (no beta 0 row for baddbmm: torch 1.13 then reads its uninitialised result, NaN at times;
    # tests/python/ops/test_namesa_blas.py compares that case with torch's zero-self result)
    op("addbmm", [T, T1, T2, 0.5, 2.0], [((3, 5), (2, 3, 4), (2, 4, 5)), ((5,), (2, 3, 4), (2, 4, 5))]),
    op("addmm_", [T, T1, T2, 0.5, 2.0], [((3, 5), (3, 4), (4, 5))]),
    op("addmv_", [T, T1, T2, 0.5, 2.0], [((3,), (3, 4), (4,))]),
    op("addr_", [T, T1, T2, 2.0, 0.5], [((3, 4), (3,), (4,))]),
    op("baddbmm_", [T, T1, T2, 0.5, 2.0], [((2, 3, 5), (2, 3, 4), (2, 4, 5))]),
    op("addbmm_", [T, T1, T2, 0.5, 2.0], [((3, 5), (2, 3, 4), (2, 4, 5))]),
    # ---- pointwise ----
    op("fmax", [T, T1], [((3, 4), (3, 4)), ((2, 1, 4), (3, 4))]), op("fmin", [T, T1], [((3, 4), (3, 4)), ((), (3,))]),
    op("frexp.Tensor", [T], [((3, 4),)]),
    op("igamma", [POS, POS1], [((3, 4), (3, 4)), ((4,), (3, 4))], diff=[1]),
    op("igammac", [POS, POS1], [((3, 4), (3, 4))], diff=[1]),
    op("ldexp.Tensor", [T, Fixed([1, -2, 0, 3])], [((3, 4),)], diff=[0]),
    # ---- views ----
    op("unfold", [T, 0, 3, 2], [((10,),), ((7, 3),)]), op("unfold", [T, -1, 2, 1], [((3, 4),)]), op("unfold", [T, 0, 1, 1], [((),)]),
    op("adjoint", [T], [((3, 4),), ((2, 3, 4),)]),
    op("squeeze_", [T], [((3, 1, 2),)]), op("squeeze_.dim", [T, 1], [((3, 1, 2),)]),
    op("unsqueeze_", [T, 1], [((3, 2),)]), op("t_", [T], [((3, 2),)]), op("transpose_", [T, 0, 2], [((2, 3, 4),)]),
    # (as_strided_scatter: torch 1.13's gradient for self is uninitialised memory; ember's is
    # gradchecked against the derivative in tests/python/ops/test_namesa_views.py)
    op("permute_copy", [T, [2, 0, 1]], [((2, 3, 4),)]), op("select_copy.int", [T, 1, -1], [((3, 4),)]),
    op("expand_copy", [T, [3, 4], False], [((3, 1),)]), op("diagonal_copy", [T, 1, 0, 1], [((3, 4),)]),
    op("unfold_copy", [T, 0, 3, 2], [((10,),)]), op("t_copy", [T], [((3, 2),)]),
    # ---- calculus and reductions ----
    op("trapezoid.x", [T, T1, -1], [((3, 5), (5,))]), op("trapezoid.dx", [T, 0.5, 0], [((3, 5),)]),
    op("cumulative_trapezoid.x", [T, T1, -1], [((3, 5), (5,))]),
    op("cumulative_trapezoid.dx", [T, 0.25, 1], [((3, 5),)]),
    op("sum_to_size", [T, [3, 1]], [((2, 3, 4),)]),
    op("index_reduce", [T, 0, Fixed([0, 2, 0, 3, 2]), T2, "prod", True], [((4, 3), None, (5, 3))]),
    op("index_reduce", [T, 0, Fixed([0, 2, 1]), T2, "mean", False], [((4, 3), None, (3, 3))]),
]

# Where ember's grad_fn name differs from torch 1.13's: (op regex, torch name, ember name, why).
GRAD_FN_ALLOWLIST = [
    (r"::index_reduce$", "IndexReduceBackward0", "ScatterReduceBackward0",
     "ember's index_reduce is scatter_reduce with the index spread along dim (src/ops/index_reduce.cpp)"),
    *[(rf"::{v}_copy", f"{n}Backward0_copy", "CloneBackward0",
       "ember's *_copy ops are the view then a contiguous clone (src/ops/view_copies.cpp)")
      for v, n in (("permute", "Permute"), ("select", "Select"), ("expand", "Expand"), ("diagonal", "Diagonal"),
                   ("unfold", "Unfold"), ("t", "T"))],
]
