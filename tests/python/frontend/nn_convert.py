"""Moving values between torch and ember in the nn / optim tests (ember has no tensor(data) or
tolist yet, so values go element by element through full() / stack() and item())."""
import torch

import ember


def _build(values, dtype):
    if isinstance(values, list):
        if not values:
            return ember.zeros(0, dtype=dtype)
        return ember.stack([_build(v, dtype) for v in values])
    return ember.full((), values, dtype=dtype)


def E(t):
    """A torch tensor (or nested list) as an ember tensor with the same values and dtype."""
    if isinstance(t, torch.Tensor):
        dtype = getattr(ember, str(t.dtype).split(".")[1])
        return _build(t.detach().tolist(), dtype)
    return _build(t, ember.float32)


def to_list(t):
    if t.dim() == 0:
        return t.item()
    return [to_list(x) for x in t.unbind(0)]


def T(t):
    """An ember tensor as a torch tensor."""
    return torch.tensor(to_list(t.detach()))
