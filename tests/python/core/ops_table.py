"""The op cases of the differential test (test_ops_vs_torch.py).

A row names an aten op and its arguments; `Tensor(...)` placeholders are filled with generated
inputs for each dtype, shape set and layout the row asks for. A new op adds one row.
"""
import dataclasses
import itertools
from typing import Any, List, Sequence

import torch

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]
ALL = FLOATS + INTS + [torch.bool]
NUMERIC = FLOATS + INTS
SIGNED = [d for d in NUMERIC if d != torch.uint8]

# Shape sets: one tuple of shapes per case, one shape per Tensor placeholder (by slot).
UNARY = [((3, 4),), ((),), ((0,),), ((2, 3, 4),)]
BINARY = [((3, 4), (3, 4)), ((2, 1, 4), (3, 4)), ((), (3,)), ((0, 3), (3,)), ((4,), ())]
TERNARY = [((3, 4), (3, 4), (3, 4)), ((2, 1, 4), (3, 4), (4,)), ((), (3,), ())]
REDUCE = [((3, 4),), ((2, 3, 4),), ((),), ((0, 3),)]


@dataclasses.dataclass
class Case:
    op: str
    args: List[Any]
    note: str
    loose: bool = False


class Tensor:
    """A generated tensor argument. kind: any | pos | nonzero | unit | bool | special | perm | index."""

    @dataclasses.dataclass
    class Built:
        tensor: torch.Tensor
        layout: str

    def __init__(self, slot=0, kind="any", dtype=None, high=None):
        self.slot, self.kind, self.dtype, self.high = slot, kind, dtype, high

    def build(self, shape, dtype, layout, gen):
        dtype = self.dtype or dtype
        n = 1
        for s in shape:
            n *= s
        if self.kind == "index":
            t = torch.randint(0, self.high, shape, generator=gen, dtype=torch.int64)
            return Tensor.Built(t.to(dtype), layout)
        if self.kind == "perm" or (dtype in INTS and self.kind == "distinct"):
            t = torch.randperm(max(n, 1), generator=gen)[:n].reshape(shape)
            if dtype.is_floating_point:
                t = t.double() - n / 2
            return Tensor.Built(t.to(dtype), layout)
        if dtype == torch.bool or self.kind == "bool":
            return Tensor.Built(torch.randint(0, 2, shape, generator=gen).to(torch.bool), layout)
        if dtype.is_floating_point:
            x = torch.randn(shape, generator=gen, dtype=torch.float64) * 2
            if self.kind == "pos":
                x = x.abs() + 0.1
            elif self.kind == "nonzero":
                x = torch.where(x.abs() < 0.5, x.sign() + (x == 0).double(), x)
            elif self.kind == "unit":
                x = torch.tanh(x) * 0.9
            elif self.kind == "special" and n >= 4:
                flat = x.reshape(-1)
                flat[0], flat[1], flat[2], flat[3] = float("nan"), float("inf"), float("-inf"), 0.0
                x = flat.reshape(shape)
            return Tensor.Built(x.to(dtype), layout)
        lo = 0 if dtype == torch.uint8 else -5
        if self.kind in ("pos", "nonzero"):
            lo = 1
        x = torch.randint(lo, 6, shape, generator=gen, dtype=torch.int64)
        if self.kind == "nonzero" and dtype != torch.uint8:
            x = x * torch.where(torch.randint(0, 2, shape, generator=gen) == 0, -1, 1)
        return Tensor.Built(x.to(dtype), layout)


def layouts(shape):
    if len(shape) >= 2:
        return ["c", "t", "s"]
    if len(shape) == 1 and shape[0] > 0:
        return ["c", "s"]
    return ["c"]


@dataclasses.dataclass
class Op:
    op: str
    args: Sequence[Any]
    dtypes: Sequence[torch.dtype] = tuple(FLOATS)
    shapes: Sequence[tuple] = tuple(UNARY)
    vary_layout: bool = True
    # Accumulating ops (matmul family) on 16-bit floats round differently from torch's kernels;
    # near-cancelling sums then differ by a few units of the inputs' last place.
    loose: bool = False

    def expand(self, gen):
        placeholders = [a for a in self.args if isinstance(a, Tensor)]
        for dtype, shapes in itertools.product(self.dtypes, self.shapes):
            first_shape = shapes[placeholders[0].slot] if placeholders else ()
            for layout in (layouts(first_shape) if self.vary_layout else ["c"]):
                args, first = [], True
                for a in self.args:
                    if isinstance(a, Tensor):
                        args.append(a.build(shapes[a.slot], dtype, layout if first else "c", gen))
                        first = False
                    elif isinstance(a, list) and a and isinstance(a[0], Tensor):
                        args.append([x.build(shapes[x.slot], dtype, "c", gen) for x in a])
                    else:
                        args.append(a)
                yield Case(self.op, args, f"{self.op} {dtype} {shapes} layout={layout}", self.loose)


T, T1, T2 = Tensor(0), Tensor(1), Tensor(2)


def unary(name, dtypes=FLOATS, kind="any"):
    return Op(f"aten::{name}", [Tensor(0, kind)], dtypes, UNARY)


def binary(name, dtypes=ALL, extra=(), kind1="any"):
    return Op(f"aten::{name}", [T, Tensor(1, kind1), *extra], dtypes, BINARY)


F32 = [torch.float32]


def err(op, args, shapes, dtypes=F32):
    """A row that torch refuses: one contiguous layout is enough to compare the error."""
    return Op(f"aten::{op}", args, dtypes, shapes, vary_layout=False)


def idx(slot, high, dtype=torch.int64):
    return Tensor(slot, "index", dtype, high)


