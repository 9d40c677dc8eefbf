"""Shared helpers of the quantized-op tests: the same codes and qparams as a torch 1.13 and an
ember quantized tensor, engines set on both, and bit-exact comparison of results."""
import contextlib

import numpy as np
import torch

import ember

ENGINES = ["qnnpack", "onednn"]
DTYPES = {"quint8": (np.uint8, 0, 255), "qint8": (np.int8, -128, 127), "qint32": (np.int32, -1000, 1000)}


@contextlib.contextmanager
def engine(name):
    """Sets torch's and ember's quantized engine for the block."""
    old_t, old_e = torch.backends.quantized.engine, ember.backends.quantized.engine
    torch.backends.quantized.engine = name
    ember.backends.quantized.engine = name
    try:
        yield
    finally:
        torch.backends.quantized.engine = old_t
        ember.backends.quantized.engine = old_e


def random_codes(rng, shape, dtype="quint8"):
    np_dtype, lo, hi = DTYPES[dtype]
    return rng.integers(lo, hi + 1, size=shape).astype(np_dtype)


def pair(codes, scale, zero_point, channels_last=False):
    """(torch, ember) quantized tensors holding `codes` with (scale, zero_point)."""
    tc = torch.from_numpy(np.require(codes, requirements='C'))
    ec = ember.from_numpy(np.require(codes, requirements='C'))
    if channels_last:
        tc = tc.contiguous(memory_format=torch.channels_last)
        ec = ec.contiguous(memory_format=ember.channels_last)
    # _make_per_tensor_quantized_tensor keeps the codes' layout (in both libraries).
    t = torch._make_per_tensor_quantized_tensor(tc, float(scale), int(zero_point))
    e = ember._make_per_tensor_quantized_tensor(ec, float(scale), int(zero_point))
    return t, e


def random_pair(rng, shape, dtype="quint8", channels_last=False, scale=None, zero_point=None):
    _, lo, hi = DTYPES[dtype]
    s = float(rng.uniform(0.002, 0.1)) if scale is None else scale
    z = int(rng.integers(max(lo, -200), min(hi, 255) + 1)) if zero_point is None else zero_point
    return pair(random_codes(rng, shape, dtype), s, z, channels_last)


def assert_same(t, e, check_layout=True):
    """Same shape, dtype, qparams, layout and every code."""
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype).replace("ember.", "") == str(t.dtype).replace("torch.", "")
    assert e.q_scale() == t.q_scale(), (e.q_scale(), t.q_scale())
    assert e.q_zero_point() == t.q_zero_point()
    tc, ec = t.int_repr().numpy(), e.int_repr().numpy()
    bad = np.argwhere(tc != ec)
    assert bad.size == 0, f"{len(bad)} of {tc.size} codes differ, first at {bad[:5].tolist()}: " \
                          f"torch {tc[tuple(bad[0])]} ember {ec[tuple(bad[0])]}"
    if check_layout and t.dim() == 4:
        assert e.is_contiguous(memory_format=ember.channels_last) == \
            t.is_contiguous(memory_format=torch.channels_last)
        assert e.is_contiguous() == t.is_contiguous()


def raises_same(fn_t, fn_e):
    """Both raise; same exception type name and message (ember. for torch.)."""
    try:
        fn_t()
    except Exception as exc:  # noqa: BLE001
        expected = exc
    else:
        raise AssertionError("torch did not raise")
    try:
        fn_e()
    except Exception as exc:  # noqa: BLE001
        got = exc
    else:
        raise AssertionError(f"ember did not raise (torch: {expected})")
    assert type(got).__name__ == type(expected).__name__, (got, expected)
    want = str(expected).split("\n")[0].replace("torch.", "ember.")
    have = str(got).split("\n")[0]
    # PyTorch's "Could not run ..." goes on with build advice and its backend list; ember's
    # message is its first sentences.
    assert have == want or (want.startswith("Could not run") and want.startswith(have.rstrip("."))), \
        (have, want)
