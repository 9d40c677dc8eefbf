"""unique(sorted=False) as torch 1.13's CPU kernel (Note [unique with sorted=False]): the
elements in the hash set's order, inverse indices and counts from value-keyed maps; sorted=True
and bool inputs sorted."""
import numpy as np
import pytest
import torch

import ember

DATA = [3, 1, 2, 3, 5, 1, 9, 0, 2, 7, 7, 4, 100, -3, 12, 5]


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "float32",
                                   "float64"])
@pytest.mark.parametrize("flags", [(False, False), (True, False), (False, True), (True, True)])
def test_unsorted_order_as_torch(dtype, flags):
    data = np.array(DATA if dtype != "uint8" else [abs(v) for v in DATA]).astype(dtype)
    inv, cnt = flags
    t = torch.unique(torch.tensor(data).reshape(4, 4), sorted=False, return_inverse=inv,
                     return_counts=cnt)
    e = ember.unique(ember.tensor(data).reshape(4, 4), sorted=False, return_inverse=inv,
                     return_counts=cnt)
    t = t if isinstance(t, tuple) else (t,)
    e = e if isinstance(e, tuple) else (e,)
    assert len(e) == len(t)
    for a, b in zip(e, t):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]


def test_method_and_sorted_and_bool():
    x = [5, 3, 5, 1]
    np.testing.assert_array_equal(ember.tensor(x).unique(sorted=False).numpy(),
                                  torch.tensor(x).unique(sorted=False).numpy())
    np.testing.assert_array_equal(ember.tensor(x).unique().numpy(), [1, 3, 5])
    b = [True, False, True]
    np.testing.assert_array_equal(ember.tensor(b).unique(sorted=False).numpy(),
                                  torch.tensor(b).unique(sorted=False).numpy())
