"""Pinned memory on a machine without CUDA, against torch 1.13 (CPU-only): no tensor is pinned,
and pinning one raises a RuntimeError whose first sentence is torch's: a factory's or
ember.tensor's pin_memory=True, and Tensor.pin_memory() (a NotImplementedError: no kernel for
the CUDA backend). DataLoader(pin_memory=True) quietly does not pin,
as torch does without CUDA."""
import pytest
import torch

import ember

PREFIX = "Pinned memory requires CUDA."

CALLS = {
    "empty": lambda m: m.empty(2, pin_memory=True),
    "zeros": lambda m: m.zeros(2, 3, pin_memory=True),
    "randn": lambda m: m.randn(2, pin_memory=True),
    "tensor": lambda m: m.tensor([1.0], pin_memory=True),
    "arange": lambda m: m.arange(3, pin_memory=True),
    "empty_like": lambda m: m.empty_like(m.ones(2), pin_memory=True),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_pinning_raises_as_torch(name):
    for mod in (torch, ember):
        with pytest.raises(RuntimeError) as info:
            CALLS[name](mod)
        assert str(info.value).startswith(PREFIX), (mod.__name__, str(info.value))


def test_tensor_pin_memory_raises_as_torch():
    for mod in (torch, ember):
        with pytest.raises(NotImplementedError) as info:
            mod.ones(2).pin_memory()
        assert str(info.value).startswith(
            "Could not run 'aten::_pin_memory' with arguments from the 'CUDA' backend."), str(info.value)


def test_nothing_is_pinned():
    assert ember.ones(2).is_pinned() is False and torch.ones(2).is_pinned() is False
    assert ember.empty(2, pin_memory=False).shape == (2,)


def test_dataloader_pin_memory_is_quietly_off():
    for mod in (torch, ember):
        data = mod.utils.data
        loader = data.DataLoader(data.TensorDataset(mod.arange(4.0)), batch_size=2, pin_memory=True)
        (batch,) = next(iter(loader))
        assert batch.is_pinned() is False
        assert batch.tolist() == [0.0, 1.0]