# Common user mistakes: shapes that do not fit, wrong dtypes, dims and indices out of range,
# impossible views and sizes, bad option strings.
ERRORS: List[Op] = [
    # shape mismatches
    err("add.Tensor", [T, T1], [((3, 4), (2, 4)), ((3,), (4,))]),
    err("mul.Tensor", [T, T1], [((2, 3), (3, 2))]),
    err("eq.Tensor", [T, T1], [((2, 3), (4,))]),
    err("where.self", [Tensor(0, "bool", torch.bool), T1, T2], [((3,), (4,), (3,))]),
    err("mm", [T, T1], [((3,), (3, 4)), ((3, 4), (4,)), ((2, 3, 4), (4, 5))]),
    err("bmm", [T, T1], [((2, 3, 4), (2, 5, 6)), ((2, 3, 4), (3, 4, 5)), ((3, 4), (4, 5))]),
    err("matmul", [T, T1], [((3, 4), (5, 6)), ((4,), (5,)), ((), (3,)), ((2, 3, 4), (3, 5, 6))]),
    err("addmm", [T, T1, T2, 1, 1], [((3, 5), (3, 4), (5, 5)), ((2, 2), (3, 4), (4, 5)), ((3, 5), (4,), (4, 5))]),
    err("linear", [T, T1, None], [((3, 4), (5, 3))]),
    err("cat", [[T, T1], 0], [((2, 3), (3,)), ((2, 3), (2, 4))]),
    err("cat", [[T, T1], 2], [((2, 3), (2, 3))]),
    err("stack", [[T, T1], 0], [((2, 3), (3, 2))]),
    err("stack", [[T, T1], 3], [((2, 3), (2, 3))]),
    err("gather", [T, 1, idx(1, 4)], [((3, 4), (3,)), ((3, 4), (4, 2))]),
    err("gather", [T, 1, idx(1, 9)], [((3, 4), (3, 2))]),
    err("gather", [T, 2, idx(1, 4)], [((3, 4), (3, 2))]),
    err("index_select", [T, 0, idx(1, 3)], [((3, 4), (2, 2))]),
    err("index_select", [T, 0, idx(1, 9)], [((3, 4), (5,))]),
    err("index_select", [T, 2, idx(1, 3)], [((3, 4), (2,))]),
    err("scatter.src", [T, 0, idx(1, 3), T2], [((3, 4), (2, 4), (1, 4))]),
    err("expand", [T, [2, 4]], [((3,),), ((2, 3),)]),
    err("expand", [T, [4]], [((2, 3),)]),
    # wrong dtypes
    err("index_select", [T, 0, Tensor(1, dtype=torch.float32)], [((3, 4), (2,))]),
    err("gather", [T, 1, Tensor(1, dtype=torch.float32)], [((3, 4), (3, 2))]),
    err("gather", [T, 1, idx(1, 4, torch.int32)], [((3, 4), (3, 2))]),
    err("index.Tensor", [T, [Tensor(1, dtype=torch.float32)]], [((3, 4), (2,))]),
    err("embedding", [T, Tensor(1, dtype=torch.float32)], [((5, 3), (2,))]),
    err("sub.Tensor", [T, T1, 1], [((3,), (3,))], [torch.bool]),
    err("mean", [T], REDUCE[:1], [torch.int32, torch.bool]),
    err("mean.dim", [T, [0], False], REDUCE[:1], [torch.int64]),
    err("bitwise_or.Tensor", [T, T1], [((3,), (3,))], [torch.float64]),
    err("bitwise_not", [T], [((3,),)]),
    err("masked_fill.Scalar", [T, Tensor(1, dtype=torch.int64), 1.0], [((3, 4), (3, 4))]),
    err("masked_fill.Scalar", [T, Tensor(1, dtype=torch.float32), 1.0], [((3, 4), (3, 4))]),
    err("where.self", [Tensor(0, dtype=torch.int64), T1, T2], [((3,), (3,), (3,))]),
    err("add.Tensor", [T, T1, 1.5], [((3,), (3,))], [torch.int64]),
    err("add_.Tensor", [T, Tensor(1, dtype=torch.float32)], [((3,), (3,))], [torch.int64]),
    err("mm", [T, Tensor(1, dtype=torch.float64)], [((3, 4), (4, 5))]),
    # dims and indices out of range
    err("select.int", [T, 2, 0], [((3, 4),)]), err("select.int", [T, 1, 4], [((3, 4),)]),
    err("select.int", [T, 0, -4], [((3, 4),)]), err("select.int", [T, 0, 0], [((),)]),
    err("narrow", [T, 0, 4, 1], [((3, 4),)]), err("narrow", [T, 1, 2, 3], [((3, 4),)]),
    err("narrow", [T, 2, 0, 1], [((3, 4),)]), err("narrow", [T, 0, 0, -1], [((3, 4),)]),
    err("transpose.int", [T, 0, 2], [((3, 4),)]), err("transpose.int", [T, -3, 0], [((3, 4),)]),
    err("unsqueeze", [T, 3], [((3, 4),)]), err("unsqueeze", [T, -4], [((3, 4),)]),
    err("squeeze.dim", [T, 2], [((3, 4),)]),
    err("permute", [T, [0, 1]], [((2, 3, 4),)]), err("permute", [T, [0, 0, 1]], [((2, 3, 4),)]),
    err("softmax.int", [T, 2], REDUCE[:1]), err("log_softmax.int", [T, -3], REDUCE[:1]),
    err("_softmax", [T, 2, False], REDUCE[:1]),
    err("sum.dim_IntList", [T, [2], False], REDUCE[:1]), err("sum.dim_IntList", [T, [-3], False], REDUCE[:1]),
    err("mean.dim", [T, [5], True], REDUCE[:1]),
    err("amax", [T, [2], False], REDUCE[:1]), err("max.dim", [T, 2, False], REDUCE[:1]),
    err("argmax", [T, 3, False], REDUCE[:1]), err("cumsum", [T, 2], REDUCE[:1]),
    err("var.correction", [T, [2], 1, False], REDUCE[:1]),
    err("topk", [T, -1, -1, True, True], REDUCE[:1]), err("topk", [T, 5, -1, True, True], REDUCE[:1]),
    err("topk", [T, 1, 2, True, True], REDUCE[:1]),
    err("sort.stable", [T, False, 2, False], REDUCE[:1]),
    err("flatten.using_ints", [T, 1, 0], [((2, 3, 4),)]), err("flatten.using_ints", [T, 0, 3], [((2, 3, 4),)]),
    err("chunk", [T, 0, 0], [((4,),)]), err("split.Tensor", [T, -1, 0], [((4,),)]),
    err("split_with_sizes", [T, [1, 2], 0], [((4,),)]),
    err("unbind.int", [T, 2], [((2, 3),)]),
    err("slice.Tensor", [T, 2, 0, None, 1], [((3, 4),)]), err("slice.Tensor", [T, 0, 0, None, 0], [((3, 4),)]),
    err("embedding", [T, idx(1, 9)], [((5, 3), (2,))]),
    err("index.Tensor", [T, [idx(1, 9)]], [((3, 4), (2,))]),
    err("index.Tensor", [T, [Tensor(1, "bool", torch.bool)]], [((3, 4), (4, 3))]),
    # invalid view shapes
    err("view", [T, [5, 3]], [((3, 4),)]), err("view", [T, [-1, -1]], [((3, 4),)]),
    err("view", [T, [-2, 6]], [((3, 4),)]), err("reshape", [T, [5, -1]], [((3, 4),)]),
    err("reshape", [T, [0, -1]], [((3, 4),)]),
    err("unflatten.int", [T, 1, [3, -1]], [((3, 4),)]),
    # negative sizes and bad ranges in factories
    err("zeros", [[-1, 2], None], [()]), err("ones", [[2, -3], None], [()]),
    err("full", [[-2], 1.0], [()]), err("eye.m", [-1, 2], [()]), err("eye.m", [2, -2], [()]),
    err("linspace", [0, 1, -1], [()]),
    err("arange.start_step", [0, 10, -1], [()]), err("arange.start_step", [10, 0, 1], [()]),
    err("arange.start_step", [0, float("inf"), 1], [()]),
    # bad options
    err("clamp", [T, None, None], [((3,),)], [torch.int64]),
    err("div.Tensor_mode", [T, Tensor(1, "nonzero"), "round"], [((3,), (3,))]),
    err("div.Tensor_mode", [T, Tensor(1, "nonzero"), "Floor"], [((3,), (3,))], [torch.int64]),
    err("gelu", [T, "Tanh"], [((3,),)]),
]


