"""What the quantized-module tests share: carrying tensors and state_dicts from torch 1.13 to
ember (through int_repr / q_scale / numpy, as a user would without a checkpoint format), and a
minimal observer / qconfig that from_float reads by duck typing."""
from collections import OrderedDict

import numpy as np
import torch

import ember


def dtype_to_ember(dt):
    return getattr(ember, str(dt).split(".")[1])


def tensor_to_ember(t):
    """A torch tensor (quantized or not) as the equal ember tensor."""
    if t is None:
        return None
    if not t.is_quantized:
        return ember.from_numpy(t.detach().numpy().copy())
    codes = ember.from_numpy(t.int_repr().numpy().copy())
    if t.qscheme() in (torch.per_tensor_affine, torch.per_tensor_symmetric):
        return ember._make_per_tensor_quantized_tensor(codes, t.q_scale(), t.q_zero_point())
    scales = ember.from_numpy(t.q_per_channel_scales().numpy().copy())
    zps = ember.from_numpy(t.q_per_channel_zero_points().numpy().copy())
    return ember._make_per_channel_quantized_tensor(codes, scales, zps, t.q_per_channel_axis())


def tensor_to_torch(t):
    """An ember tensor (quantized or not) as the equal torch tensor."""
    if t is None:
        return None
    if not t.is_quantized:
        return torch.from_numpy(t.detach().numpy().copy())
    codes = torch.from_numpy(t.int_repr().numpy().copy())
    if t.qscheme() == ember.per_tensor_affine:
        return torch._make_per_tensor_quantized_tensor(codes, t.q_scale(), t.q_zero_point())
    scales = torch.from_numpy(t.q_per_channel_scales().numpy().copy())
    zps = torch.from_numpy(t.q_per_channel_zero_points().numpy().copy())
    return torch._make_per_channel_quantized_tensor(codes, scales, zps, t.q_per_channel_axis())


def value_to_ember(v):
    if isinstance(v, torch.Tensor):
        return tensor_to_ember(v)
    if isinstance(v, torch.dtype):
        return dtype_to_ember(v)
    if isinstance(v, tuple):
        return tuple(value_to_ember(x) for x in v)
    return v


def state_dict_to_ember(sd):
    """torch's state_dict (an OrderedDict with _metadata) with every value carried over."""
    out = OrderedDict((k, value_to_ember(v)) for k, v in sd.items())
    if hasattr(sd, "_metadata"):
        out._metadata = OrderedDict((k, dict(v)) for k, v in sd._metadata.items())
    return out


def same_quantized(a, b):
    """An ember and a torch quantized tensor with the same dtype, qparams and codes."""
    assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1], (a.dtype, b.dtype)
    assert a.shape == tuple(b.shape)
    if b.qscheme() == torch.per_tensor_affine:
        assert a.q_scale() == b.q_scale() and a.q_zero_point() == b.q_zero_point()
    else:
        assert np.array_equal(a.q_per_channel_scales().numpy(), b.q_per_channel_scales().numpy())
        assert np.array_equal(a.q_per_channel_zero_points().numpy(),
                              b.q_per_channel_zero_points().numpy())
    return np.array_equal(a.int_repr().numpy(), b.int_repr().numpy())


class StandInObserver(ember.nn.Module):
    """What from_float reads of an observer: a module with calculate_qparams, dtype, qscheme,
    quant_min / quant_max and ch_axis. Its qparams are given (typically those a real torch
    observer computed on the same data)."""

    def __init__(self, scale, zero_point, dtype=None, qscheme=None, quant_min=-128,
                 quant_max=127, ch_axis=0):
        super().__init__()
        self.scale = scale
        self.zero_point = zero_point
        self.dtype = dtype if dtype is not None else ember.qint8
        self.qscheme = qscheme if qscheme is not None else ember.per_tensor_symmetric
        self.quant_min = quant_min
        self.quant_max = quant_max
        self.ch_axis = ch_axis
        self.seen = []

    def forward(self, x):
        self.seen.append(x)
        return x

    def calculate_qparams(self):
        return self.scale, self.zero_point


def stand_in_from_torch(obs, dtype=None):
    """A StandInObserver with the qparams and settings of a torch observer that has run."""
    s, z = obs.calculate_qparams()
    return StandInObserver(tensor_to_ember(s), tensor_to_ember(z),
                           dtype=dtype_to_ember(obs.dtype),
                           qscheme=getattr(ember, str(obs.qscheme).split(".")[1]),
                           quant_min=obs.quant_min, quant_max=obs.quant_max,
                           ch_axis=getattr(obs, "ch_axis", 0))


class StandInQConfig:
    def __init__(self, weight_observer):
        self._w = weight_observer

    def weight(self):
        return self._w
