"""ember.testing.assert_close (torch.testing.assert_close of torch 1.13).

Inputs are first matched into pairs (sequences element by element, mappings key by key), then
each pair is compared: None with None, bools by identity, Python / NumPy numbers as scalars, and
tensor-likes (ember Tensors, or NumPy arrays and other objects `ember.as_tensor` takes when both
sides are of related types) by attributes and then values. The first failure is raised with
PyTorch's message texts (`ember.` where PyTorch prints `torch.`).
"""
import cmath
import collections.abc
import contextlib

import numpy as np

import ember

__all__ = ["assert_close"]


class _Failure(Exception):
    """A user-facing failure found while matching or comparing: the exception type, the text,
    and the path of the item inside the containers."""

    def __init__(self, exc_type, msg, path=()):
        super().__init__(msg)
        self.exc_type, self.msg, self.path = exc_type, msg, path

    def to_error(self, msg=None):
        if isinstance(msg, str):
            return self.exc_type(msg)
        text = self.msg
        if self.path:
            text += "\n\nThe failure occurred for item " + "".join(str([k]) for k in self.path)
        return self.exc_type(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    pass


def _precisions():
    table = {ember.float16: (1e-3, 1e-5), ember.bfloat16: (1.6e-2, 1e-5),
             ember.float32: (1.3e-6, 1e-5), ember.float64: (1e-7, 1e-7),
             ember.complex64: (1.3e-6, 1e-5), ember.complex128: (1e-7, 1e-7)}
    if hasattr(ember, "complex32"):
        table[ember.complex32] = (1e-3, 1e-5)
    for name in ("quint8", "quint2x4", "quint4x2", "qint8", "qint32"):
        if hasattr(ember, name):
            table[getattr(ember, name)] = table[ember.float32]
    return table


_DTYPE_PRECISIONS = _precisions()
_NUMBER_DTYPES = {int: ember.int64, float: ember.float64, complex: ember.complex128}


def _tolerances(dtypes, rtol, atol, path):
    if (rtol is None) != (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                       "but got no {}.".format("rtol" if rtol is None else "atol"), path)
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*[_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


# ---- messages ------------------------------------------------------------------------------

def _mismatch_msg(identifier, default, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0
    if identifier is None:
        identifier = default
    elif callable(identifier):
        identifier = identifier(default)
    lines = ["{} are not {}!\n".format(identifier, "equal" if equality else "close")]
    if extra:
        lines.append(extra.strip())
    for kind, diff, idx, tol in (("absolute", abs_diff, abs_idx, atol),
                                 ("relative", rel_diff, rel_idx, rtol)):
        line = ("{} difference: {}".format(kind.title(), diff) if idx is None
                else "Greatest {} difference: {} at index {}".format(kind, diff, idx))
        lines.append(line if equality else line + " (up to {} allowed)".format(tol))
    return "\n".join(lines).strip()


def _scalar_msg(actual, expected, rtol, atol, identifier=None):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(identifier, "Scalars", None, abs_diff, None, atol, rel_diff, None, rtol)


def _tensor_msg(actual, expected, mismatches, rtol, atol, identifier=None):
    shape = tuple(mismatches.shape)

    def unravel(flat):
        return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()

    total = int(mismatches.sum().item())
    numel = mismatches.numel()
    extra = "Mismatched elements: {} / {} ({:.1%})".format(total, numel, total / numel)
    matched = ~mismatches.flatten()
    abs_diff = (actual.flatten() - expected.flatten()).abs()
    abs_diff[matched] = 0
    max_abs, abs_idx = ember.max(abs_diff, 0)
    rel_diff = abs_diff / expected.flatten().abs()
    rel_diff[matched] = 0
    max_rel, rel_idx = ember.max(rel_diff, 0)
    return _mismatch_msg(identifier, "Tensor-likes", extra, max_abs.item(), unravel(int(abs_idx)),
                         atol, max_rel.item(), unravel(int(rel_idx)), rtol)


# ---- pairs ---------------------------------------------------------------------------------

def _none_pair(actual, expected, path, opts):
    if actual is not None and expected is not None:
        raise _Unsupported

    def compare():
        if not (actual is None and expected is None):
            raise _Failure(AssertionError,
                           "None mismatch: {} is not {}".format(actual, expected), path)
    return compare


def _bool_pair(actual, expected, path, opts):
    if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
        raise _Unsupported
    actual, expected = bool(actual), bool(expected)

    def compare():
        if actual is not expected:
            raise _Failure(AssertionError,
                           "Booleans mismatch: {} is not {}".format(actual, expected), path)
    return compare


def _number_pair(actual, expected, path, opts):
    if not all(isinstance(x, (int, float, complex, np.number)) for x in (actual, expected)):
        raise _Unsupported
    actual, expected = [x.item() if isinstance(x, np.number) else x for x in (actual, expected)]
    rtol, atol = _tolerances([_NUMBER_DTYPES[type(x)] for x in (actual, expected)],
                             opts["rtol"], opts["atol"], path)

    def compare():
        if opts["check_dtype"] and type(actual) is not type(expected):
            raise _Failure(AssertionError, "The (d)types do not match: {} != {}.".format(
                type(actual), type(expected)), path)
        if actual == expected:
            return
        if opts["equal_nan"] and cmath.isnan(actual) and cmath.isnan(expected):
            return
        diff = abs(actual - expected)
        if cmath.isfinite(diff) and diff <= atol + rtol * abs(expected):
            return
        raise _Failure(AssertionError, _scalar_msg(actual, expected, rtol, atol), path)
    return compare


def _as_tensor(x):
    if isinstance(x, ember.Tensor):
        return x
    try:
        return ember.as_tensor(x)
    except Exception:  # noqa: BLE001 - anything as_tensor refuses is not tensor-like
        raise _Unsupported from None


def _tensor_pair(actual, expected, path, opts):
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported
    if not opts["allow_subclasses"] and type(actual) is not type(expected):
        raise _Unsupported
    actual, expected = _as_tensor(actual), _as_tensor(expected)
    for t in (actual, expected):
        if t.layout != ember.strided:
            raise _Failure(ValueError, "Unsupported tensor layout {}".format(t.layout), path)
    rtol, atol = _tolerances([actual.dtype, expected.dtype], opts["rtol"], opts["atol"], path)

    def mismatch(name, a, b):
        raise _Failure(AssertionError, "The values for attribute '{}' do not match: {} != {}."
                       .format(name, a, b), path)

    def compare():
        a, b = actual, expected
        if a.shape != b.shape:
            mismatch("shape", a.shape, b.shape)
        if a.is_quantized != b.is_quantized:
            mismatch("is_quantized", a.is_quantized, b.is_quantized)
        elif a.is_quantized and a.qscheme() != b.qscheme():
            mismatch("qscheme()", a.qscheme(), b.qscheme())
        if a.layout != b.layout:
            if opts["check_layout"]:
                mismatch("layout", a.layout, b.layout)
        elif opts["check_stride"] and a.stride() != b.stride():
            mismatch("stride()", a.stride(), b.stride())
        if opts["check_device"] and a.device != b.device:
            mismatch("device", a.device, b.device)
        if opts["check_dtype"] and a.dtype != b.dtype:
            mismatch("dtype", a.dtype, b.dtype)
        if a.device.type == "meta" or b.device.type == "meta":
            return
        identifier = None
        if a.is_quantized:
            a, b = a.dequantize(), b.dequantize()
            identifier = lambda default: "Quantized " + default.lower()  # noqa: E731
        elif a.dtype != b.dtype:
            common = ember.promote_types(a.dtype, b.dtype)
            a, b = a.to(common), b.to(common)
        _compare_values(a, b, rtol, atol, opts["equal_nan"], identifier, path)
    return compare


def _compare_values(a, b, rtol, atol, equal_nan, identifier, path):
    # Compared in the widest type of their kind, as PyTorch does.
    if a.dtype.is_complex:
        wide = ember.complex128
    elif a.dtype.is_floating_point:
        wide = ember.float64
    else:
        wide = ember.int64
    a, b = a.detach().to(wide), b.detach().to(wide)
    matches = ember.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if bool(ember.all(matches)):
        return
    if a.dim() == 0:
        msg = _scalar_msg(a.item(), b.item(), rtol, atol, identifier)
    else:
        msg = _tensor_msg(a, b, ~matches, rtol, atol, identifier)
    raise _Failure(AssertionError, msg, path)


_PAIR_KINDS = (_none_pair, _bool_pair, _number_pair, _tensor_pair)


def _pairs(actual, expected, path, opts):
    """The comparisons to make, in order (a container mismatch fails at once)."""
    seq = collections.abc.Sequence
    if (isinstance(actual, seq) and not isinstance(actual, str)
            and isinstance(expected, seq) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, "The length of the sequences mismatch: {} != {}"
                           .format(len(actual), len(expected)), path)
        out = []
        for i in range(len(actual)):
            out += _pairs(actual[i], expected[i], path + (i,), opts)
        return out
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        keys_a, keys_e = set(actual.keys()), set(expected.keys())
        if keys_a != keys_e:
            raise _Failure(AssertionError,
                           "The keys of the mappings do not match:\n"
                           "Missing keys in the actual mapping: {}\n"
                           "Additional keys in the actual mapping: {}".format(
                               sorted(keys_e - keys_a), sorted(keys_a - keys_e)), path)
        keys = keys_a
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        out = []
        for k in keys:
            out += _pairs(actual[k], expected[k], path + (k,), opts)
        return out
    for kind in _PAIR_KINDS:
        try:
            return [kind(actual, expected, path, opts)]
        except _Unsupported:
            continue
    raise _Failure(TypeError, "No comparison pair was able to handle inputs of type {} and {}."
                   .format(type(actual), type(expected)), path)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Asserts that `actual` and `expected` are close: |actual - expected| <= atol + rtol *
    |expected| elementwise, with per-dtype default tolerances (float32: rtol 1.3e-6, atol 1e-5;
    float64: 1e-7, 1e-7; integers: exact), after matching shape, device, dtype and layout.
    Sequences and mappings are compared element by element. `msg` replaces the message (a
    callable gets the generated one)."""
    __tracebackhide__ = True
    opts = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                check_stride=check_stride)
    try:
        comparisons = _pairs(actual, expected, (), opts)
    except _Failure as failure:
        raise failure.to_error() from None
    for compare in comparisons:
        try:
            compare()
        except _Failure as failure:
            raise failure.to_error(msg) from None
