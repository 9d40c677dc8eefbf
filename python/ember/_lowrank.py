"""torch.svd_lowrank / pca_lowrank: randomized low-rank SVD and PCA (Halko, Martinsson and Tropp,
"Finding structure with randomness", 2009, Algorithm 4.4 and 5.1), in Python as PyTorch writes
them, over ember's matmul, linalg.qr and linalg.svd. Dense inputs only (ember has no sparse
layouts). The random test matrix comes from the default generator, so ember.manual_seed makes
a call reproducible."""
import ember as torch
from .overrides import handle_torch_function, has_torch_function

__all__ = ["get_approximate_basis", "svd_lowrank", "pca_lowrank"]


def _floating_dtype(A):
    return A.dtype if A.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64,
                                  torch.complex64, torch.complex128) else torch.float32


def _mT(A):
    return A.transpose(-2, -1)


def get_approximate_basis(A, q, niter=2, M=None):
    """An m x q matrix Q with orthonormal columns whose range approximates A's (of A - M when M
    is given): q random directions through A, refined by `niter` subspace iterations."""
    niter = 2 if niter is None else niter
    n = A.shape[-1]
    R = torch.randn(n, q, dtype=_floating_dtype(A), device=A.device)
    A_H = _mT(A).conj()
    if M is None:
        Q = torch.linalg.qr(A @ R).Q
        for _ in range(niter):
            Q = torch.linalg.qr(A_H @ Q).Q
            Q = torch.linalg.qr(A @ Q).Q
    else:
        M_H = _mT(M).conj()
        Q = torch.linalg.qr(A @ R - M @ R).Q
        for _ in range(niter):
            Q = torch.linalg.qr(A_H @ Q - M_H @ Q).Q
            Q = torch.linalg.qr(A @ Q - M @ Q).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) with A - M ~= U diag(S) V^H, of rank q (default 6); `niter` subspace
    iterations (default 2) sharpen the approximation."""
    if has_torch_function((A, M)) and not all(type(t) in (torch.Tensor, type(None)) for t in (A, M)):
        return handle_torch_function(svd_lowrank, (A, M), A, q=q, niter=niter, M=M)
    return _svd_lowrank(A, q=q, niter=niter, M=M)


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    M_t = None if M is None else _mT(M)
    A_t = _mT(A)
    # The basis is found on the wider side: U's for tall A, V's otherwise.
    if m < n or n > q:
        Q = get_approximate_basis(A_t, q, niter=niter, M=M_t)
        Q_c = Q.conj()
        B_t = A @ Q_c if M is None else A @ Q_c - M @ Q_c
        U, S, Vh = torch.linalg.svd(B_t, full_matrices=False)
        V = Q @ Vh.mH
    else:
        Q = get_approximate_basis(A, q, niter=niter, M=M)
        Q_c = Q.conj()
        B = A_t @ Q_c if M is None else A_t @ Q_c - M_t @ Q_c
        U, S, Vh = torch.linalg.svd(_mT(B), full_matrices=False)
        V = Vh.mH
        U = Q @ U
    return U, S, V


def pca_lowrank(A, q=None, center=True, niter=2):
    """Principal components of A's rows: (U, S, V) of the centred matrix (A minus its column
    means when `center`) at rank q (default min(6, m, n)); V's columns are the principal
    directions."""
    if type(A) is not torch.Tensor and has_torch_function((A,)):
        return handle_torch_function(pca_lowrank, (A,), A, q=q, center=center, niter=niter)
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError("q(={}) must be non-negative integer and not greater than min(m, n)={}"
                         .format(q, min(m, n)))
    if not (niter >= 0):
        raise ValueError("niter(={}) must be non-negative integer".format(niter))
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A - C, q, niter=niter, M=None)
