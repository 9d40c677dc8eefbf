"""torch.nn.utils.parametrizations (PyTorch 1.13's set: orthogonal, spectral_norm), written in
Python as PyTorch's: each parametrization is a module whose forward composes ember ops (the
matrix exponential, the Cayley map, the Householder product, power iteration), so autograd
comes from the ops."""
from enum import Enum, auto

from ... import _C  # noqa: F401
import ember as torch
from ... import Tensor
from ..._grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ['orthogonal', 'spectral_norm']


def _is_orthogonal(Q, eps=None):
    n, k = Q.size(-2), Q.size(-1)
    Id = torch.eye(k, dtype=Q.dtype, device=Q.device)
    # A reasonable eps, but not too large
    eps = 10. * n * torch.finfo(Q.dtype).eps
    return torch.allclose(Q.mH @ Q, Id, atol=eps)


def _geqrf(A):
    # LAPACK's geqrf (Householder QR, dlarfg's reflectors): R on and above the diagonal, the
    # reflectors' tails below it, and tau. Composed of ops; used only to initialise the
    # householder map without trivialization.
    A = A.clone()
    m, n = A.size(-2), A.size(-1)
    k = min(m, n)
    tau = A.new_zeros(*A.shape[:-2], k)
    for j in range(k):
        alpha = A[..., j, j].clone()
        tail = A[..., j + 1:, j]
        xnorm = tail.norm(dim=-1) if m - j - 1 > 0 else torch.zeros_like(alpha)
        zero = xnorm == 0
        sign = torch.where(alpha >= 0, torch.ones_like(alpha), -torch.ones_like(alpha))
        beta = -sign * torch.sqrt(alpha * alpha + xnorm * xnorm)
        beta = torch.where(zero, alpha, beta)
        denom = torch.where(zero, torch.ones_like(alpha), alpha - beta)
        t = torch.where(zero, torch.zeros_like(alpha), (beta - alpha) / beta)
        v_tail = tail / denom.unsqueeze(-1)
        v = torch.cat([torch.ones_like(alpha).unsqueeze(-1), v_tail], dim=-1)  # (..., m - j)
        if j + 1 < n:
            sub = A[..., j:, j + 1:]
            w = (v.unsqueeze(-1) * sub).sum(dim=-2)  # v^T sub
            A[..., j:, j + 1:] = sub - t.unsqueeze(-1).unsqueeze(-1) * v.unsqueeze(-1) * w.unsqueeze(-2)
        A[..., j, j] = beta
        if m - j - 1 > 0:
            A[..., j + 1:, j] = v_tail
        tau[..., j] = t
    return A, tau


