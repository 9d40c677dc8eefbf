"""Functions PyTorch writes in Python over its ops (torch.functional): norm, chain_matmul."""
from . import _C
from .overrides import handle_torch_function, has_torch_function, has_torch_function_unary

__all__ = ["norm", "chain_matmul"]

_op = _C._op_functions


def _frobenius_norm(input, dim, keepdim, out):
    kwargs = {} if out is None else {"out": out}
    return _op["frobenius_norm"](input, list(dim), keepdim, **kwargs)


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
            if dtype is not None:
                raise ValueError("dtype argument is not supported in nuclear norm")
            kwargs = {} if out is None else {"out": out}
            if _dim is None:
                return _op["nuclear_norm"](input, keepdim=keepdim, **kwargs)
            return _op["nuclear_norm"](input, _dim, keepdim=keepdim, **kwargs)
        raise RuntimeError(f"only valid string values are 'fro' and 'nuc', found {p}")
    if _dim is None:
        _dim = list(range(ndim))
    kwargs = {} if out is None else {"out": out}
    if dtype is not None:
        kwargs["dtype"] = dtype
    return _op["norm"](input, p, _dim, keepdim, **kwargs)


def chain_matmul(*matrices, out=None):
    """The product of the matrices in the cheapest order (torch.chain_matmul, deprecated in favour
    of linalg.multi_dot)."""
    if has_torch_function(matrices):
        return handle_torch_function(chain_matmul, matrices, *matrices)
    kwargs = {} if out is None else {"out": out}
    return _op["chain_matmul"](list(matrices), **kwargs)
