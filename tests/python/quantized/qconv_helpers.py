"""Shared by the quantized conv / linear op tests: the same quantized tensors built in ember and
in torch 1.13 (from the same float data and qparams), the engine switch for both, and the
comparison rules (qnnpack: every code equal; onednn: within 1 LSB on >= 99.9 % of codes)."""
import contextlib

import numpy as np
import torch

import ember

Q = ember.ops.quantized
TQ = torch.ops.quantized
ENGINES = ["qnnpack", "onednn"]


@contextlib.contextmanager
def engine(name):
    """Both libraries on the same quantized engine for the block."""
    old_e, old_t = ember.backends.quantized.engine, torch.backends.quantized.engine
    ember.backends.quantized.engine = name
    torch.backends.quantized.engine = name
    try:
        yield
    finally:
        ember.backends.quantized.engine = old_e
        torch.backends.quantized.engine = old_t


def quantize_both(x, scale, zero_point, dtype_name, channels_last=False):
    """x: float32 numpy array -> (ember, torch) per-tensor quantized tensors."""
    xe, xt = ember.from_numpy(x.copy()), torch.from_numpy(x.copy())
    if channels_last:  # quantizing keeps the float tensor's layout
        xe = xe.contiguous(memory_format=ember.channels_last)
        xt = xt.contiguous(memory_format=torch.channels_last)
    e = ember.quantize_per_tensor(xe, scale, zero_point, getattr(ember, dtype_name))
    t = torch.quantize_per_tensor(xt, scale, zero_point, getattr(torch, dtype_name))
    if channels_last:
        assert e.is_contiguous(memory_format=ember.channels_last)
    return e, t


def quantize_weight_both(w, scales, zero_points):
    """Per tensor when scales is a float, per channel (axis 0) when it is an array."""
    if np.isscalar(scales):
        return quantize_both(w, float(scales), int(zero_points), "qint8")
    e = ember.quantize_per_channel(ember.from_numpy(w.copy()),
                                   ember.from_numpy(np.asarray(scales, np.float64)),
                                   ember.from_numpy(np.asarray(zero_points, np.int64)), 0,
                                   ember.qint8)
    t = torch.quantize_per_channel(torch.from_numpy(w.copy()),
                                   torch.from_numpy(np.asarray(scales, np.float64)),
                                   torch.from_numpy(np.asarray(zero_points, np.int64)), 0,
                                   torch.qint8)
    return e, t


def codes(t):
    """The integer codes of an ember or torch quantized tensor as numpy (logical order)."""
    return t.int_repr().contiguous().numpy().astype(np.int64)


def assert_codes_match(e, t, engine_name):
    assert tuple(e.shape) == tuple(t.shape)
    assert e.q_scale() == t.q_scale() and e.q_zero_point() == t.q_zero_point()
    a, b = codes(e), codes(t)
    if engine_name == "qnnpack":
        np.testing.assert_array_equal(a, b)
        return
    diff = np.abs(a - b)
    assert diff.max(initial=0) <= 1, f"max |diff| {diff.max()} LSB"
    if diff.size:
        assert (diff == 0).mean() >= 0.999, f"{(diff != 0).sum()} of {diff.size} codes differ"