def _make_orthogonal(A):
    """ Assume that A is a tall matrix.
    Compute the Q factor s.t. A = QR (A may be complex) and diag(R) is real and non-negative
    """
    # linalg.qr's Q is LAPACK's orgqr of geqrf's reflectors, as PyTorch's
    # householder_product(geqrf(A)); diag(R) is geqrf's diagonal.
    Q, R = torch.linalg.qr(A)
    Q *= R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        # Here n > k and X is a tall matrix
        if self.orthogonal_map == _OrthMaps.matrix_exp or self.orthogonal_map == _OrthMaps.cayley:
            # We just need n x k - k(k-1)/2 parameters
            X = X.tril()
            if n != k:
                # Embed into a square matrix
                X = torch.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            # A is skew-symmetric (or skew-hermitian)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = torch.matrix_exp(A)
            else:
                # Computes the Cayley retraction (I+A/2)(I-A/2)^{-1}
                Id = torch.eye(n, dtype=A.dtype, device=A.device)
                Q = torch.linalg.solve(torch.add(Id, A, alpha=-0.5), torch.add(Id, A, alpha=0.5))
            # Q is now orthogonal (or unitary) of size (..., n, n)
            if n != k:
                Q = Q[..., :k]
            # Q is now the size of the X (albeit perhaps transposed)
        else:
            # X is real here, as we do not support householder with complex numbers
            A = X.tril(diagonal=-1)
            tau = 2. / (1. + (A * A).sum(dim=-2))
            Q = torch.linalg.householder_product(A, tau)
            # The diagonal of X is 1's and -1's
            # We do not want to differentiate through this or update the diagonal of X hence the casting
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)

        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            # We always make sure to always copy Q in every path
            if not hasattr(self, "base"):
                if self.orthogonal_map == _OrthMaps.cayley or self.orthogonal_map == _OrthMaps.matrix_exp:
                    raise NotImplementedError("It is not possible to assign to the matrix "
                                              "exponential or the Cayley parametrizations when "
                                              "use_trivialization=False.")
                # If parametrization == _OrthMaps.householder, make Q orthogonal via the QR
                # decomposition, with diag(R) > 0 (the sign of the diagonal is kept in A's).
                A, tau = _geqrf(Q)
                d = A.diagonal(dim1=-2, dim2=-1)
                d.copy_(torch.where(tau == 0., -d.sign(), d.sign()))
                return A.mT if transpose else A
            else:
                if n == k:
                    # We check whether Q is orthogonal
                    if not _is_orthogonal(Q):
                        Q = _make_orthogonal(Q)
                    else:  # Is orthogonal
                        Q = Q.clone()
                else:
                    # Complete Q into a full n x n orthogonal matrix
                    N = torch.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
                    Q = torch.cat([Q, N], dim=-1)
                    Q = _make_orthogonal(Q)
                self.base = Q
                # It is necessary to return the -Id, as we use the diagonal for the
                # Householder parametrization. Using -Id makes:
                # householder(torch.zeros(m,n)) == torch.eye(m,n)
                # Poor man's version of eye_like
                neg_Id = torch.zeros_like(Q_init)
                neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.)
                return neg_Id


def orthogonal(module, name='weight', orthogonal_map=None, *, use_trivialization=True):
    r"""Applies an orthogonal or unitary parametrization to a matrix or a batch of matrices
    (torch.nn.utils.parametrizations.orthogonal): maps "matrix_exp", "cayley" or
    "householder" (default: matrix_exp for square or complex matrices, else householder)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(
            "Module '{}' has no parameter or buffer with name '{}'".format(module, name))
    # We could implement this for 1-dim tensors as the maps on the sphere
    # but I believe it'd bite more people than it'd help
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1) or weight.is_complex()
                          else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f'Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError('Expected n_power_iterations to be positive, but '
                             'got n_power_iterations={}'.format(n_power_iterations))
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            # For ndim == 1 we do not need to approximate anything (see _SpectralNorm.forward)
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer('_u', F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer('_v', F.normalize(v, dim=0, eps=self.eps))
            # Start with u, v initialized to some reasonable values by performing a number
            # of iterations of the power method
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        # Precondition
        assert weight.ndim > 1
        if self.dim != 0:
            # permute dim to front
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # In place (torch's normalize(..., out=...)): the buffers carry the iteration on.
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(torch.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(torch.mv(weight_mat.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            # Faster and more exact path, no need to approximate anything
            return F.normalize(weight, dim=0, eps=self.eps)
        else:
            weight_mat = self._reshape_weight_to_matrix(weight)
            if self.training:
                self._power_method(weight_mat, self.n_power_iterations)
            # See above on why we need to clone
            u = self._u.clone(memory_format=torch.contiguous_format)
            v = self._v.clone(memory_format=torch.contiguous_format)
            sigma = torch.dot(u, torch.mv(weight_mat, v))
            return weight / sigma

    def right_inverse(self, value):
        # we may want to assert here that the passed value already
        # satisfies constraints
        return value


def spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None):
    r"""Applies spectral normalization to a parameter in the given module
    (torch.nn.utils.parametrizations.spectral_norm)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(
            "Module '{}' has no parameter or buffer with name '{}'".format(module, name)
        )
    if dim is None:
        if isinstance(module, (torch.nn.ConvTranspose1d,
                               torch.nn.ConvTranspose2d,
                               torch.nn.ConvTranspose3d)):
            dim = 1
        else:
            dim = 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
