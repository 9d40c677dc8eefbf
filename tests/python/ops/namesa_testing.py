"""Helpers shared by the test_namesa_*.py files: torch tensors as ember tensors, and the check
that ember raises what torch 1.13 raises with the same first line of text (ember. for torch.)."""
import pytest

import ember


def E(t):
    """An ember copy of a torch tensor (values, shape, dtype)."""
    return ember.from_numpy(t.detach().numpy().copy())


def same_error(fn_torch, fn_ember, exc=RuntimeError):
    with pytest.raises(exc) as want:
        fn_torch()
    with pytest.raises(exc) as got:
        fn_ember()
    assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0].replace("torch.", "ember.")
