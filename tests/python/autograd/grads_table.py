"""The gradient cases of test_grads_vs_torch.py: every differentiable op of src/dispatch/ops.def.

A row names an aten op and its arguments, as in ../core/ops_table.py (whose `Tensor`
placeholders and shape sets it reuses); every floating tensor argument requires grad unless the
row's `diff` says which do. Inputs avoid the points where an op is not differentiable: ties (max,
sort, maximum), |x| or relu at 0, clamp and hardtanh bounds, logs of non-positive numbers — by
their kind (pos, nonzero, unit) or because random normal values almost surely miss them.
"""
import dataclasses
import itertools
import pathlib
import sys
from typing import Any, List, Optional, Sequence

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "core"))
from ops_table import BINARY, REDUCE, TERNARY, UNARY, Tensor, idx, layouts  # noqa: E402

GF = [torch.float64, torch.float32]
F64 = [torch.float64]


class Fixed:
    """A given (index) tensor, whatever the shape set says: e.g. scatter indices that must not
    repeat along the scattered dim (else which value wins is unspecified and the gradient of src
    is not the derivative)."""

    def __init__(self, values, dtype=torch.int64):
        self.values, self.dtype = values, dtype

    def build(self, shape, dtype, layout, gen):
        return Tensor.Built(torch.tensor(self.values, dtype=self.dtype), "c")


@dataclasses.dataclass
class GradCase:
    op: str
    args: List[Any]
    note: str
    layout: str
    diff: Optional[Sequence[Any]]  # None: every floating tensor; else arg positions / (pos, element)
    inplace: bool
    check: bool


def _is_placeholder(a):
    return isinstance(a, (Tensor, Fixed))


@dataclasses.dataclass
class GradOp:
    op: str
    args: Sequence[Any]
    shapes: Sequence[tuple] = tuple(UNARY)
    dtypes: Sequence[torch.dtype] = tuple(GF)
    diff: Optional[Sequence[Any]] = None
    # gradcheck + gradgradcheck on float64 cases (off where the forward does not depend on the
    # inputs the way the gradient says, e.g. embedding's padding_idx rows).
    check: bool = True
    layouts: Optional[Sequence[str]] = None  # restricts the c/t/s layouts of the first input

    def expand(self, gen):
        placeholders = [a for a in self._flat_args() if isinstance(a, Tensor)]
        # The layout goes to the first floating input (not a bool condition or an index).
        target = next((a for a in placeholders if a.dtype is None and a.kind not in ("bool", "index")),
                      placeholders[0] if placeholders else None)
        name = self.op.split("::")[1].split(".")[0]
        for dtype, shapes in itertools.product(self.dtypes, self.shapes):
            choices = layouts(shapes[target.slot]) if target is not None else ["c"]
            for layout in [c for c in choices if self.layouts is None or c in self.layouts]:
                def build(a):
                    if isinstance(a, Fixed):
                        return a.build(None, dtype, "c", gen)
                    return a.build(shapes[a.slot], dtype, layout if a is target else "c", gen)

                args = [[build(x) if _is_placeholder(x) else x for x in a] if isinstance(a, list) and
                        any(_is_placeholder(x) for x in a) else build(a) if _is_placeholder(a) else a
                        for a in self.args]
                note = f"{self.op} {str(dtype)[6:]} {shapes} layout={layout}"
                yield GradCase(self.op, args, note, layout, self.diff, name.endswith("_"), self.check)

    def _flat_args(self):
        for a in self.args:
            if isinstance(a, list):
                yield from a
            else:
                yield a


T, T1, T2 = Tensor(0), Tensor(1), Tensor(2)
POS, NONZERO, UNIT, DISTINCT = Tensor(0, "pos"), Tensor(1, "nonzero"), Tensor(0, "unit"), Tensor(0, "distinct")
MASK1 = Tensor(1, "bool", torch.bool)
SMALL = [((3, 4),), ((),)]  # in-place rows: one matrix and a 0-d tensor


def op(name, args, shapes=UNARY, **kw):
    return GradOp(f"aten::{name}", args, shapes, **kw)


def unary(name, kind="any", shapes=UNARY):
    return op(name, [Tensor(0, kind)], shapes)


