"""Names of torch 1.13's public API over the op rows of src/ops/special_functions.cpp,
linalg_ldl.cpp and nn_functional_forms.cpp: ember.special's Bessel functions, polynomials and
incomplete gamma functions, ember.linalg's diagonal / vander / ldl_*, torch.lu and Tensor.lu
(Python in PyTorch too, over _lu_with_info), and the torch.* loss functions whose Python binding
in PyTorch 1.13 defaults `reduction` to 0 (none)."""
from . import _C, linalg, special
from ._tensor import Tensor
from .overrides import handle_torch_function, has_torch_function_unary

_fn = _C._op_functions

# ---- ember.special ----
_UNARY = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
          "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
          "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0"]
_POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
                "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
                "laguerre_polynomial_l", "legendre_polynomial_p"]
for _name in _UNARY:
    setattr(special, _name, special._special(_name, [f"special_{_name}"]))
for _name in _POLYNOMIALS:
    setattr(special, _name, special._special(_name, [f"special_{_name}", f"special_{_name}.x_scalar",
                                                     f"special_{_name}.n_scalar"]))
special.gammainc = special._special("gammainc", ["special_gammainc"])
special.gammaincc = special._special("gammaincc", ["special_gammaincc"])
special.__all__ += _UNARY + _POLYNOMIALS + ["gammainc", "gammaincc"]

# ---- ember.linalg ----
linalg.diagonal = linalg._fn("diagonal")
linalg.vander = linalg._fn("vander")
linalg.ldl_factor = linalg._fn("ldl_factor")
linalg.ldl_factor_ex = linalg._fn("ldl_factor_ex")
linalg.ldl_solve = linalg._fn("ldl_solve")
linalg.__all__ += ["diagonal", "vander", "ldl_factor", "ldl_factor_ex", "ldl_solve"]

# ---- torch.* names PyTorch keeps private-looking or writes in Python ----
_lu_with_info = _fn["_lu_with_info"]
_rowwise_prune = _fn["_rowwise_prune"]


def lu(A, pivot=True, get_infos=False, out=None):
    """The LU factorization of A (deprecated: linalg.lu_factor / lu_factor_ex): (LU, pivots),
    and the infos too when get_infos is True."""
    if has_torch_function_unary(A):
        return handle_torch_function(lu, (A,), A, pivot=pivot, get_infos=get_infos, out=out)
    result = _lu_with_info(A, pivot=pivot, check_errors=(not get_infos))
    if not get_infos:
        result = (result[0], result[1])
    if out is None:
        return result
    expected = 3 if get_infos else 2
    if len(out) != expected:
        raise TypeError(f"expected tuple of {expected} elements but got {len(out)}")
    for o, r in zip(out, result):
        o.resize_(r.shape).copy_(r)
    return out


def _tensor_lu(self, pivot=True, get_infos=False):
    if has_torch_function_unary(self):
        return handle_torch_function(_tensor_lu, (self,), self, pivot=pivot, get_infos=get_infos)
    LU, pivots, infos = _lu_with_info(self, pivot=pivot, check_errors=(not get_infos))
    return (LU, pivots, infos) if get_infos else (LU, pivots)


_tensor_lu.__name__ = "lu"
Tensor.lu = _tensor_lu
lu.__module__ = "ember.functional"


def _reduction_none_by_default(name):
    # PyTorch 1.13's Python binding cannot parse the schema's `reduction=Mean` default and
    # passes 0 (none): torch.kl_div(a, b) is elementwise. ember's torch.* names do the same;
    # ember.nn.functional's (and torch.ops.aten's) keep the mean.
    op = _fn[name]
    params = {"binary_cross_entropy_with_logits": ("weight", "pos_weight"),
              "hinge_embedding_loss": ("margin",), "kl_div": (),
              "margin_ranking_loss": ("margin",),
              "triplet_margin_loss": ("margin", "p", "eps", "swap")}[name]

    def fn(*args, **kwargs):
        nargs = {"binary_cross_entropy_with_logits": 2, "hinge_embedding_loss": 2, "kl_div": 2,
                 "margin_ranking_loss": 3, "triplet_margin_loss": 3}[name]
        if len(args) < nargs + len(params) + 1 and "reduction" not in kwargs:
            kwargs["reduction"] = 0
        return op(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "ember"
    return fn


# (torch.gru / lstm / rnn_tanh / rnn_relu and grid_sampler_3d are op rows: ember's table has them)
functions = {"lu": lu, "_lu_with_info": _lu_with_info, "_rowwise_prune": _rowwise_prune}
functions.update({n: _reduction_none_by_default(n) for n in (
    "binary_cross_entropy_with_logits", "hinge_embedding_loss", "kl_div", "margin_ranking_loss",
    "triplet_margin_loss")})