# The losses, layer_norm and bilinear of src/nn/functional (Composite rows): each reduction,
# class weights, ignore_index (1 or 2: some targets are ignored), label smoothing, class-index and
# class-probability targets, 1-d / 2-d / N-d inputs, and their errors.
def _nn_functional():
    pos, unit = Tensor(2, "pos"), Tensor(1, "unit")
    rows = []
    for r in (0, 1, 2):
        # torch 1.13's bfloat16 nll kernels sum in bfloat16; ember sums in float32 and rounds once,
        # so bfloat16 reductions of the class-index losses are left to the C++ tests (against
        # float64 values) and only their unreduced results are compared here.
        nll_dtypes = FLOATS if r == 0 else FLOATS[:3]
        rows += [
            Op("aten::mse_loss", [T, T1, r], FLOATS, BINARY),
            Op("aten::l1_loss", [T, T1, r], FLOATS, BINARY),
            Op("aten::smooth_l1_loss", [T, T1, r, 0.5], FLOATS, BINARY[:3]),
            Op("aten::smooth_l1_loss", [T, T1, r, 0.0], FLOATS, BINARY[:1]),
            Op("aten::binary_cross_entropy_with_logits", [T, unit, None, None, r], FLOATS,
               [((3, 4), (3, 4)), ((4,), (3, 4)), ((), ()), ((0, 3), (0, 3))]),
            Op("aten::binary_cross_entropy_with_logits", [T, unit, pos, Tensor(3, "pos"), r], FLOATS,
               [((3, 4), (3, 4), (4,), (4,)), ((2, 3), (2, 3), (2, 3), ())]),
            Op("aten::nll_loss", [T, idx(1, 5), None, r, -100], nll_dtypes, [((3, 5), (3,)), ((5,), ()), ((0, 5), (0,))]),
            Op("aten::nll_loss", [T, idx(1, 5), pos, r, 1], nll_dtypes, [((6, 5), (6,), (5,))]),
            Op("aten::nll_loss2d", [T, idx(1, 3), pos, r, 2], nll_dtypes, [((2, 3, 2, 2), (2, 2, 2), (3,))]),
            Op("aten::nll_loss_nd", [T, idx(1, 4), pos, r, 2], nll_dtypes,
               [((2, 4, 3), (2, 3), (4,)), ((2, 4, 2, 2), (2, 2, 2), (4,)), ((2, 4, 1, 2, 2), (2, 1, 2, 2), (4,)),
                ((0, 4, 3), (0, 3), (4,)), ((6, 4), (6,), (4,))]),
            Op("aten::cross_entropy_loss", [T, idx(1, 5), None, r, -100, 0.0], nll_dtypes, [((3, 5), (3,)), ((5,), ())]),
            Op("aten::cross_entropy_loss", [T, idx(1, 5), pos, r, 1, 0.2], nll_dtypes,
               [((6, 5), (6,), (5,)), ((2, 5, 3), (2, 3), (5,)), ((5,), (), (5,))]),
            Op("aten::cross_entropy_loss", [T, idx(1, 5), None, r, 3, 0.1], nll_dtypes, [((6, 5), (6,))]),
            Op("aten::cross_entropy_loss", [T, Tensor(1, "pos"), None, r, -100, 0.0], FLOATS, [((3, 5), (3, 5)), ((5,), (5,))]),
            Op("aten::cross_entropy_loss", [T, Tensor(1, "pos"), pos, r, -100, 0.3], FLOATS,
               [((3, 5), (3, 5), (5,)), ((2, 5, 3), (2, 5, 3), (5,))]),
        ]
    rows += [
        Op("aten::l1_loss", [T, T1, 0], [torch.int64, torch.int32], BINARY[:2]),
        Op("aten::l1_loss", [T, T1, 2], [torch.int64], BINARY[:2]),
        Op("aten::mse_loss", [T, Tensor(1, dtype=torch.float64), 1], [torch.float32, torch.int64], BINARY[:2]),
        Op("aten::layer_norm", [T, [4], T1, T2, 1e-5, True], FLOATS[:3], [((3, 4), (4,), (4,)), ((2, 3, 4), (4,), (4,))]),
        Op("aten::layer_norm", [T, [3, 4], None, None, 0.1, True], FLOATS[:3], [((2, 3, 4),), ((0, 3, 4),)]),
        # torch 1.13's bfloat16 kernel rounds intermediate values to bfloat16 (off by up to ~0.2 from
        # the exact result on such inputs); ember normalises in float32 and rounds once.
        Op("aten::layer_norm", [T, [4], T1, T2, 1e-5, True], [torch.bfloat16], [((3, 4), (4,), (4,)), ((2, 3, 4), (4,), (4,))],
           loose=True),
        Op("aten::bilinear", [T, T1, T2, Tensor(3)], FLOATS,
           [((2, 3), (2, 4), (5, 3, 4), (5,)), ((6, 2, 3), (6, 2, 4), (5, 3, 4), (5,)), ((3,), (4,), (5, 3, 4), (5,))],
           loose=True),
        Op("aten::bilinear", [T, T1, T2, None], [torch.float32, torch.float64, torch.int64], [((2, 3), (2, 4), (5, 3, 4))]),
        # errors
        err("mse_loss", [T, T1, 1], [((3,), (3,))], [torch.int64, torch.bool]),
        err("mse_loss", [T, T1, 1], [((3, 5), (4,))]),
        err("smooth_l1_loss", [T, T1, 1, -1.0], [((3,), (3,))]),
        err("binary_cross_entropy_with_logits", [T, T1, None, None, 1], [((3, 5), (5,))]),
        err("binary_cross_entropy_with_logits", [T, T1, None, None, 1], [((3,), (3,))], [torch.bool]),
        err("nll_loss", [T, idx(1, 5), None, 1, -100], [((3, 5), (2,)), ((2, 3, 5), (2, 3)), ((3, 5), (3, 2))]),
        err("nll_loss", [T, idx(1, 100), None, 1, -100], [((3, 5), (3,))]),
        err("nll_loss", [T, idx(1, 5, torch.int32), None, 1, -100], [((3, 5), (3,))]),
        err("nll_loss", [T, idx(1, 5), T2, 1, -100], [((3, 5), (3,), (4,))]),
        err("nll_loss", [T, idx(1, 5), Tensor(2, dtype=torch.float64), 1, -100], [((3, 5), (3,), (5,))]),
        err("nll_loss", [T, idx(1, 5), None, 1, -100], [((3, 5), (3,))], [torch.int64]),
        err("nll_loss2d", [T, idx(1, 3), None, 1, -100], [((2, 3, 2), (2, 2, 2)), ((2, 3, 2, 2), (2, 2)), ((2, 3, 2, 2), (2, 2, 3))]),
        err("nll_loss_nd", [T, idx(1, 5), None, 1, -100], [((3, 5), (2,)), ((3, 5, 2), (3, 3)), ((), ())]),
        err("cross_entropy_loss", [T, idx(1, 5), None, 1, -100, 1.5], [((3, 5), (3,))]),
        err("cross_entropy_loss", [T, T1, None, 1, 0, 0.0], [((3, 5), (3, 5))]),
        err("cross_entropy_loss", [T, T1, T2, 1, -100, 0.0], [((3, 5), (3, 5), (3,))]),
        err("cross_entropy_loss", [T, T1, None, 3, -100, 0.0], [((3, 5), (3, 5))]),
        err("cross_entropy_loss", [T, idx(1, 5), None, 1, -100, 0.0], [((3, 5), (3,))], [torch.int64]),
        err("layer_norm", [T, [4], None, None, 1e-5, True], [((3, 5),), ((),)]),
        err("layer_norm", [T, [5], T1, None, 1e-5, True], [((3, 5), (4,))]),
        err("layer_norm", [T, [], None, None, 1e-5, True], [((3, 5),)]),
        err("layer_norm", [T, [5], None, None, 1e-5, True], [((3, 5),)], [torch.int64]),
        err("bilinear", [T, T1, T2, None], [((2, 3), (3, 4), (5, 3, 4)), ((2, 3), (2, 4), (5, 2, 4)), ((2, 3), (1, 2, 4), (5, 3, 4))]),
        err("bilinear", [T, T1, T2, T], [((2, 3), (2, 4), (5, 3, 4), (4,))]),
    ]
    return rows


