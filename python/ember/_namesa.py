"""Front-end names over the C++ ops of the namesa part (issue 16, public-API coverage).

The algorithms are C++ ops of the table (blas_more, math_more, calculus, search_more, view_inplace,
view_copies, random_more: every row is already `ember.<name>` / `Tensor.<name>`). This module adds
what PyTorch itself writes in Python or keeps as plain tensor attributes: `Tensor.H`, the device
and layout flags an ember tensor answers False to, `is_inference` / `is_neg` / `is_distributed` /
`is_set_to`, the legacy `volatile` / `_grad` / `_grad_fn` / `_cdata` attributes, `apply_` / `map_` /
`map2_` (Python callables on CPU values), the deprecated `resize` / `resize_as`, `names` /
`has_names` (ember's tensors are all unnamed), `_assert_async`, `histogramdd`
(over `_histogramdd_bin_edges` / `_histogramdd_from_bin_cts` / `_from_bin_tensors`, as
PyTorch's binding calls them), and `gradient`'s list-of-numbers spacing.
"""
import warnings

from . import _C
from .overrides import handle_torch_function, has_torch_function

_op = _C._op_functions


def _tf(fn, args, *a, **k):
    return handle_torch_function(fn, args, *a, **k)


# ---- torch.* functions ----

def is_inference(input):
    """False: ember has no inference tensors (inference_mode only records no graph)."""
    if has_torch_function((input,)):
        return _tf(is_inference, (input,), input)
    return False


def is_neg(input):
    """False: ember has no lazy negative views (`_neg_view` is never taken)."""
    if has_torch_function((input,)):
        return _tf(is_neg, (input,), input)
    return False


def is_distributed(input):
    """False: no ember tensor is a distributed tensor."""
    if has_torch_function((input,)):
        return _tf(is_distributed, (input,), input)
    return False


def _assert_async(input):
    """Raises unless the one-element tensor is nonzero (the check runs at once on CPU)."""
    if has_torch_function((input,)):
        return _tf(_assert_async, (input,), input)
    if input.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    if not bool(input.item()):
        raise RuntimeError("Expected Tensor with single nonzero value, but got zero")


class _HistogramddResult(tuple):
    """`ember.return_types.histogramdd`: (hist, bin_edges), a tuple with named fields."""
    n_fields = n_sequence_fields = 2
    n_unnamed_fields = 0

    def __new__(cls, values):
        values = tuple(values)
        if len(values) != 2:
            raise TypeError(f"ember.return_types.histogramdd takes a 2-sequence ({len(values)}-sequence given)")
        return super().__new__(cls, values)

    hist = property(lambda self: self[0])
    bin_edges = property(lambda self: self[1])

    def __repr__(self):
        return f"ember.return_types.histogramdd(\nhist={self[0]!r},\nbin_edges={self[1]!r})"

    def __reduce__(self):
        return (_HistogramddResult, (tuple(self),))


_HistogramddResult.__name__ = _HistogramddResult.__qualname__ = "histogramdd"
_HistogramddResult.__module__ = "ember.return_types"


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """The D-dimensional histogram of input's points (its innermost dim holds the D coordinates):
    (hist, bin_edges) with one edge tensor per dim. bins: an int (every dim), a list of ints, or a
    list of 1-d edge tensors."""
    if has_torch_function((input,)):
        return _tf(histogramdd, (input,), input, bins, range=range, weight=weight, density=density)
    if isinstance(bins, int):
        bins = [bins] * (input.size(-1) if input.dim() > 0 else 1)
    bins = list(bins)
    if bins and not isinstance(bins[0], int):
        hist = _op["_histogramdd_from_bin_tensors"](input, bins, weight=weight, density=density)
        return _HistogramddResult((hist, tuple(bins)))
    edges = _op["_histogramdd_bin_edges"](input, bins, range=range, weight=weight, density=density)
    hist = _op["_histogramdd_from_bin_cts"](input, bins, range=range, weight=weight, density=density)
    return _HistogramddResult((hist, tuple(edges)))


