"""The matmul family with operands of two dtypes (torch 1.13 raises where a promotion would hide a
mistake, e.g. a complex matrix times a real one), einsum's contraction of two dtypes, multi_dot's
text, and ember.ops.aten's results of "-> Tensor[]" schemas (lists, as torch.ops.aten gives them;
torch.split & co. at the top level give tuples)."""
import itertools

import pytest
import torch

import ember

DTYPES = ["float32", "float64", "complex64", "complex128", "int64", "int32"]


def outcome(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the type is compared
        return (type(e).__name__, str(e))
    return ("ok", str(r.dtype).split(".")[1], tuple(r.shape))


def calls(M, a, b):
    da, db = getattr(M, a), getattr(M, b)
    A2, B2 = M.ones(2, 3, dtype=da), M.ones(3, 2, dtype=db)
    A1, B1 = M.ones(3, dtype=da), M.ones(3, dtype=db)
    A3, B3 = M.ones(2, 2, 3, dtype=da), M.ones(2, 3, 2, dtype=db)
    return {
        "matmul 2x2": lambda: M.matmul(A2, B2), "matmul 2x1": lambda: M.matmul(A2, B1),
        "matmul 1x2": lambda: M.matmul(B1, A2.t()), "matmul 1x1": lambda: M.matmul(A1, B1),
        "matmul 3x3": lambda: M.matmul(A3, B3), "matmul 3x2": lambda: M.matmul(A3, B2),
        "matmul 2x3": lambda: M.matmul(A2, B3), "mm": lambda: M.mm(A2, B2),
        "bmm": lambda: M.bmm(A3, B3), "mv": lambda: M.mv(A2, B1), "dot": lambda: M.dot(A1, B1),
        "vdot": lambda: M.vdot(A1, B1), "@": lambda: A2 @ B2, "Tensor.mm": lambda: A2.mm(B2),
        "Tensor.matmul": lambda: A2.matmul(B2), "inner": lambda: M.inner(A1, B1),
        "outer": lambda: M.outer(A1, B1), "tensordot": lambda: M.tensordot(A2, B2, 1),
        "linalg.matmul": lambda: M.linalg.matmul(A2, B2),
        "addmm": lambda: M.addmm(M.ones(2, 2, dtype=da), A2, B2),
        "addmv": lambda: M.addmv(M.ones(2, dtype=da), A2, B1),
        "baddbmm": lambda: M.baddbmm(M.ones(2, 2, 2, dtype=da), A3, B3),
        "multi_dot": lambda: M.linalg.multi_dot([A2, B2]),
        "einsum ij,jk->ik": lambda: M.einsum("ij,jk->ik", A2, B2),
        "einsum i,i->": lambda: M.einsum("i,i->", A1, B1),
        "einsum i,i->i": lambda: M.einsum("i,i->i", A1, B1),
        "einsum i,j->ij": lambda: M.einsum("i,j->ij", A1, B1),
        "einsum bij,bjk->bik": lambda: M.einsum("bij,bjk->bik", A3, B3),
        "einsum 3 operands": lambda: M.einsum("ij,jk,kl->il", A2, M.ones(3, 3, dtype=da), B2),
    }


@pytest.mark.parametrize("a,b", [p for p in itertools.permutations(DTYPES, 2)])
def test_mixed_dtypes_as_torch(a, b):
    te, ee = calls(torch, a, b), calls(ember, a, b)
    for name in te:
        t = outcome(te[name])
        e = outcome(ee[name])
        assert e == t, name


def test_complex_times_real_is_refused():
    z = ember.ones(2, 2, dtype=ember.complex128)
    x = ember.ones(2, 2, dtype=ember.float64)
    with pytest.raises(RuntimeError, match="expected scalar type ComplexDouble but found Double"):
        ember.matmul(z, x)
    with pytest.raises(RuntimeError, match="expected scalar type Double but found ComplexDouble"):
        x @ z
    # The same dtypes still multiply, and a mul-only einsum still promotes.
    assert (z @ x.to(ember.complex128)).dtype == ember.complex128
    assert ember.einsum("i,i->i", z[0], x[0]).dtype == ember.complex128


LIST_OPS = [
    ("split", lambda M, x: M.ops.aten.split(x, 2)),
    ("split.Tensor", lambda M, x: M.ops.aten.split.Tensor(x, 2)),
    ("split.sizes", lambda M, x: M.ops.aten.split.sizes(x, [2, 4])),
    ("split_with_sizes", lambda M, x: M.ops.aten.split_with_sizes(x, [1, 5])),
    ("unbind", lambda M, x: M.ops.aten.unbind(x.view(2, 3))),
    ("unbind.int", lambda M, x: M.ops.aten.unbind.int(x.view(2, 3), 1)),
    ("chunk", lambda M, x: M.ops.aten.chunk(x, 3)),
    ("tensor_split", lambda M, x: M.ops.aten.tensor_split(x, 3)),
    ("hsplit", lambda M, x: M.ops.aten.hsplit(x, 2)),
    ("meshgrid", lambda M, x: M.ops.aten.meshgrid([x, x])),
    ("broadcast_tensors", lambda M, x: M.ops.aten.broadcast_tensors([x, x])),
    ("where", lambda M, x: M.ops.aten.where(x > 2)),
    ("atleast_1d.Sequence", lambda M, x: M.ops.aten.atleast_1d.Sequence([x, x])),
    ("max.dim", lambda M, x: M.ops.aten.max.dim(x, 0)),
    ("sort", lambda M, x: M.ops.aten.sort(x)),
    ("torch.split", lambda M, x: M.split(x, 2)),
    ("torch.unbind", lambda M, x: M.unbind(x.view(2, 3))),
    ("torch.chunk", lambda M, x: M.chunk(x, 3)),
    ("Tensor.split", lambda M, x: x.split(2)),
    ("torch.tensor_split", lambda M, x: M.tensor_split(x, 3)),
    ("torch.where", lambda M, x: M.where(x > 2)),
    ("torch.meshgrid", lambda M, x: M.meshgrid(x, x, indexing="ij")),
]


@pytest.mark.parametrize("name,fn", LIST_OPS, ids=[n for n, _ in LIST_OPS])
def test_tensor_list_results_as_torch(name, fn):
    t = fn(torch, torch.arange(6.0))
    e = fn(ember, ember.arange(6.0))
    assert type(e).__name__ == type(t).__name__, name
    assert len(e) == len(t)
    for a, b in zip(e, t):
        assert a.tolist() == b.tolist()


def test_dispatch_mode_sees_lists_and_callers_tuples():
    from ember.utils._python_dispatch import TorchDispatchMode
    seen = []

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            r = func(*args, **(kwargs or {}))
            seen.append((str(func), type(r)))
            return r

    with Mode():
        parts = ember.split(ember.arange(6.0), 2)
    assert type(parts) is tuple and len(parts) == 3
    assert ("aten.split.Tensor", list) in seen