NN_FUNCTIONAL: List[Op] = _nn_functional()


# Normalization, pooling, padding and resampling (src/ops/normalization.cpp, pooling.cpp, pad.cpp,
# upsample.cpp). 16-bit batch/group norm accumulate in float64 in ember (float in torch): loose.
IMG = [((2, 3, 5, 6),), ((1, 2, 7, 7),)]
def _normpool():
    T3, T4 = Tensor(3), Tensor(4, "pos")
    bn = [((2, 3, 4, 5), (3,), (3,), (3,), (3,)), ((4, 3), (3,), (3,), (3,), (3,))]
    return [
        Op("aten::native_batch_norm", [T, T1, T2, None, None, True, 0.1, 1e-5], FLOATS[:2], bn),
        Op("aten::native_batch_norm", [T, T1, T2, T3, T4, False, 0.1, 1e-5], FLOATS[:2], bn),
        Op("aten::batch_norm", [T, T1, T2, T3, T4, False, 0.1, 1e-5, False], FLOATS[:2], bn),
        Op("aten::batch_norm", [T, None, None, None, None, True, 0.1, 1e-3, False], FLOATS[:2], bn),
        Op("aten::group_norm", [T, 3, T1, T2, 1e-5, False], FLOATS[:2], [((2, 6, 3, 3), (6,), (6,)), ((2, 6, 4), (6,), (6,))]),
        Op("aten::native_group_norm", [T, None, None, 2, 6, 9, 3, 1e-5], FLOATS[:2], [((2, 6, 3, 3),)]),
        Op("aten::max_pool2d_with_indices", [T, [3, 3], [2, 2], [1, 1], [1, 1], False], [torch.float32, torch.float64, torch.bfloat16], IMG),
        Op("aten::max_pool2d_with_indices", [T, [3, 2], [2, 1], [1, 0], [2, 1], True], FLOATS[:2], IMG),
        Op("aten::max_pool2d", [T, [2, 2], [], [0, 0], [1, 1], True], FLOATS[:2], IMG + [((3, 5, 5),)]),
        Op("aten::avg_pool2d", [T, [3, 3], [2, 2], [1, 1], False, True, None], [torch.float32, torch.float64, torch.bfloat16], IMG),
        Op("aten::avg_pool2d", [T, [3, 3], [2, 2], [1, 1], True, False, None], FLOATS[:2], IMG),
        Op("aten::avg_pool2d", [T, [2, 3], [2, 2], [1, 1], True, True, 5], FLOATS[:2], IMG),
        Op("aten::adaptive_avg_pool2d", [T, [1, 1]], FLOATS[:2], IMG),
        Op("aten::_adaptive_avg_pool2d", [T, [3, 2]], [torch.float32, torch.float64, torch.bfloat16], IMG + [((3, 5, 5),)]),
        Op("aten::adaptive_max_pool2d", [T, [3, 2]], [torch.float32, torch.float64, torch.bfloat16], IMG),
        Op("aten::constant_pad_nd", [T, [1, -1, 2, 0], 0.5], FLOATS[:2] + [torch.int64], IMG),
        Op("aten::reflection_pad2d", [T, [2, 1, 1, 2]], FLOATS[:2], IMG),
        Op("aten::replication_pad2d", [T, [2, 1, 1, 2]], FLOATS[:2], IMG),
        Op("aten::reflection_pad1d", [T, [2, 1]], FLOATS[:2], [((2, 3, 5),), ((3, 5),)]),
        Op("aten::replication_pad1d", [T, [2, 1]], FLOATS[:2], [((2, 3, 5),), ((3, 5),)]),
        Op("aten::pad", [T, [1, 1, 2, 2], "reflect", None], FLOATS[:2], IMG),
        Op("aten::upsample_nearest2d", [T, [9, 11], None, None], FLOATS[:2], IMG),
        Op("aten::upsample_nearest2d", [T, [10, 14], 2.0, 2.0], FLOATS[:2], [((1, 2, 5, 7),)]),
        Op("aten::upsample_bilinear2d", [T, [9, 11], False, None, None], FLOATS[:2], IMG),
        Op("aten::upsample_bilinear2d", [T, [9, 11], True, None, None], FLOATS[:2], IMG),
        # errors
        err("max_pool2d_with_indices", [T, [2, 2], [0, 0], [0, 0], [1, 1], False], IMG[:1]),
        err("max_pool2d_with_indices", [T, [2, 2], [2, 2], [2, 2], [1, 1], False], IMG[:1]),
        err("avg_pool2d", [T, [2, 2], [2, 2], [0, 0], False, True, 0], IMG[:1]),
        err("adaptive_max_pool2d", [T, [2, 2]], [((2, 5),)]),
        err("reflection_pad2d", [T, [5, 5, 1, 1]], IMG[:1]),
        err("constant_pad_nd", [T, [1, 1, 1]], IMG[:1]),
        err("native_batch_norm", [T, None, None, None, None, True, 0.1, 1e-5], [((2, 3),)], [torch.int64]),
        err("batch_norm", [T, T1, None, None, None, True, 0.1, 1e-5, False], [((2, 3), (4,))]),
        err("group_norm", [T, 4, None, None, 1e-5, False], [((2, 6, 3),)]),
    ]


