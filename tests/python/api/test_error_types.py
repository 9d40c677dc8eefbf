"""Each C++ error class becomes the Python exception PyTorch raises (issue 17): ember::IndexError
an IndexError, ember::ValueError a ValueError, ... ember::LinAlgError ember.linalg.LinAlgError
(a RuntimeError, as torch.linalg.LinAlgError), a plain ember::Error a RuntimeError. Each case
provokes the same error in ember and in torch 1.13 and compares the types and the texts (with
`ember.` for `torch.`)."""
import pytest
import torch

import ember


def _opt_without_initial_lr(m):
    lib = m
    p = lib.nn.Parameter(lib.ones(2))
    return lib.optim.lr_scheduler.StepLR(lib.optim.SGD([p], lr=0.1), 1, last_epoch=0)


CASES = {
    # C++ class: (provoke(lib), torch's exception type)
    "IndexError": (lambda m: m.zeros(3)[5], IndexError),
    "ValueError": (lambda m: m.nn.Dropout(1.5), ValueError),
    "KeyError": (_opt_without_initial_lr, KeyError),
    "NotImplementedError": (
        lambda m: m.nn.functional.pad(m.ones(1, 1, 2, 2), (1, 1, 1, 1, 1, 1, 1, 1), mode="reflect"),
        NotImplementedError),
    "AttributeError": (lambda m: m.nn.Linear(2, 2).get_submodule("nope"), AttributeError),
    "AssertionError": (lambda m: m.ao.quantization.MinMaxObserver(dtype=m.int32), AssertionError),
    "LinAlgError": (lambda m: m.linalg.cholesky(-m.eye(2)), torch.linalg.LinAlgError),
    "Error": (lambda m: m.ones(2, 3).mm(m.ones(2, 3)), RuntimeError),
    "OutOfMemoryError": (lambda m: m.empty(2 ** 50), RuntimeError),
}


def _raise(fn, lib):
    with pytest.raises(Exception) as info:
        fn(lib)
    return info.value


@pytest.mark.parametrize("name", sorted(CASES))
def test_python_exception_type_matches_torch(name):
    fn, torch_type = CASES[name]
    e_torch = _raise(fn, torch)
    e_ember = _raise(fn, ember)
    assert isinstance(e_torch, torch_type)
    if torch_type is torch.linalg.LinAlgError:
        assert type(e_ember) is ember.linalg.LinAlgError
        assert issubclass(ember.linalg.LinAlgError, RuntimeError)
    else:
        assert type(e_ember) is torch_type, (type(e_ember), e_ember)
    if name != "OutOfMemoryError":  # the byte counts and the allocator's source location differ
        assert str(e_ember) == str(e_torch).replace("torch.", "ember."), (str(e_ember), str(e_torch))