_gradient_op = _op["gradient"]


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Finite-difference estimates of input's derivative along each dim (ember.gradient): spacing
    a number, a list of numbers (one step per dim), or a list of coordinate tensors."""
    if has_torch_function((input,)):
        return _tf(gradient, (input,), input, spacing=spacing, dim=dim, edge_order=edge_order)
    if isinstance(spacing, (list, tuple)) and spacing and not any(hasattr(s, "dim") for s in spacing):
        # Scalar[] spacing: one uniform step per dim (a single one for every dim).
        dims = [dim] if isinstance(dim, int) else list(dim) if dim is not None else list(_builtin_range(input.dim()))
        if len(spacing) not in (1, len(dims)):
            raise RuntimeError(
                f"ember.gradient expected spacing to be unspecified, a scalar or a list of length {len(dims)} but "
                f"got a list of length {len(spacing)}")
        steps = list(spacing) * len(dims) if len(spacing) == 1 else list(spacing)
        _gradient_op(input, dim=dims, edge_order=edge_order)  # checks dims and edge_order as a whole
        return tuple(_gradient_op(input, spacing=s, dim=[d], edge_order=edge_order)[0] for s, d in zip(steps, dims))
    if isinstance(spacing, (list, tuple)):
        spacing = list(spacing)
    if dim is None:
        return tuple(_gradient_op(input, spacing=spacing, edge_order=edge_order))
    return tuple(_gradient_op(input, spacing=spacing, dim=dim, edge_order=edge_order))


_builtin_range = range

# ---- Tensor attributes and methods ----


def _flag_false(self):
    return False


def _H(self):
    if self.dim() == 0:
        return self
    if self.dim() != 2:
        batches = " For batches of matrices, consider using tensor.mH" if self.dim() > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.{batches}")
    return self.adjoint()


def _volatile(self):
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def _names(self):
    return (None,) * self.dim()


def _has_names(self):
    return False


def _is_set_to(self, tensor):
    if has_torch_function((self, tensor)):
        return _tf(_Tensor.is_set_to, (self, tensor), self, tensor)
    return _C._is_set_to(self, tensor)


def _check_apply(self, name):
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")
    if self.device.type != "cpu":
        raise RuntimeError(f"{name}_ is only implemented on CPU tensors")


def _write_values(self, values):
    from . import tensor
    self.copy_(tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _flat_values(t):
    return t.contiguous().reshape(-1).tolist()


def _apply_(self, callable):
    """self[i] = callable(self[i]) for every element (CPU, no autograd; slow: a Python call each)."""
    _check_apply(self, "apply_")
    return _write_values(self, [callable(v) for v in _flat_values(self)])


def _map_(self, tensor, callable):
    """self[i] = callable(self[i], tensor[i]), tensor broadcast to self's shape."""
    _check_apply(self, "map_")
    other = _flat_values(tensor.expand_as(self))
    return _write_values(self, [callable(a, b) for a, b in zip(_flat_values(self), other)])


def _map2_(self, x, y, callable):
    """self[i] = callable(self[i], x[i], y[i]), x and y broadcast to self's shape."""
    _check_apply(self, "map2_")
    xs, ys = _flat_values(x.expand_as(self)), _flat_values(y.expand_as(self))
    return _write_values(self, [callable(a, b, c) for a, b, c in zip(_flat_values(self), xs, ys)])


def _resize(self, *sizes):
    """Deprecated: a reshaped copy with the same number of elements (autograd records it)."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = tuple(sizes[0])
    numel = 1
    for s in sizes:
        numel *= s
    if numel != self.numel():
        shape = "x".join(str(s) for s in sizes)
        have = "x".join(str(s) for s in self.shape)
        raise RuntimeError(
            f"requested resize to {shape} ({numel} elements in total), but the given tensor has a size of {have} "
            f"({self.numel()} elements). autograd's resize can only change the shape of a given tensor, while "
            "preserving the number of elements. ")
    return self.contiguous().view(sizes)


def _resize_as(self, tensor):
    """Deprecated: resize(tensor.size())."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _resize(self, tuple(tensor.shape))


_Tensor = None


def install(namespace, Tensor):
    global _Tensor
    _Tensor = Tensor
    for flag in ("is_sparse_csr", "is_mps", "is_ipu", "is_xpu", "is_vulkan", "is_ort"):
        setattr(Tensor, flag, property(_flag_false))
    Tensor.H = property(_H)
    Tensor.volatile = property(_volatile)
    Tensor.names = property(_names)
    Tensor.name = property(lambda self: None)
    Tensor.has_names = _has_names
    Tensor._grad = property(lambda self: self.grad)
    Tensor._grad_fn = property(lambda self: self.grad_fn)
    Tensor._cdata = property(lambda self: _C._tensor_cdata(self))
    Tensor.is_inference = is_inference
    Tensor.is_neg = is_neg
    Tensor.is_distributed = is_distributed
    Tensor.is_set_to = _is_set_to
    Tensor.apply_ = _apply_
    Tensor.map_ = _map_
    Tensor.map2_ = _map2_
    Tensor.resize = _resize
    Tensor.resize_as = _resize_as
    for name in ("is_inference", "is_neg", "is_distributed", "_assert_async", "histogramdd", "gradient"):
        namespace[name] = globals()[name]
        globals()[name].__module__ = "ember"
    # The private aten names torch exposes as torch.<name> (the rest come from the op table).
    for name in ("_reshape_alias_copy", "_neg_view_copy"):
        namespace[name] = _op[name]
    from . import return_types
    return_types.histogramdd = _HistogramddResult