NORMPOOL: List[Op] = _normpool()


# Convolutions (src/ops/conv.cpp): oneDNN for float32, the scalar reference for float64.
def _conv():
    return [
        Op("aten::conv2d", [T, T1, T2, [1, 1], [1, 1], [1, 1], 1], FLOATS[:2],
           [((2, 3, 7, 6), (4, 3, 3, 3), (4,))]),
        Op("aten::conv2d", [T, T1, None, [2, 1], [0, 2], [2, 1], 2], FLOATS[:2],
           [((1, 4, 9, 8), (6, 2, 3, 2))]),
        Op("aten::conv2d", [T, T1, T2, [1, 1], [1, 1], [1, 1], 4], FLOATS[:2],   # depthwise
           [((2, 4, 6, 6), (4, 1, 3, 3), (4,))]),
        Op("aten::conv2d.padding", [T, T1, T2, [1, 1], "same", [2, 2], 1], FLOATS[:2],
           [((1, 2, 7, 7), (3, 2, 3, 3), (3,))]),
        Op("aten::conv1d", [T, T1, T2, [2], [1], [1], 1], FLOATS[:2], [((2, 3, 9), (5, 3, 3), (5,))]),
        Op("aten::conv_transpose2d.input", [T, T1, T2, [2, 2], [1, 1], [1, 1], 1, [1, 1]], FLOATS[:2],
           [((1, 3, 4, 5), (3, 2, 3, 3), (2,))]),
        Op("aten::convolution", [T, T1, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1], FLOATS[:2],
           [((2, 3, 5, 5), (2, 3, 1, 1))]),
        err("conv2d", [T, T1, None, [1, 1], [0, 0], [1, 1], 1], [((1, 3, 5, 5), (2, 4, 3, 3))]),
        err("conv2d.padding", [T, T1, None, [2, 2], "same", [1, 1], 1], [((1, 3, 5, 5), (2, 3, 3, 3))]),
    ]


CONV: List[Op] = _conv()


