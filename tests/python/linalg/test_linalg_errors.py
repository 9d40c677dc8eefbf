"""ember.linalg's error types and texts against torch 1.13's."""
import pytest
import torch

import ember
from linalg_helpers import random_matrix, same_error, to_ember

S = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]])
A = random_matrix((3, 3), torch.float32, kind="wellcond")

CASES = [
    ("linalg.inv", (torch.randn(2, 3),), {}),
    ("linalg.inv", (torch.randn(3),), {}),
    ("linalg.inv", (torch.ones(3, 3, dtype=torch.long),), {}),
    ("linalg.inv", (torch.ones(3, 3, dtype=torch.half),), {}),
    ("linalg.inv", (torch.zeros(3, 3),), {}),
    ("linalg.inv", (S,), {}),
    ("linalg.inv", (torch.stack([A, S]),), {}),
    ("linalg.inv", (torch.stack([A, S]).reshape(2, 1, 3, 3),), {}),
    ("linalg.inv_ex", (S,), {"check_errors": True}),
    ("inverse", (S,), {}),
    ("linalg.det", (torch.randn(2, 3),), {}),
    ("linalg.det", (torch.ones(3, 3, dtype=torch.long),), {}),
    ("linalg.slogdet", (torch.randn(2, 3),), {}),
    ("logdet", (torch.randn(2, 3),), {}),
    ("linalg.cholesky", (-torch.eye(3),), {}),
    ("linalg.cholesky", (torch.stack([torch.eye(3), -torch.eye(3)]),), {}),
    ("linalg.cholesky", (torch.randn(2, 3),), {}),
    ("linalg.cholesky_ex", (-torch.eye(3),), {"check_errors": True}),
    ("linalg.solve", (S, torch.randn(3)), {}),
    ("linalg.solve", (A, torch.randn(4)), {}),
    ("linalg.solve", (A, torch.randn(4, 2)), {}),
    ("linalg.solve", (A, torch.randn(2, 4)), {"left": False}),
    ("linalg.solve", (A, torch.randn(3, 2, dtype=torch.double)), {}),
    ("linalg.solve", (torch.randn(2, 3), torch.randn(2)), {}),
    ("linalg.qr", (A,), {"mode": "foo"}),
    ("linalg.qr", (torch.randn(3),), {}),
    ("linalg.eigh", (A,), {"UPLO": "X"}),
    ("linalg.eigh", (torch.randn(2, 3),), {}),
    ("linalg.eigvalsh", (torch.randn(2, 3),), {}),
    ("linalg.svd", (torch.randn(3),), {}),
    ("linalg.svd", (A,), {"driver": "gesvd"}),
    ("linalg.svdvals", (torch.randn(3),), {}),
    ("linalg.lstsq", (A, torch.randn(3, 2)), {"driver": "foo"}),
    ("linalg.lstsq", (A, torch.randn(4, 2)), {}),
    ("linalg.lstsq", (A, torch.randn(4)), {}),
    ("linalg.lstsq", (torch.randn(3), torch.randn(3)), {}),
    ("linalg.lstsq", (A, torch.randn(3, 2, dtype=torch.double)), {}),
    ("linalg.vector_norm", (torch.ones(3, dtype=torch.long),), {}),
    ("linalg.vector_norm", (torch.zeros(0, 3),), {"ord": float("inf")}),
    ("linalg.matrix_norm", (A,), {"ord": 3}),
    ("linalg.matrix_norm", (A,), {"ord": "foo"}),
    ("linalg.matrix_norm", (torch.randn(3),), {}),
    ("linalg.matrix_norm", (A,), {"dim": (0, 0)}),
    ("linalg.norm", (torch.randn(2, 2, 2),), {"ord": "fro"}),
    ("linalg.norm", (torch.randn(2, 2, 2),), {"ord": 2}),
    ("linalg.cross", (torch.randn(3, 2), torch.randn(3, 2)), {}),
    ("linalg.cross", (torch.randn(3), torch.randn(2, 3)), {}),
    ("linalg.matrix_power", (torch.randn(2, 3), 2), {}),
    ("linalg.matrix_power", (torch.ones(3, 3, dtype=torch.long), -1), {}),
    ("linalg.matrix_exp", (torch.randn(2, 3),), {}),
    ("linalg.multi_dot", ([A],), {}),
    ("linalg.multi_dot", ([torch.randn(2, 3), torch.randn(4, 5)],), {}),
    ("linalg.multi_dot", ([torch.randn(2, 3, 3), torch.randn(3, 5)],), {}),
    ("linalg.vecdot", (A, torch.randn(3, 3, dtype=torch.double)), {}),
    ("linalg.solve_triangular", (A, torch.randn(3, 2)), {}),
    ("linalg.solve_triangular", (A, torch.randn(4, 2)), {"upper": True}),
    ("linalg.cond", (A,), {"p": 3}),
    ("linalg.cond", (torch.randn(2, 3),), {"p": 1}),
    ("linalg.tensorinv", (torch.randn(2, 3),), {"ind": 1}),
    ("linalg.tensorinv", (torch.randn(4, 4),), {"ind": 0}),
    ("nuclear_norm", (torch.randn(2, 2, 2),), {}),
    ("norm", (A, "abc"), {}),
]


def _resolve(lib, path):
    obj = lib
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("path,args,kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_error_matches_torch(path, args, kwargs):
    same_error(lambda: _resolve(ember, path)(*[to_ember(a) for a in args], **kwargs),
               lambda: _resolve(torch, path)(*args, **kwargs))


def test_linalg_error_type():
    with pytest.raises(ember.linalg.LinAlgError) as info:
        ember.linalg.inv(to_ember(S))
    assert isinstance(info.value, RuntimeError)
    # Bad input leaves nothing changed.
    s = to_ember(S)
    before = s.numpy().copy()
    with pytest.raises(RuntimeError):
        ember.linalg.cholesky(s)
    assert (s.numpy() == before).all()