ANY_UNARY = ("exp", "expm1", "sin", "cos", "tanh", "sigmoid", "neg", "abs", "sign", "relu")
POS_UNARY = ("log", "log1p", "sqrt", "rsqrt")
# scatter / index_put_ indices without repeats along the written dim.
SCATTER_ROWS = Fixed([[0, 1, 2, 0], [2, 0, 1, 1]])  # dim 0 of a (3, 4) self, src (2, 4)
SCATTER_COLS = Fixed([[3, 0], [1, 2], [0, 3]])       # dim 1 of a (3, 4) self, src (3, 2)

GRAD_CASES: List[GradOp] = [
    # ---- unary math and its in-place forms ----
    *[unary(n) for n in ANY_UNARY], *[unary(n, "pos") for n in POS_UNARY],
    *[unary(f"{n}_", shapes=SMALL) for n in ANY_UNARY],
    *[unary(f"{n}_", "pos", shapes=SMALL) for n in POS_UNARY],
    # ---- activations ----
    op("hardtanh", [T, -1.0, 1.0]), op("hardtanh", [T, -0.5, 2]), op("hardtanh_", [T, 0.0, 6.0], SMALL),
    op("relu6", [T]), unary("hardswish"), unary("hardsigmoid"), unary("silu"),
    op("gelu", [T, "none"]), op("gelu", [T, "tanh"]),
    # their backward ops (double backward)
    op("threshold_backward", [T, T1, 0.25], BINARY[:3]), op("hardtanh_backward", [T, T1, -1.0, 1.0], BINARY[:3]),
    op("tanh_backward", [T, T1], BINARY), op("sigmoid_backward", [T, T1], BINARY),
    # (contiguous only: torch 1.13's oneDNN gelu_backward returns garbage for strided inputs)
    op("gelu_backward", [T, T1], [BINARY[0]], layouts=["c"]),
    op("gelu_backward", [T, T1, "tanh"], [BINARY[0]], layouts=["c"]),
    op("_softmax_backward_data", [T, T1, 1, torch.float64], [((3, 4), (3, 4)), ((2, 3, 4), (2, 3, 4))], dtypes=F64),
    op("_log_softmax_backward_data", [T, T1, 0, torch.float64], [((3, 4), (3, 4))], dtypes=F64),
    op("embedding_dense_backward", [T, Fixed([[0, 2, 2], [4, 2, 1]]), 5, -1, False], [((2, 3, 4),)]),
    op("embedding_dense_backward", [T, Fixed([[0, 2, 2], [4, 2, 1]]), 6, 2, True], [((2, 3, 4),)]),
    op("mul.Scalar", [T, 3]), op("div.Scalar", [T, -0.5]),
    # (silu_backward and hardsigmoid_backward: torch 1.13 has no rule to compare with, their
    # double backward is gradchecked in test_dispatch_backward_ops.py)
    op("hardswish_backward", [T, T1], BINARY[:3]),
    # (same shapes: torch 1.13's aten::mse_loss divides a broadcast mean by each operand's own
    # numel; ember's gradient is the mean's, as F.mse_loss's is in both)
    *[op("mse_loss", [T, T1, r], BINARY[:1]) for r in (0, 1, 2)],
    op("mse_loss_backward", [T, T1, T2, 0], [((3, 4), (3, 4), (3, 4))]),
    op("mse_loss_backward", [T, T1, T2, 1], [((), (3, 4), (3, 4))]),
    *[op("nll_loss_forward", [T, Fixed([0, 3, 1]), None, r, 3], [((3, 4),)]) for r in (0, 1, 2)],
    # (contiguous: torch 1.13's nll_loss2d_backward refuses a strided self)
    op("nll_loss2d_forward", [T, Fixed([[[0, 2], [1, 1]]]), None, 1, -100], [((1, 3, 2, 2),)], layouts=["c"]),
    op("nll_loss_backward", [T, T1, Fixed([0, 3, 1]), None, 0, -100, Fixed(0.0, torch.float64)],
       [((3,), (3, 4))], dtypes=F64, diff=[0, 1]),
    op("nll_loss_backward", [T, T1, Fixed([0, 3, 1]), None, 2, 1, Fixed(0.0, torch.float64)],
       [((), (3, 4))], dtypes=F64, diff=[0, 1]),
    op("_reshape_alias", [T, [4, 3], [3, 1]], [((3, 4),)], layouts=["c"]),
    unary("silu_", shapes=SMALL), unary("hardswish_", shapes=SMALL), unary("hardsigmoid_", shapes=SMALL),
    # ---- binary arithmetic, with broadcasting ----
    op("add.Tensor", [T, T1], BINARY), op("add.Tensor", [T, T1, 2], BINARY), op("add.Tensor", [T, T1, 0.5], BINARY[:2]),
    op("sub.Tensor", [T, T1], BINARY), op("sub.Tensor", [T, T1, 3], BINARY[:3]),
    op("mul.Tensor", [T, T1], BINARY), op("div.Tensor", [T, NONZERO], BINARY),
    op("div.Tensor_mode", [T, NONZERO, "trunc"], BINARY[:3]), op("div.Tensor_mode", [T, NONZERO, "floor"], BINARY[:3]),
    op("remainder.Tensor", [T, NONZERO], BINARY[:3]),
    op("pow.Tensor_Tensor", [POS, T1], BINARY), op("pow.Tensor_Scalar", [T, 2]), op("pow.Tensor_Scalar", [T, 3]),
    op("pow.Tensor_Scalar", [POS, 0.5]), op("pow.Tensor_Scalar", [POS, -1.5]), op("pow.Tensor_Scalar", [T, 0]),
    op("maximum", [T, T1], BINARY), op("minimum", [T, T1], BINARY),
    # only one side requires grad
    op("mul.Tensor", [T, T1], BINARY[:2], diff=[1]), op("div.Tensor", [T, NONZERO], BINARY[:2], diff=[0]),
    op("sub.Tensor", [T, T1], BINARY[:2], diff=[1]), op("pow.Tensor_Tensor", [POS, T1], BINARY[:2], diff=[1]),
    # mixed dtypes: float32 self, float64 other (the gradient comes back in each input's dtype)
    op("add.Tensor", [T, Tensor(1, dtype=torch.float64)], BINARY[:3], dtypes=[torch.float32]),
    op("mul.Tensor", [T, Tensor(1, dtype=torch.float64)], [((3, 4), ())], dtypes=[torch.float32]),
    # in-place
    op("add_.Tensor", [T, T1], [((3, 4), (3, 4)), ((2, 3), (3,))]), op("sub_.Tensor", [T, T1, 2], [((3, 4), (4,))]),
    op("mul_.Tensor", [T, T1], [((3, 4), (4,)), ((), ())]), op("div_.Tensor", [T, NONZERO], [((3, 4), (3, 4))]),
    op("div_.Tensor_mode", [T, NONZERO, "floor"], [((3, 4), (3, 4))]),
    op("remainder_.Tensor", [T, NONZERO], [((3, 4), (4,))]),
    op("pow_.Tensor", [POS, T1], [((3, 4), (3, 4))]), op("pow_.Scalar", [T, 2], SMALL),
    op("mul_.Tensor", [T, T1], [((3, 4), (4,))], diff=[1]), op("mul_.Tensor", [T, T1], [((3, 4), (4,))], diff=[0]),
    # ---- clamp / where / masked_fill ----
    op("clamp", [T, -0.5, 0.5]), op("clamp", [T, None, 1]), op("clamp", [T, 1, None]),
    op("clamp_", [T, -1, 1], SMALL),
    op("where.self", [Tensor(0, "bool", torch.bool), T1, T2], TERNARY),
    op("masked_fill.Scalar", [T, MASK1, -1], BINARY[:3]),
    op("masked_fill.Tensor", [T, MASK1, T2], [((3, 4), (3, 4), ()), ((3, 4), (4,), ())]),
    op("masked_fill_.Scalar", [T, MASK1, 7], [((3, 4), (4,))]),
    op("masked_fill_.Tensor", [T, MASK1, T2], [((3, 4), (3, 4), ())]),
    # ---- addcmul / addcdiv ----
    op("addcmul", [T, T1, T2, 0.5], TERNARY), op("addcdiv", [T, T1, Tensor(2, "nonzero"), -1.5], TERNARY),
    op("addcmul_", [T, T1, T2, 0.5], [((3, 4), (3, 4), (4,))]),
    op("addcdiv_", [T, T1, Tensor(2, "nonzero"), 2], [((3, 4), (4,), (3, 4))]),
    # ---- reductions ----
    op("sum", [T], REDUCE), op("sum", [T, torch.float64], REDUCE[:2], dtypes=[torch.float32]),
    op("sum.dim_IntList", [T, [1], False], REDUCE[:2]), op("sum.dim_IntList", [T, [0, -1], True], REDUCE[:2]),
    op("sum.dim_IntList", [T, [], False], REDUCE[:2]),
    op("mean", [T], REDUCE), op("mean.dim", [T, [-1], True], REDUCE[:2]), op("mean.dim", [T, [0, 1], False], REDUCE[:2]),
    op("prod", [UNIT], REDUCE), op("prod.dim_int", [UNIT, 1, False], REDUCE[:2]),
    op("max", [DISTINCT], REDUCE[:3]), op("min", [DISTINCT], REDUCE[:3]),
    op("max.dim", [DISTINCT, 1, False], REDUCE[:2]), op("min.dim", [DISTINCT, -1, True], REDUCE[:2]),
    op("amax", [DISTINCT, [1], False], REDUCE[:2]), op("amin", [DISTINCT, [0, 1], True], REDUCE[:2]),
    op("amax", [DISTINCT, [], False], REDUCE[:3]),
    op("var.correction", [T, [1], 1, False], REDUCE[:2]), op("var.correction", [T, None, 0, True], REDUCE[:3]),
    op("std.correction", [T, [0, -1], 1, False], REDUCE[:2]), op("std.correction", [T, None, None, False], REDUCE[:1]),
    op("norm.ScalarOpt_dim", [T, 2, [1], False], REDUCE[:2]), op("norm.ScalarOpt_dim", [T, 1, [0], True], REDUCE[:2]),
    op("norm.ScalarOpt_dim", [T, float("inf"), [-1], False], REDUCE[:2]),
    op("norm.ScalarOpt_dim", [T, 3.0, [0, 1], False], REDUCE[:2]), op("norm.ScalarOpt_dim", [T, 0, [1], False], REDUCE[:2]),
    op("cumsum", [T, 1], REDUCE[:2]), op("cumsum", [T, 0, torch.float64], REDUCE[:2], dtypes=[torch.float32]),
    # ---- softmax ----
    op("_softmax", [T, 1, False], [*REDUCE[:2], ((0, 3),)]), op("_log_softmax", [T, -1, False], REDUCE),
    op("softmax.int", [T, 0], REDUCE[:2]), op("log_softmax.int", [T, 1], REDUCE[:2]),
    op("softmax.int", [T, 1, torch.float64], REDUCE[:2], dtypes=[torch.float32]),
    # ---- sort / topk (values differentiable, indices not) ----
    op("sort.stable", [DISTINCT, False, -1, False], REDUCE[:3]), op("sort.stable", [DISTINCT, True, 0, True], REDUCE[:2]),
    op("topk", [DISTINCT, 2, -1, True, True], REDUCE[:2]), op("topk", [DISTINCT, 1, 0, False, True], REDUCE[:2]),
    # ---- linear algebra ----
    op("mm", [T, T1], [((3, 4), (4, 5)), ((0, 4), (4, 2)), ((3, 0), (0, 2)), ((5, 7), (7, 1))]),
    op("mm", [T, T1], [((3, 4), (4, 5))], diff=[1]),
    op("bmm", [T, T1], [((2, 3, 4), (2, 4, 5)), ((0, 3, 4), (0, 4, 2))]),
    op("addmm", [T, T1, T2, 0.5, 2.0], [((3, 5), (3, 4), (4, 5)), ((5,), (3, 4), (4, 5))]),
    op("addmm", [T, T1, T2, 0, 1], [((3, 5), (3, 4), (4, 5))]),
    op("addmm", [T, T1, T2], [((3, 5), (3, 4), (4, 5))], diff=[1]),
    op("matmul", [T, T1], [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)), ((2, 3, 4), (4, 5)),
                           ((2, 3, 4), (4,)), ((4,), (2, 4, 3)), ((2, 1, 3, 4), (5, 4, 2)), ((3, 4), (2, 4, 5))]),
    op("linear", [T, T1, T2], [((3, 4), (5, 4), (5,)), ((2, 3, 4), (5, 4), (5,)), ((4,), (5, 4), (5,))]),
    op("linear", [T, T1, None], [((3, 4), (5, 4)), ((2, 3, 4), (5, 4))]),
    # ---- views and shape ----
    op("view", [T, [4, 3]], [((3, 4),)], layouts="c"), op("view", [T, [-1]], [((2, 3, 4),)], layouts="c"),
    op("_unsafe_view", [T, [2, 6]], [((3, 4),)], layouts="c"),
    op("reshape", [T, [2, -1]], [((3, 4),), ((2, 3, 4),)]),
    op("t", [T], [((3, 4),), ((3,),), ((),)]), op("transpose.int", [T, 0, -1], [((2, 3, 4),), ((3, 4),)]),
    op("permute", [T, [2, 0, 1]], [((2, 3, 4),)]),
    op("unsqueeze", [T, -1]), op("squeeze", [T], [((1, 3, 1),), ((),)]), op("squeeze.dim", [T, 0], [((1, 3),), ((2, 3),)]),
    op("expand", [T, [2, 3, 4]], [((3, 1),), ((4,),)]), op("expand_as", [T, T1], [((3, 1), (2, 3, 4)), ((), (2,))]),
    op("slice.Tensor", [T, 1, 1, None, 2], [((3, 5),)]), op("slice.Tensor", [T, 0, -2, 100, 1], [((4, 3),)]),
    op("select.int", [T, 1, -1], [((3, 4),), ((2, 3, 4),)]), op("narrow", [T, 0, 1, 2], [((3, 4),)]),
    op("chunk", [T, 3, 1], [((2, 7),)]), op("split.Tensor", [T, 2, 0], [((5, 3),)]),
    op("split_with_sizes", [T, [1, 3], 1], [((2, 4),)]), op("unbind.int", [T, 1], [((2, 3),)]),
    op("flatten.using_ints", [T, 1, -1], [((2, 3, 4),)]), op("flatten.using_ints", [T, 0, -1], [((),)]), op("unflatten.int", [T, 1, [2, -1]], [((3, 4),)]),
    # as_strided reads the input's storage: the strided layout's gaps hold no values
    op("as_strided", [T, [2, 2], [1, 2], None], [((3, 4),)], layouts="ct"),
    op("as_strided", [T, [3, 3], [1, 1], 1], [((3, 4),)], layouts="ct"),  # overlapping output
    op("alias", [T], [((3, 4),)]),
    # ---- conversion and copies ----
    *[op("_to_copy", [T, d], UNARY) for d in (torch.float32, torch.float64, None)],
    op("to.dtype", [T, torch.float32], [((3, 4),)]), op("to.dtype", [T, torch.float64], [((3, 4),)]),
    op("clone", [T]), op("contiguous", [T]),
    op("copy_", [T, T1], [((3, 4), (3, 4)), ((3, 4), (4,))]),
    op("copy_", [T, Tensor(1, dtype=torch.float32)], [((3, 4), (3, 4))], dtypes=F64),
    op("fill_.Scalar", [T, 1.5], SMALL), op("zero_", [T], SMALL),
    # ---- dropout where it is deterministic (p == 0, or not training) ----
    op("native_dropout", [T, 0.0, True], [((3, 4),)]), op("native_dropout", [T, 0.5, False], [((3, 4),)]),
    op("dropout", [T, 0.0, True], [((3, 4),)]), op("dropout", [T, 0.5, False], [((3, 4),)]),
    # ---- joining ----
    op("cat", [[T, T1], 1], [((2, 3), (2, 4)), ((0,), (2, 4))]), op("cat", [[T, T1], 0], [((2, 3), (1, 3))]),
    op("cat", [[T, T1, T2], -1], [((2, 1), (2, 3), (2, 2))], diff=[(0, 1)]),
    op("stack", [[T, T1], 1], [((2, 3), (2, 3))]), op("stack", [[T, T1], 0], [((), ())]),
    # ---- gather / scatter / embedding / advanced indexing ----
    op("index_select", [T, 1, idx(1, 4)], [((3, 4), (5,))]),
    op("index_select", [T, 0, idx(1, 3, torch.int32)], [((3, 4), (2,))]),
    op("gather", [T, 1, idx(1, 4)], [((3, 4), (3, 6))]), op("gather", [T, 0, idx(1, 3)], [((3, 4), (2, 4))]),
    op("scatter.src", [T, 0, SCATTER_ROWS, T2], [((3, 4), None, (2, 4))]),
    op("scatter.src", [T, 1, SCATTER_COLS, T2], [((3, 4), None, (3, 2))]),
    op("scatter.value", [T, 1, idx(1, 4), 2.0], [((3, 4), (3, 2))]),
    op("scatter_add", [T, 0, idx(1, 3), T2], [((3, 4), (5, 4), (5, 4))]),
    op("scatter_.src", [T, 0, SCATTER_ROWS, T2], [((3, 4), None, (2, 4))]),
    op("scatter_.value", [T, 1, idx(1, 4), 2.0], [((3, 4), (3, 2))]),
    op("scatter_add_", [T, 0, idx(1, 3), T2], [((3, 4), (5, 4), (5, 4))]),
    op("embedding", [T, idx(1, 5)], [((5, 3), (2, 4)), ((5, 3), ())]),
    op("embedding", [T, Fixed([[0, 2, 2], [4, 2, 1]]), 2], [((5, 3),)], check=False),  # padding_idx rows get no grad
    op("index.Tensor", [T, [idx(1, 3)]], [((3, 4), (5,)), ((3, 4), (2, 2))]),
    op("index.Tensor", [T, [Tensor(1, "bool", torch.bool)]], [((3, 4), (3, 4))]),
    op("index.Tensor", [T, [None, idx(1, 4)]], [((3, 4), (5,))]),
    op("index_put_", [T, [Fixed([2, 0])], T1, False], [((3, 4), (2, 4)), ((3, 4), (4,))]),
    op("index_put_", [T, [idx(1, 3)], T2, True], [((3, 4), (5,), (5, 4))]),
    # ---- normalization, pooling, padding, resampling ----
    op("native_batch_norm", [T, T1, T2, None, None, True, 0.1, 1e-5], [((2, 3, 2, 2), (3,), (3,)), ((4, 3), (3,), (3,))]),
    op("batch_norm", [T, T1, T2, Tensor(3), Tensor(4, "pos"), False, 0.1, 1e-5, False],
       [((2, 3, 2, 2), (3,), (3,), (3,), (3,))], diff=[0, 1, 2]),
    op("group_norm", [T, 2, T1, T2, 1e-5, False], [((2, 4, 3), (4,), (4,))]),
    op("max_pool2d_with_indices", [T, [3, 3], [2, 2], [1, 1], [1, 1], False], [((1, 2, 5, 5),)]),
    op("avg_pool2d", [T, [3, 3], [2, 2], [1, 1], True, False, None], [((1, 2, 5, 5),)]),
    op("_adaptive_avg_pool2d", [T, [2, 3]], [((1, 2, 5, 5),)]),
    op("adaptive_avg_pool2d", [T, [1, 1]], [((1, 2, 5, 5),)]),
    op("adaptive_max_pool2d", [T, [2, 3]], [((1, 2, 5, 5),)]),
    op("constant_pad_nd", [T, [1, -1, 2, 0], 0.5], [((1, 2, 3, 4),)]),
    op("reflection_pad2d", [T, [2, 1, 1, 2]], [((1, 2, 3, 4),)]),
    op("replication_pad2d", [T, [2, 1, 1, 2]], [((1, 2, 3, 4),)]),
    op("reflection_pad1d", [T, [2, 1]], [((2, 5),)]),
    op("replication_pad1d", [T, [2, 1]], [((2, 5),)]),
    op("upsample_nearest2d", [T, [5, 7], None, None], [((1, 2, 3, 4),)]),
    op("upsample_bilinear2d", [T, [5, 7], False, None, None], [((1, 2, 3, 4),)]),
    op("upsample_bilinear2d", [T, [5, 7], True, None, None], [((1, 2, 3, 4),)]),
    # ---- convolutions ----
    op("conv2d", [T, T1, T2, [1, 1], [1, 1], [1, 1], 1], [((2, 3, 5, 4), (4, 3, 3, 3), (4,))]),
    op("conv2d", [T, T1, None, [2, 1], [0, 1], [1, 2], 2], [((1, 4, 6, 5), (2, 2, 2, 3))]),
    op("conv1d", [T, T1, T2, [1], [1], [1], 1], [((2, 3, 6), (2, 3, 3), (2,))]),
    op("conv_transpose2d.input", [T, T1, T2, [2, 2], [1, 1], [1, 1], 1, [1, 1]],
       [((1, 3, 3, 4), (3, 2, 3, 3), (2,))]),
]

