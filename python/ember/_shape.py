"""The shape functions PyTorch writes in Python over its ops (torch.functional): variadic
forms (einsum, meshgrid, cartesian_prod, block_diag, broadcast_tensors, atleast_Nd), unique /
unique_consecutive with their optional results, and tensordot's `dims` forms. The algorithms are
the C++ ops of the table (ember._C); these only shape the arguments, as torch.functional does.
"""
import warnings

from . import _C
from .overrides import handle_torch_function, has_torch_function

__all__ = ["index_fill", "einsum", "meshgrid", "cartesian_prod", "block_diag", "broadcast_tensors", "atleast_1d",
           "atleast_2d", "atleast_3d", "unique", "unique_consecutive", "tensordot"]

_op = _C._op_functions


def _unpack(tensors):
    # f(a, b) and f([a, b]) are the same call, as in torch.functional.
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(tensors[0])
    return tensors


index_fill = _C._make_op_function("index_fill", ["aten::index_fill.int_Tensor", "aten::index_fill.int_Scalar"], False)
index_fill.__module__ = "ember"


def broadcast_tensors(*tensors):
    """The tensors expanded to their common shape (views)."""
    if has_torch_function(tensors):
        return handle_torch_function(broadcast_tensors, tensors, *tensors)
    return tuple(_op["broadcast_tensors"](list(tensors)))


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 1-d tensors; indexing "ij" (matrix) or "xy" (Cartesian)."""
    tensors = _unpack(tensors)
    if has_torch_function(tensors):
        return handle_torch_function(meshgrid, tensors, *tensors, indexing=indexing)
    if indexing is None:
        warnings.warn("ember.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    return tuple(_op["meshgrid"](list(tensors), indexing=indexing))


def cartesian_prod(*tensors):
    """The Cartesian product of 1-d tensors, one row per combination."""
    if has_torch_function(tensors):
        return handle_torch_function(cartesian_prod, tensors, *tensors)
    return _op["cartesian_prod"](list(tensors))


def block_diag(*tensors):
    """A block diagonal matrix of the given (at most 2-d) tensors."""
    if has_torch_function(tensors):
        return handle_torch_function(block_diag, tensors, *tensors)
    return _op["block_diag"](list(tensors))


def _atleast(name):
    def fn(*tensors):
        tensors = tensors[0] if len(tensors) == 1 else tensors
        if has_torch_function(tensors if isinstance(tensors, (list, tuple)) else (tensors,)):
            args = tensors if isinstance(tensors, (list, tuple)) else (tensors,)
            return handle_torch_function(fn, args, *args)
        if isinstance(tensors, (list, tuple)):
            return tuple(_op[name](list(tensors)))
        return _op[name](tensors)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"The tensors viewed with at least {name[-2]} dimensions (torch.{name})."
    return fn


atleast_1d = _atleast("atleast_1d")
atleast_2d = _atleast("atleast_2d")
atleast_3d = _atleast("atleast_3d")


def _sublist_label(i):
    if i is Ellipsis:
        return "..."
    if 0 <= i < 26:
        return chr(ord("A") + i)
    if 26 <= i < 52:
        return chr(ord("a") + i - 26)
    raise ValueError(f"einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(*args):
    """Einstein summation: einsum("ij,jk->ik", a, b), or the sublist form einsum(a, [0, 1], b, [1, 2])."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
    else:
        # operand, sublist, operand, sublist, ..., [output sublist]
        operands = args[0::2][: len(args) // 2]
        subs = [args[i] for i in range(1, len(args), 2)]
        equation = ",".join("".join(_sublist_label(i) for i in s) for s in subs)
        if len(args) % 2 == 1:
            equation += "->" + "".join(_sublist_label(i) for i in args[-1])
    if has_torch_function(operands):
        return handle_torch_function(einsum, operands, equation, *operands)
    return _op["einsum"](equation, list(operands))


def tensordot(a, b, dims=2, out=None):
    """Contracts a and b over dims: an int (the last dims of a with the first of b) or two lists."""
    if has_torch_function((a, b)):
        return handle_torch_function(tensordot, (a, b), a, b, dims=dims, out=out)
    if not isinstance(dims, (tuple, list, int)) and not hasattr(dims, "numel"):
        raise RuntimeError("tensordot expects dims to be int or Tuple[List[int], List[int]] or "
                           f"List[List[int]] containing two lists, but got dims={dims}")
    if hasattr(dims, "numel"):
        dims = dims.tolist() if dims.numel() > 1 else int(dims.item())
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = dims
    dims_a = [dims_a] if isinstance(dims_a, int) else list(dims_a)
    dims_b = [dims_b] if isinstance(dims_b, int) else list(dims_b)
    result = _op["tensordot"](a, b, dims_a, dims_b)
    if out is None:
        return result
    out.resize_(result.shape)
    return out.copy_(result)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The unique elements (or slices along dim), sorted; optionally where each input element went
    (return_inverse) and how many there were (return_counts)."""
    if has_torch_function((input,)):
        return handle_torch_function(unique, (input,), input, sorted=sorted, return_inverse=return_inverse,
                                     return_counts=return_counts, dim=dim)
    if dim is not None:
        output, inverse, counts = _op["unique_dim"](input, dim, sorted=sorted, return_inverse=return_inverse,
                                                    return_counts=return_counts)
    else:
        output, inverse, counts = _C._op_functions["_unique2"](input, sorted=sorted, return_inverse=return_inverse,
                                                               return_counts=return_counts)
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapses each run of equal consecutive elements (or slices along dim) to one."""
    if has_torch_function((input,)):
        return handle_torch_function(unique_consecutive, (input,), input, return_inverse=return_inverse,
                                     return_counts=return_counts, dim=dim)
    output, inverse, counts = _op["unique_consecutive"](input, return_inverse=return_inverse,
                                                        return_counts=return_counts, dim=dim)
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def _install_methods(Tensor):
    def unique_method(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        return unique(self, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts, dim=dim)

    def unique_consecutive_method(self, return_inverse=False, return_counts=False, dim=None):
        return unique_consecutive(self, return_inverse=return_inverse, return_counts=return_counts, dim=dim)

    unique_method.__name__ = "unique"
    unique_consecutive_method.__name__ = "unique_consecutive"
    Tensor.unique = unique_method
    Tensor.unique_consecutive = unique_consecutive_method
    # aten::repeat_interleave.Tensor takes no self, so the table gives no method: the two self
    # overloads make Tensor.repeat_interleave, as in PyTorch.
    # A 0-d tensor value fits the Scalar overloads too: the Tensor ones go first, as PyTorch's
    # binding orders them, so that the value's gradient is recorded.
    for name in ("index_fill", "index_fill_"):
        overloads = [f"aten::{name}.int_Tensor", f"aten::{name}.int_Scalar"]
        setattr(Tensor, name, _C._make_op_function(name, overloads, True))
    Tensor.repeat_interleave = _C._make_op_function(
        "repeat_interleave", ["aten::repeat_interleave.self_Tensor", "aten::repeat_interleave.self_int"], True)