CASES: List[Op] = [
    # ---- unary math: float ops on every dtype (ints promote), sign-ish ops keep dtype ----
    *[unary(n, ALL) for n in ("exp", "expm1", "sin", "cos", "tanh", "sigmoid")],
    *[unary(n, ALL, "pos") for n in ("log", "log1p", "sqrt", "rsqrt")],
    *[unary(n, FLOATS, "special") for n in ("exp", "log", "sqrt", "tanh", "sigmoid", "abs", "neg", "sign", "relu")],
    unary("neg", NUMERIC), unary("abs", NUMERIC), unary("sign", ALL), unary("relu", NUMERIC),
    unary("logical_not", ALL), unary("bitwise_not", INTS + [torch.bool]),
    unary("neg", [torch.bool]),
    Op("aten::exp_", [T], FLOATS), Op("aten::neg_", [T], NUMERIC), Op("aten::sqrt_", [Tensor(0, "pos")], FLOATS),
    Op("aten::relu_", [T], NUMERIC), Op("aten::sigmoid_", [T], FLOATS), Op("aten::exp_", [T], [torch.int64]),
    # ---- activations ----
    Op("aten::hardtanh", [T, -1.0, 1.0], FLOATS), Op("aten::hardtanh", [T, -0.5, 2], NUMERIC),
    Op("aten::hardtanh_", [T, 0.0, 6.0], FLOATS), Op("aten::relu6", [T], FLOATS),
    unary("hardswish"), unary("hardsigmoid"), unary("silu"), Op("aten::silu_", [T], FLOATS),
    Op("aten::gelu", [T, "none"], FLOATS), Op("aten::gelu", [T, "tanh"], FLOATS),
    Op("aten::hardswish_", [T], FLOATS), Op("aten::hardsigmoid_", [T], FLOATS),
    Op("aten::gelu", [T, "bad"], [torch.float32]),
    # ---- binary arithmetic ----
    binary("add.Tensor", ALL), binary("add.Tensor", NUMERIC, (2,)), binary("add.Tensor", FLOATS, (0.5,)),
    binary("add.Tensor", INTS, (0.5,)),
    binary("sub.Tensor", NUMERIC), binary("sub.Tensor", [torch.bool]), binary("sub.Tensor", NUMERIC, (3,)),
    binary("mul.Tensor", ALL),
    binary("div.Tensor", ALL, kind1="nonzero"),
    binary("div.Tensor_mode", NUMERIC, ("trunc",), "nonzero"), binary("div.Tensor_mode", NUMERIC, ("floor",), "nonzero"),
    binary("remainder.Tensor", NUMERIC, kind1="nonzero"),
    binary("pow.Tensor_Tensor", FLOATS), binary("pow.Tensor_Tensor", [torch.int64, torch.int32], kind1="pos"),
    Op("aten::pow.Tensor_Scalar", [T, 2], NUMERIC), Op("aten::pow.Tensor_Scalar", [Tensor(0, "pos"), 0.5], ALL),
    Op("aten::pow.Tensor_Scalar", [T, -1], [torch.int64]), Op("aten::pow.Tensor_Scalar", [Tensor(0, "pos"), -1.5], FLOATS),
    binary("maximum", ALL), binary("minimum", ALL),
    Op("aten::maximum", [Tensor(0, "special"), Tensor(1)], FLOATS, [((3, 4), (3, 4))]),
    *[binary(f"bitwise_{n}.Tensor", INTS + [torch.bool]) for n in ("and", "or", "xor")],
    binary("bitwise_and.Tensor", [torch.float32]),
    Op("aten::add_.Tensor", [T, T1], ALL, [((3, 4), (3, 4)), ((2, 3), (3,))]),
    Op("aten::mul_.Tensor", [T, T1], NUMERIC, [((3, 4), (4,))]),
    Op("aten::div_.Tensor", [T, Tensor(1, "nonzero")], FLOATS, [((3, 4), (3, 4))]),
    Op("aten::div_.Tensor", [T, Tensor(1, "nonzero")], [torch.int64], [((3, 4), (3, 4))]),
    Op("aten::add_.Tensor", [T, T1], FLOATS, [((3,), (2, 3))]),
    # mixed dtypes: promotion (dtype slot 1 fixed)
    *[Op("aten::add.Tensor", [T, Tensor(1, dtype=d2)], [d1], BINARY[:3])
      for d1, d2 in [(torch.int32, torch.float32), (torch.uint8, torch.int8), (torch.bool, torch.int64),
                     (torch.float16, torch.bfloat16), (torch.int64, torch.float64), (torch.float32, torch.float64),
                     (torch.int8, torch.bool), (torch.float16, torch.int64)]],
    *[Op("aten::mul.Tensor", [Tensor(0), Tensor(1, dtype=d2)], [d1], [((3, 4), ())])
      for d1, d2 in [(torch.int32, torch.float64), (torch.float16, torch.float64), (torch.uint8, torch.int64)]],
    Op("aten::div.Tensor", [T, Tensor(1, "nonzero", torch.int64)], [torch.int32], BINARY[:2]),
    # ---- comparisons and logical ----
    *[binary(f"{n}.Tensor", ALL) for n in ("eq", "ne", "lt", "le", "gt", "ge")],
    *[binary(f"logical_{n}", ALL) for n in ("and", "or", "xor")],
    Op("aten::eq.Tensor", [Tensor(0, "special"), Tensor(0, "special")], FLOATS, [((3, 4), (3, 4))]),
    Op("aten::lt_.Tensor", [T, T1], FLOATS, [((3, 4), (4,))]),
    *[Op("aten::lt.Tensor", [T, Tensor(1, dtype=d2)], [d1], BINARY[:2])
      for d1, d2 in [(torch.int32, torch.float32), (torch.uint8, torch.int8), (torch.bool, torch.float16)]],
    # ---- clamp / where / masked_fill ----
    Op("aten::clamp", [T, -0.5, 0.5], NUMERIC), Op("aten::clamp", [T, None, 1], NUMERIC),
    Op("aten::clamp", [T, 1, None], NUMERIC), Op("aten::clamp", [T, None, None], [torch.float32]),
    Op("aten::clamp", [Tensor(0, "special"), -1.0, 1.0], FLOATS),
    Op("aten::clamp", [T, 2, 1], [torch.float32, torch.int64]),
    Op("aten::clamp_", [T, -1, 1], NUMERIC),
    Op("aten::where.self", [Tensor(0, "bool", torch.bool), T1, T2], ALL, TERNARY),
    Op("aten::where.self", [Tensor(0, "bool", torch.bool), T1, Tensor(2, dtype=torch.float64)], [torch.int32], TERNARY[:1]),
    Op("aten::masked_fill.Scalar", [T, Tensor(1, "bool", torch.bool), -1], ALL, BINARY[:3]),
    Op("aten::masked_fill.Scalar", [T, Tensor(1, "bool", torch.bool), 2.5], NUMERIC, BINARY[:1]),
    Op("aten::masked_fill.Tensor", [T, Tensor(1, "bool", torch.bool), Tensor(2)], NUMERIC, [((3, 4), (3, 4), ())]),
    Op("aten::masked_fill_.Scalar", [T, Tensor(1, "bool", torch.bool), 7], NUMERIC, [((3, 4), (4,))]),
    Op("aten::masked_fill.Scalar", [T, Tensor(1, dtype=torch.uint8), 1], [torch.float32], BINARY[:1]),
    # ---- reductions ----
    Op("aten::sum", [T], ALL, REDUCE), Op("aten::sum", [T, torch.float64], NUMERIC, REDUCE),
    Op("aten::sum.dim_IntList", [T, [1], False], ALL, REDUCE[:2]),
    Op("aten::sum.dim_IntList", [T, [0, -1], True], NUMERIC, REDUCE[:2]),
    Op("aten::sum.dim_IntList", [T, [], False], FLOATS, REDUCE[:2]),
    Op("aten::sum.dim_IntList", [T, [0, 0], False], [torch.float32], REDUCE[:1]),
    Op("aten::mean", [T], FLOATS + [torch.int64], REDUCE),
    Op("aten::mean.dim", [T, [-1], True], FLOATS, REDUCE[:2]),
    Op("aten::prod", [Tensor(0, "unit")], ALL, REDUCE), Op("aten::prod.dim_int", [Tensor(0, "unit"), 1, False], NUMERIC, REDUCE[:2]),
    Op("aten::max", [Tensor(0, "distinct")], ALL, REDUCE[:3]), Op("aten::min", [Tensor(0, "distinct")], ALL, REDUCE[:3]),
    Op("aten::max", [T], [torch.float32], [((0, 3),)]),
    Op("aten::max", [Tensor(0, "special")], FLOATS, REDUCE[:1]),
    Op("aten::max.dim", [Tensor(0, "distinct"), 1, False], NUMERIC, REDUCE[:2]),
    Op("aten::min.dim", [Tensor(0, "distinct"), -1, True], NUMERIC, REDUCE[:2]),
    Op("aten::amax", [T, [1], False], ALL, REDUCE[:2]), Op("aten::amin", [T, [0, 1], True], NUMERIC, REDUCE[:2]),
    Op("aten::amax", [T, [], False], FLOATS, REDUCE[:3]),
    Op("aten::argmax", [Tensor(0, "distinct"), None, False], NUMERIC, REDUCE[:3]),
    Op("aten::argmax", [Tensor(0, "distinct"), 1, True], NUMERIC, REDUCE[:2]),
    Op("aten::argmin", [Tensor(0, "distinct"), 0, False], NUMERIC, REDUCE[:2]),
    Op("aten::var.correction", [T, [1], 1, False], FLOATS, REDUCE[:2]),
    Op("aten::var.correction", [T, None, 0, True], FLOATS, REDUCE),
    Op("aten::std.correction", [T, [0, -1], 1, False], FLOATS, REDUCE[:2]),
    Op("aten::std.correction", [T, None, None, False], FLOATS, REDUCE[:1]),
    Op("aten::norm.ScalarOpt_dim", [T, 2, [1], False], FLOATS, REDUCE[:2]),
    Op("aten::norm.ScalarOpt_dim", [T, 1, [0], True], FLOATS, REDUCE[:2]),
    Op("aten::norm.ScalarOpt_dim", [T, float("inf"), [-1], False], FLOATS, REDUCE[:2]),
    Op("aten::norm.ScalarOpt_dim", [T, 3.0, [0, 1], False], FLOATS, REDUCE[:2]),
    Op("aten::norm.ScalarOpt_dim", [T, 0, [1], False], FLOATS, REDUCE[:2]),
    Op("aten::all", [T], ALL, REDUCE), Op("aten::any", [T], ALL, REDUCE),
    Op("aten::all.dim", [Tensor(0, "bool", torch.bool), 1, False], [torch.bool], REDUCE[:2]),
    Op("aten::any.dim", [T, 0, True], ALL, REDUCE[:2]),
    Op("aten::cumsum", [T, 1], ALL, REDUCE[:2]), Op("aten::cumsum", [T, 0, torch.float64], NUMERIC, REDUCE[:2]),
    # ---- softmax ----
    Op("aten::_softmax", [T, 1, False], FLOATS[:2], REDUCE[:2]), Op("aten::_log_softmax", [T, -1, False], FLOATS[:2], REDUCE[:2]),
    Op("aten::softmax.int", [T, 0], FLOATS, REDUCE[:2]), Op("aten::log_softmax.int", [T, 1], FLOATS, REDUCE[:2]),
    Op("aten::softmax.int", [T, 1, torch.float64], [torch.float32], REDUCE[:2]),
    # ---- sort / topk ----
    # stable=None trips an internal assert in torch 1.13 (later versions read it as False, as
    # ember does; tests/cpp/ops/test_sort.cpp checks that): compared with stable=False here.
    Op("aten::sort.stable", [Tensor(0, "distinct"), False, -1, False], NUMERIC, REDUCE[:3]),
    Op("aten::sort.stable", [Tensor(0, "distinct"), True, 0, True], NUMERIC, REDUCE[:2]),
    Op("aten::sort.stable", [T, True, -1, False], [torch.int64, torch.bool], REDUCE[:2]),
    Op("aten::topk", [Tensor(0, "distinct"), 2, -1, True, True], NUMERIC, REDUCE[:2]),
    Op("aten::topk", [Tensor(0, "distinct"), 1, 0, False, True], NUMERIC, REDUCE[:2]),
    Op("aten::topk", [T, 9, -1, True, True], [torch.float32], REDUCE[:1]),
    # ---- linear algebra ----
    # float16: torch 1.13 refuses it on CPU ("addmm_impl_cpu_" not implemented for 'Half'); ember
    # computes it in float32, and the test compares with torch in float32 rounded back.
    Op("aten::mm", [T, T1], [torch.float32, torch.float64, torch.int64, torch.float16, torch.bfloat16],
       [((3, 4), (4, 5)), ((0, 4), (4, 2)), ((3, 0), (0, 2)), ((5, 7), (7, 1))], loose=True),
    Op("aten::mm", [T, T1], [torch.float32], [((3, 4), (5, 2))]),
    Op("aten::bmm", [T, T1], [torch.float32, torch.float64], [((2, 3, 4), (2, 4, 5)), ((0, 3, 4), (0, 4, 2))]),
    Op("aten::addmm", [T, T1, T2, 0.5, 2.0], [torch.float32, torch.float64], [((3, 5), (3, 4), (4, 5)), ((5,), (3, 4), (4, 5))]),
    Op("aten::matmul", [T, T1], [torch.float32, torch.float64],
       [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((3, 4), (2, 4, 5))]),
    Op("aten::linear", [T, T1, T2], [torch.float32, torch.float64], [((3, 4), (5, 4), (5,)), ((2, 3, 4), (5, 4), (5,))]),
    Op("aten::linear", [T, T1, None], [torch.float32], [((3, 4), (5, 4))]),
    # ---- views and shape ----
    Op("aten::view", [T, [4, 3]], ALL, [((3, 4),)], vary_layout=False),
    Op("aten::reshape", [T, [2, -1]], ALL, [((3, 4),), ((2, 3, 4),)]),
    Op("aten::t", [T], ALL, [((3, 4),), ((3,),), ((),)]),
    Op("aten::transpose.int", [T, 0, -1], ALL, [((2, 3, 4),), ((3, 4),)]),
    Op("aten::permute", [T, [2, 0, 1]], ALL, [((2, 3, 4),)]),
    Op("aten::unsqueeze", [T, -1], ALL, UNARY), Op("aten::squeeze", [T], ALL, [((1, 3, 1),), ((),)]),
    Op("aten::squeeze.dim", [T, 0], ALL, [((1, 3),), ((2, 3),)]),
    Op("aten::expand", [T, [2, 3, 4]], ALL, [((3, 1),), ((4,),)]),
    Op("aten::slice.Tensor", [T, 1, 1, None, 2], ALL, [((3, 5),)]),
    Op("aten::slice.Tensor", [T, 0, -2, 100, 1], ALL, [((4, 3),)]),
    Op("aten::select.int", [T, 1, -1], ALL, [((3, 4),), ((2, 3, 4),)]),
    Op("aten::narrow", [T, 0, 1, 2], ALL, [((3, 4),)]),
    Op("aten::chunk", [T, 3, 1], ALL, [((2, 7),)]), Op("aten::split.Tensor", [T, 2, 0], ALL, [((5, 3),)]),
    Op("aten::split_with_sizes", [T, [1, 3], 1], ALL, [((2, 4),)]),
    Op("aten::unbind.int", [T, 1], ALL, [((2, 3),)]),
    Op("aten::flatten.using_ints", [T, 1, -1], ALL, [((2, 3, 4),), ((),)]),
    Op("aten::unflatten.int", [T, 1, [2, -1]], ALL, [((3, 4),)]),
    # ---- conversion and copies ----
    *[Op("aten::_to_copy", [T, d], ALL, UNARY) for d in ALL],
    Op("aten::clone", [T], ALL, UNARY), Op("aten::contiguous", [T], ALL, UNARY),
    # ---- factories ----
    Op("aten::zeros", [[2, 3], torch.int32], [torch.float32], [()]), Op("aten::ones", [[4], None], [torch.float32], [()]),
    Op("aten::full", [[2, 2], 1.5], [torch.float32], [()]), Op("aten::full", [[3], 7], [torch.float32], [()]),
    # (full with a bool value is bool in torch.full but int64 through torch.ops' boxing: not compared)
    Op("aten::arange.start_step", [0, 10, 3], [torch.float32], [()]),
    Op("aten::arange.start_step", [0.5, 3, 0.5], [torch.float32], [()]),
    Op("aten::arange.start_step", [5, 0, -2, torch.float64], [torch.float32], [()]),
    Op("aten::arange.start_step", [0, 10, 0], [torch.float32], [()]),
    Op("aten::linspace", [0, 1, 5], [torch.float32], [()]), Op("aten::linspace", [-3, 7, 4, torch.int64], [torch.float32], [()]),
    Op("aten::linspace", [2, 2, 1], [torch.float32], [()]),
    Op("aten::eye.m", [3, 4], [torch.float32], [()]), Op("aten::eye.m", [2, 2, torch.bool], [torch.float32], [()]),
    # ---- joining, gather / scatter, embedding ----
    Op("aten::cat", [[T, T1], 1], ALL, [((2, 3), (2, 4)), ((0,), (2, 4))]),
    Op("aten::cat", [[T, Tensor(1, dtype=torch.float64)], 0], [torch.int32], [((2, 3), (1, 3))]),
    Op("aten::cat", [[T, T1], 0], [torch.float32], [((2, 3), (2, 4))]),
    Op("aten::stack", [[T, T1], 1], ALL, [((2, 3), (2, 3))]),
    Op("aten::index_select", [T, 1, Tensor(1, "index", torch.int64, high=4)], ALL, [((3, 4), (5,))]),
    Op("aten::index_select", [T, 0, Tensor(1, "index", torch.int32, high=3)], [torch.float32], [((3, 4), (2,))]),
    Op("aten::gather", [T, 1, Tensor(1, "index", torch.int64, high=4)], ALL, [((3, 4), (3, 6))]),
    Op("aten::scatter.src", [T, 0, Tensor(1, "index", torch.int64, high=3), T2], NUMERIC, [((3, 4), (2, 4), (2, 4))]),
    Op("aten::scatter.value", [T, 1, Tensor(1, "index", torch.int64, high=4), 2.0], FLOATS, [((3, 4), (3, 2))]),
    Op("aten::scatter_add", [T, 0, Tensor(1, "index", torch.int64, high=3), T2], NUMERIC, [((3, 4), (5, 4), (5, 4))]),
    Op("aten::embedding", [T, Tensor(1, "index", torch.int64, high=5)], FLOATS, [((5, 3), (2, 4)), ((5, 3), ())]),
    Op("aten::index.Tensor", [T, [Tensor(1, "index", torch.int64, high=3)]], ALL, [((3, 4), (5,)), ((3, 4), (2, 2))]),
    Op("aten::index.Tensor", [T, [Tensor(1, "bool", torch.bool)]], [torch.float32, torch.int64], [((3, 4), (3, 4))]),
    # ---- nn functional: losses, layer_norm, bilinear (Composite rows) ----
    *NN_FUNCTIONAL,
    *NORMPOOL,
    *CONV,
    # ---- common user mistakes: error types and messages must match torch's ----
    *ERRORS,
    # ---- PyTorch's backward ops (activation_backward.cpp, softmax.cpp, index_ops.cpp, ...) ----
    Op("aten::threshold_backward", [T, T1, 0], [torch.float32, torch.float64, torch.bfloat16] + INTS, BINARY),
    Op("aten::threshold_backward", [T, Tensor(1, "special"), 0.5], FLOATS[:2], [((3, 4), (3, 4))]),
    Op("aten::tanh_backward", [T, T1], [torch.float32, torch.float64, torch.bfloat16], BINARY),
    Op("aten::sigmoid_backward", [T, T1], FLOATS, BINARY),
    Op("aten::hardtanh_backward", [T, T1, -1.0, 1.0], FLOATS[:2], BINARY),
    Op("aten::hardtanh_backward", [T, T1, -0.5, 2], [torch.float32], BINARY[:2]),
    # (contiguous only: torch 1.13's oneDNN gelu_backward returns garbage for strided inputs)
    Op("aten::gelu_backward", [T, T1], [torch.float32, torch.float64, torch.bfloat16], [((3, 4), (3, 4)), ((), ())],
       vary_layout=False),
    Op("aten::gelu_backward", [T, T1, "tanh"], FLOATS[:2], [((2, 3, 4), (2, 3, 4))], vary_layout=False),
    *[Op(f"aten::{n}_backward", [T, T1], [torch.float32, torch.float64, torch.bfloat16], BINARY)
      for n in ("hardswish", "hardsigmoid", "silu")],
    Op("aten::mul.Scalar", [T, 2], NUMERIC, UNARY), Op("aten::mul.Scalar", [T, 0.5], FLOATS, UNARY),
    Op("aten::div.Scalar", [T, 2], NUMERIC, UNARY), Op("aten::div.Scalar", [T, -0.25], FLOATS, UNARY),
    Op("aten::_softmax_backward_data", [T, T1, 1, torch.float32], [torch.float32], [((3, 4), (3, 4)), ((2, 3, 4), (2, 3, 4))]),
    Op("aten::_softmax_backward_data", [T, T1, -1, torch.float64], [torch.float64], [((3, 4), (3, 4)), ((), ())]),
    Op("aten::_log_softmax_backward_data", [T, T1, 0, torch.float32], [torch.float32], [((3, 4), (3, 4)), ((2, 3, 4), (2, 3, 4))]),
    Op("aten::_log_softmax_backward_data", [T, T1, 2, torch.float64], [torch.float64], [((2, 3, 4), (2, 3, 4))]),
    Op("aten::embedding_dense_backward", [T, idx(1, 5), 5, -1, False], FLOATS[:2], [((2, 4, 3), (2, 4)), ((3,), ())]),
    Op("aten::embedding_dense_backward", [T, idx(1, 5), 6, 2, True], FLOATS[:2], [((2, 4, 3), (2, 4))]),
    Op("aten::_reshape_alias", [T, [4, 3], [3, 1]], ALL, [((3, 4),)], vary_layout=False),
    Op("aten::mse_loss_backward", [T, T1, T2, 0], FLOATS[:2], [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1))]),
    Op("aten::mse_loss_backward", [T, T1, T2, 1], FLOATS[:2], [((), (3, 4), (3, 4)), ((), (2, 3), (3,))]),
    Op("aten::nll_loss_forward", [T, idx(1, 5), None, 1, -100], FLOATS[:2], [((3, 5), (3,)), ((5,), ())]),
    Op("aten::nll_loss_forward", [T, idx(1, 5), Tensor(2, "pos"), 0, 1], FLOATS[:2], [((6, 5), (6,), (5,))]),
    Op("aten::nll_loss2d_forward", [T, idx(1, 3), Tensor(2, "pos"), 2, 2], FLOATS[:2], [((2, 3, 2, 2), (2, 2, 2), (3,))]),
]


# Later op families keep their rows in files of their own beside this one, `ops_table_<family>.py`,
# each defining `CASES` (built with this module's `Op`, `T`, ...), so that parallel work on
# different families never edits the same list.
def _family_tables():
    import importlib
    import pathlib
    for path in sorted(pathlib.Path(__file__).parent.glob("ops_table_*.py")):
        yield importlib.import_module(path.stem)


for _family in _family_tables():
    CASES += _family.CASES
