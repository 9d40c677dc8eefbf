"""Functions PyTorch writes in Python over its ops (torch.functional): norm."""
from . import _C
from .overrides import handle_torch_function, has_torch_function_unary

__all__ = ["norm"]

_op = _C._op_functions


def _frobenius_norm(input, dim, keepdim, out):
    # aten::frobenius_norm.dim: one dim or none is the 2-norm; two dims are sqrt(sum(x * x)).
    dim = list(dim)
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")
    kwargs = {} if out is None else {"out": out}
    if len(dim) <= 1:
        return _op["norm"](input, 2, dim, keepdim, **kwargs)
    ndim = max(input.dim(), 1)
    if dim[0] % ndim == dim[1] % ndim:
        raise RuntimeError(f"Expected dims to be different, got {dim} instead")
    return _op["sqrt"](_op["sum"](input * input, dim, keepdim), **kwargs)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """The matrix or vector norm of input (torch.norm): p a number, "fro" or "nuc"."""
    if has_torch_function_unary(input):
        return handle_torch_function(norm, (input,), input, p=p, dim=dim, keepdim=keepdim,
                                     out=out, dtype=dtype)
    ndim = input.dim()
    if dim is None and out is None and dtype is None and p is not None:
        if isinstance(p, str):
            if p == "fro":
                return _frobenius_norm(input, (), keepdim, None)
        else:
            return _op["norm"](input, p, list(range(ndim)), keepdim=keepdim)
    _dim = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro":
            if dtype is not None:
                raise ValueError("dtype argument is not supported in frobenius norm")
            return _frobenius_norm(input, list(range(ndim)) if _dim is None else _dim, keepdim, out)
        if p == "nuc":
            # the nuclear norm is a sum of singular values; ember has no SVD (docs/compatibility.md)
            raise NotImplementedError("ember.norm(p='nuc'): the nuclear norm needs an SVD, which "
                                      "ember does not have")
        raise RuntimeError(f"only valid string values are 'fro' and 'nuc', found {p}")
    if _dim is None:
        _dim = list(range(ndim))
    kwargs = {} if out is None else {"out": out}
    if dtype is not None:
        kwargs["dtype"] = dtype
    return _op["norm"](input, p, _dim, keepdim, **kwargs)
