"""The saved values of every node of the gradient table (grads_table.py and its family files)
against torch 1.13: each row's first float64 case runs by its aten name on both sides
(ember.ops.aten / torch.ops.aten, contiguous inputs); for every output with a grad_fn the node's
`_saved_*` / `_raw_saved_*` attributes must be torch's, with equal values (as in
test_saved_attrs_vs_torch.py). Where the node names differ (GRAD_FN_ALLOWLIST), ember's node is
held to the attribute set torch 1.13's class of the same name declares.
Note [Saved values of built-in nodes] in src/autograd/record.h.
"""
import itertools
import pathlib
import re
import sys

import pytest
import torch

import ember

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "core"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from grads_table import GRAD_CASES, GRAD_FN_ALLOWLIST  # noqa: E402
from ops_table import Tensor as TensorArg  # noqa: E402
from test_saved_attrs_vs_torch import check_value, saved_names  # noqa: E402

# torch 1.13's generated node classes and the saved attributes each declares.
TORCH_NODE_ATTRS = {
    c.__name__: sorted(a for a in dir(c) if a.startswith("_saved_") or a.startswith("_raw_saved_"))
    for c in object.__subclasses__() if c.__module__ == "builtins" and "Backward" in c.__name__
}

# Nodes whose saved values differ from torch 1.13's on purpose: node name -> (attributes whose
# values are not compared, why). Their names are still compared.
VALUE_EXCEPTIONS = {
    "NativeBatchNormBackward0": (("_saved_running_mean", "_saved_running_var"),
                                 "in training ember does not keep the running statistics (the "
                                 "backward does not read them; torch keeps them): None"),
    "ScatterReduceBackward0": (("_saved_self",),
                               "ember's out-of-place scatter_reduce is the in-place one on a copy: its "
                               "node keeps that copy's old value, not the input itself"),
    "NativeGroupNormBackward0": (("_saved_result1", "_saved_result2"),
                                 "ember's native_group_norm statistics are not differentiable outputs "
                                 "(torch 1.13's are): the same values without requires_grad"),
}
# Nodes whose saved *names* differ from torch 1.13's: node name -> why.
NAME_EXCEPTIONS = {
    "LinalgDetBackward0": "torch 1.13 also keeps the LU factorization (LU, pivots); ember's rule "
                          "inverts A instead",
    "LinalgSlogdetBackward0": "torch 1.13 keeps LU, pivots and sign; ember's rule inverts A",
    "LinalgSolveExBackward0": "torch 1.13 keeps the LU factorization (LU, pivots) too",
    "LinalgLuSolveBackward0": "torch 1.13 keeps the result too",
}


def first_case(row):
    gen = torch.Generator().manual_seed(0)
    cases = list(row.expand(gen))
    return next((c for c in cases if c.layout == "c" and "float64" in c.note), None)


ROWS = [(f"{i}:{row.op}", row) for i, row in enumerate(GRAD_CASES)]


def wants_grad(case, pos, element, t):
    if not t.dtype.is_floating_point:
        return False
    return case.diff is None or pos in case.diff or (pos, element) in case.diff


def build(case):
    """The case's arguments for torch and for ember (the same values), and the inputs."""
    t_args, e_args, t_ins, e_ins = [], [], [], []

    def pair(b, pos, element):
        t = b.tensor.clone()
        e = ember.tensor(t.numpy()) if t.dim() else ember.tensor(t.item(), dtype=getattr(ember, str(t.dtype)[6:]))
        if wants_grad(case, pos, element, t):
            t.requires_grad_()
            e.requires_grad_()
        t_ins.append(t)
        e_ins.append(e)
        return t, e

    for pos, a in enumerate(case.args):
        if isinstance(a, TensorArg.Built):
            t, e = pair(a, pos, None)
        elif isinstance(a, list) and any(isinstance(x, TensorArg.Built) for x in a):
            items = [pair(x, pos, i) if x is not None else (None, None) for i, x in enumerate(a)]
            t, e = [p[0] for p in items], [p[1] for p in items]
        elif isinstance(a, torch.dtype):
            t, e = a, getattr(ember, str(a)[6:])
        else:
            t, e = a, a
        t_args.append(t)
        e_args.append(e)
    if case.inplace:
        t_args[0], e_args[0] = t_args[0].clone(), e_args[0].clone()
    return t_args, e_args, t_ins, e_ins


def call(lib, full_name, args):
    name, _, overload = full_name.split("::")[1].partition(".")
    t_op = getattr(getattr(torch.ops.aten, name), overload or "default")
    op = getattr(getattr(lib.ops.aten, name), overload or "default")
    positional, kwargs = [], {}
    for schema_arg, value in zip(t_op._schema.arguments, args):
        if schema_arg.kwarg_only:
            kwargs[schema_arg.name] = value
        else:
            positional.append(value)
    out = op(*positional, **kwargs)
    return [o for o in (out if isinstance(out, (tuple, list)) else [out]) if hasattr(o, "grad_fn")]


def allowed_rename(op, torch_name, ember_name):
    return any(re.search(pat, op) and torch_name == t and ember_name == e
               for pat, t, e, _ in GRAD_FN_ALLOWLIST)


@pytest.mark.parametrize("row", [r for _, r in ROWS], ids=[i for i, _ in ROWS])
def test_saved_attributes_of_the_gradient_table(row):
    case = first_case(row)
    if case is None:
        pytest.skip("no contiguous float64 case in this row")
    t_args, e_args, t_ins, e_ins = build(case)
    t_outs = call(torch, case.op, t_args)
    e_outs = call(ember, case.op, e_args)
    assert len(e_outs) == len(t_outs)
    for t_out, e_out in zip(t_outs, e_outs):
        t_fn, e_fn = t_out.grad_fn, e_out.grad_fn
        if t_fn is None or e_fn is None:
            continue
        if e_fn.name() != t_fn.name():
            assert allowed_rename(case.op, t_fn.name(), e_fn.name()), (t_fn.name(), e_fn.name())
            if e_fn.name() in TORCH_NODE_ATTRS and e_fn.name() not in NAME_EXCEPTIONS:
                assert saved_names(e_fn) == TORCH_NODE_ATTRS[e_fn.name()], e_fn.name()
            continue
        if t_fn.name() in NAME_EXCEPTIONS:
            continue
        assert saved_names(e_fn) == saved_names(t_fn), t_fn.name()
        skip = VALUE_EXCEPTIONS.get(t_fn.name(), ((), ""))[0]
        for name in saved_names(t_fn):
            if name.startswith("_raw_saved_") or name in skip:
                continue
            check_value(f"{t_fn.name()}.{name}", getattr(e_fn, name), getattr(t_fn, name), e_ins, t_ins)


def test_exceptions_name_real_nodes():
    for name in itertools.chain(VALUE_EXCEPTIONS, NAME_EXCEPTIONS):
        assert name in TORCH_NODE_ATTRS, name