# Ops whose outputs are never differentiable: no history, requires_grad False, as in torch.
NONDIFF_CASES: List[GradOp] = [
    op("argmax", [DISTINCT, 1, False], REDUCE[:1], dtypes=F64), op("eq.Tensor", [T, T1], BINARY[:2], dtypes=F64),
    op("gt.Tensor", [T, T1], BINARY[:1], dtypes=F64), op("detach", [T], UNARY[:1], dtypes=F64),
    op("sign", [T], UNARY[:1], dtypes=[torch.int64]),
]

# Where ember's grad_fn name may differ from torch 1.13's: (op regex, torch name, ember name, why).
GRAD_FN_ALLOWLIST = [
    (r"::matmul$", "DotBackward0", "ViewBackward0",
     "ember has no aten::dot: matmul of two vectors is view(mm(a[None], b[:, None]), [])"),
    (r"::matmul$", "MvBackward0", "SqueezeBackward1",
     "ember has no aten::mv: matrix @ vector is mm(a, b[:, None]).squeeze(1)"),
    (r"::matmul$", "SqueezeBackward3", "SqueezeBackward1",
     "torch 1.13 squeezes vector @ matrix in place (squeeze_, which ember lacks); ember uses squeeze.dim"),
    (r"::(reshape|flatten\.using_ints)$", "ReshapeAliasBackward0", "ViewBackward0",
     "ember has no aten::_reshape_alias (1.13's reshape of a viewable input); ember reshapes by view, as later PyTorch"),
    (r"::sort\.stable$", "SortBackward1", "SortBackward0",
     "ember has only sort.stable, which Tensor::sort calls for PyTorch's sort.default (SortBackward0): "
     "stable=False names SortBackward0 (src/ops/sort.cpp)"),
    (r"::(contiguous|matmul)$", "CloneBackward0", "CopyBackwards",
     "ember's contiguous copies into a new contiguous tensor with copy_ (clone keeps the input's "
     "strides: its memory_format is not implemented); torch 1.13 calls clone(contiguous_format)"),
    (r"::copy_$", "torch::autograd::CopyBackwards", "CopyBackwards",
     "torch 1.13's name() of copy_'s node carries its C++ namespace; ember names it as its Python class"),
    (r"::stack$", "StackBackward0", "CatBackward0",
     "ember's stack is a composite (cat of unsqueezed inputs); torch 1.13 has a stack derivative"),
]

# Later op families keep their rows in `grads_table_<family>.py` beside this file, each defining
# GRAD_CASES (and optionally NONDIFF_CASES and GRAD_FN_ALLOWLIST), built with this module's `op`.
def _family_tables():
    import importlib
    import pathlib
    for path in sorted(pathlib.Path(__file__).parent.glob("grads_table_*.py")):
        yield importlib.import_module(path.stem)


for _family in _family_tables():
    GRAD_CASES += _family.GRAD_CASES
    NONDIFF_CASES += getattr(_family, "NONDIFF_CASES", [])
    GRAD_FN_ALLOWLIST += getattr(_family, "GRAD_FN_ALLOWLIST", [])
