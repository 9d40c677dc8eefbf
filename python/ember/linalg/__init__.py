"""ember.linalg: torch.linalg over LAPACK (docs/linalg.md).

Every function is an op of ember's table (`ember.ops.aten.linalg_*`), written in C++
(src/ops/linalg_*.cpp); this module only names them as torch.linalg does.
"""
from .. import _C

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "eigh", "eigvalsh",
    "inv", "inv_ex", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matmul",
    "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv",
    "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv",
    "tensorsolve", "vecdot", "vector_norm",
]

LinAlgError = _C._LinAlgError


def _fn(name, *overloads):
    # Named like PyTorch's bindings (torch.linalg.inv.__name__ == "linalg_inv"), so argument
    # errors read "linalg_solve_triangular() missing 1 required positional arguments: ...".
    fn = _C._make_op_function("linalg_" + name, [f"aten::linalg_{name}{o}" for o in overloads or ("",)], False)
    fn.__module__ = "ember.linalg"
    return fn


cholesky = _fn("cholesky")
cholesky_ex = _fn("cholesky_ex")
cond = _fn("cond", "", ".p_str")
cross = _fn("cross")
det = _fn("det")
eigh = _fn("eigh")
eigvalsh = _fn("eigvalsh")
inv = _fn("inv")
inv_ex = _fn("inv_ex")
lstsq = _fn("lstsq")
lu = _fn("lu")
lu_factor = _fn("lu_factor")
lu_factor_ex = _fn("lu_factor_ex")
lu_solve = _fn("lu_solve")
matrix_exp = _fn("matrix_exp")
matrix_norm = _fn("matrix_norm", "", ".str_ord")
matrix_power = _fn("matrix_power")
matrix_rank = _fn("matrix_rank", ".atol_rtol_tensor", ".atol_rtol_float", "", ".tol_tensor")
multi_dot = _fn("multi_dot")
norm = _fn("norm", "", ".ord_str")
pinv = _fn("pinv", ".atol_rtol_tensor", ".atol_rtol_float", "", ".rcond_tensor")
qr = _fn("qr")
slogdet = _fn("slogdet")
solve = _fn("solve")
solve_ex = _fn("solve_ex")
solve_triangular = _fn("solve_triangular")
svd = _fn("svd")
svdvals = _fn("svdvals")
tensorinv = _fn("tensorinv")
tensorsolve = _fn("tensorsolve")
vecdot = _fn("vecdot")
vector_norm = _fn("vector_norm")
matmul = _C._op_functions["matmul"]

# nnutils: the Householder product (a composite op, src/ops/nnutils_ops.cpp).
householder_product = _fn("householder_product")
__all__.append("householder_product")

# complex2: the general eigendecomposition (src/ops/linalg_eig.cpp).
eig = _fn("eig")
eigvals = _fn("eigvals")
__all__ += ["eig", "eigvals"]
