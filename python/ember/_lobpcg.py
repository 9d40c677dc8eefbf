"""ember.lobpcg: the Locally Optimal Block Preconditioned Conjugate Gradient method (Knyazev's
LOBPCG) for the k largest or smallest eigenpairs of a symmetric positive definite generalized
eigenproblem A X = B X E. PyTorch writes it in Python (torch/_lobpcg.py); so does ember, over
ember's ops, with the same iteration (methods "basic" and "ortho"), the same stopping rule and
the same backward (A symmetric, B the identity), so the numbers are PyTorch's."""
from typing import Dict, Optional, Tuple

import ember
from ember import Tensor
from .overrides import handle_torch_function, has_torch_function

__all__ = ["lobpcg"]


# ---- small matrix helpers (torch._linalg_utils) ----

def _floating_dtype(A):
    return A.dtype if A.dtype in (ember.float16, ember.float32, ember.float64) else ember.float32


def _mm(A: Optional[Tensor], B: Tensor) -> Tensor:
    """A @ B, with A None meaning the identity."""
    return B if A is None else ember.matmul(A, B)


def _t(A):
    return A.transpose(A.dim() - 1, A.dim() - 2)


def _qform(A: Optional[Tensor], S: Tensor) -> Tensor:
    """S^T A S."""
    return ember.matmul(_t(S), _mm(A, S))


def _eigh_ordered(A: Tensor, largest: Optional[bool] = False):
    """The eigenpairs of a symmetric A, ascending, or descending when largest."""
    E, Z = ember.linalg.eigh(A, UPLO="U")
    if largest:
        E, Z = ember.flip(E, dims=(-1,)), ember.flip(Z, dims=(-1,))
    return E, Z


def _orthonormal_basis(A):
    """An orthonormal basis of A's columns (Householder QR's Q)."""
    return ember.orgqr(*ember.geqrf(A))


# ---- the backward of a symmetric eigendecomposition, complete or partial ----

def _eig_backward_full(D_grad, U_grad, A, D, U):
    # U (diag(dD) + (U^T dU) / (d_j - d_i)) U^T, the diagonal of the quotient zero
    F = D.unsqueeze(-2) - D.unsqueeze(-1)
    F.diagonal(dim1=-2, dim2=-1).fill_(float("inf"))
    F.pow_(-1)
    Ut = U.mT.contiguous()
    return ember.matmul(U, ember.matmul(ember.diag_embed(D_grad) + ember.matmul(Ut, U_grad) * F, Ut))


def _poly_from_roots(roots):
    """The coefficients (a_0, ..., a_n = 1) of prod_i (x - r_i), lowest power first."""
    order = roots.shape[-1]
    shape = list(roots.shape)
    shape[-1] += 2
    coeffs = roots.new_zeros(shape)
    coeffs[..., 0] = 1
    coeffs[..., -1] = 1
    for i in range(1, order + 1):
        updated = coeffs.clone() if roots.requires_grad else coeffs
        window = updated.narrow(-1, order - i, i + 1)
        window -= roots.narrow(-1, i - 1, 1) * coeffs.narrow(-1, order - i + 1, i + 1)
        coeffs = updated
    return coeffs.narrow(-1, 1, order + 1)


def _horner(poly, x, one, step):
    value = one.clone()
    for k in range(poly.size(-1) - 2, -1, -1):
        value = step(value, x, poly[..., k])
    return value


def _poly_at_matrix(poly, x):
    def step(value, x, c):
        r = x.matmul(value)
        r.diagonal(dim1=-2, dim2=-1).add_(c.unsqueeze(-1))
        return r

    n = x.size(-1)
    one = ember.eye(n, n, dtype=x.dtype, device=x.device).view(*([1] * len(list(x.shape[:-2]))), n, n)
    return _horner(poly, x, one, step)


def _poly_at_vector(poly, x):
    def step(value, x, c):
        return ember.addcmul(c.unsqueeze(-1), x, value)

    return _horner(poly, x, x.new_ones(1).expand(x.shape), step)


def _eig_backward_partial(D_grad, U_grad, A, D, U, largest):
    # The k eigenvectors found span only part of the space: the rest is reached through a random
    # basis of U's orthogonal complement and the characteristic polynomial of D evaluated at A.
    Ut = U.mT.contiguous()
    proj = -U.matmul(Ut)
    proj.diagonal(dim1=-2, dim2=-1).add_(1)
    gen = ember.Generator(A.device)
    U_ortho = proj.matmul(ember.randn((*A.shape[:-1], A.size(-1) - D.size(-1)), dtype=A.dtype, device=A.device,
                                      generator=gen))
    U_ortho_t = U_ortho.mT.contiguous()
    chi = _poly_from_roots(D)
    projected = U_grad
    acc = projected.new_zeros(projected.shape)
    for k in range(1, chi.size(-1)):
        acc += projected * _poly_at_vector(chi[..., k:], D).unsqueeze(-2)
        projected = A.matmul(projected)
    chi_A = _poly_at_matrix(chi, A)
    restricted = ember.matmul(U_ortho_t, ember.matmul(chi_A, U_ortho))
    # chi(A) restricted to the complement is definite; its sign follows k's parity for the largest
    sign = -1 if (largest and (k % 2 == 1)) else +1
    L = ember.linalg.cholesky(sign * restricted)
    res = _eig_backward_full(D_grad, U_grad, A, D, U)
    res -= U_ortho.matmul(sign * ember.cholesky_solve(U_ortho_t.matmul(acc), L)).matmul(Ut)
    return res


def _eig_backward(D_grad, U_grad, A, D, U, largest):
    if U.size(-1) == U.size(-2):
        return _eig_backward_full(D_grad, U_grad, A, D, U)
    return _eig_backward_partial(D_grad, U_grad, A, D, U, largest)


class LOBPCGAutogradFunction(ember.autograd.Function):
    """lobpcg with autograd: the backward of the symmetric eigenproblem (B the identity)."""

    @staticmethod
    def forward(ctx, A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
                method=None, tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
        A = A.contiguous()
        if B is not None:
            B = B.contiguous()
        D, U = _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams,
                       ortho_bparams)
        ctx.save_for_backward(A, B, D, U)
        ctx.largest = largest
        return D, U

    @staticmethod
    def backward(ctx, D_grad, U_grad):
        A, B, D, U = ctx.saved_tensors
        if A.is_complex() or (B is not None and B.is_complex()):
            raise ValueError("lobpcg.backward does not support complex input yet."
                             "Note that lobpcg.forward does though.")
        if B is not None:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        largest = True if ctx.largest is None else ctx.largest
        grads = [None] * 14
        grads[0] = _eig_backward(D_grad, U_grad, A, D, U, largest)
        return tuple(grads)


def lobpcg(A: Tensor, k: Optional[int] = None, B: Optional[Tensor] = None, X: Optional[Tensor] = None,
           n: Optional[int] = None, iK: Optional[Tensor] = None, niter: Optional[int] = None,
           tol: Optional[float] = None, largest: Optional[bool] = None, method: Optional[str] = None,
           tracker=None, ortho_iparams: Optional[Dict[str, int]] = None,
           ortho_fparams: Optional[Dict[str, float]] = None,
           ortho_bparams: Optional[Dict[str, bool]] = None) -> Tuple[Tensor, Tensor]:
    """Find the k largest (or smallest) eigenvalues and the corresponding eigenvectors of a
    symmetric positive definite generalized eigenvalue problem using matrix-free LOBPCG methods.

    A, B: (*, m, m) (B: the identity when None); X: (*, m, n) initial approximation (random
    when None); iK: (*, m, m) preconditioner; niter: iterations (default 1000, -1 until
    converged); tol: residual tolerance (default feps ** 0.5); largest: the largest (default)
    or smallest eigenpairs; method: "ortho" (default) or "basic"; tracker: called with the
    worker after each iteration. Returns (E, X): (*, k) eigenvalues and (*, m, k) eigenvectors.
    With A requiring grad, E and X are differentiable (B must be None)."""
    tensors = (A, B, X, iK)
    if not set(map(type, tensors)).issubset((ember.Tensor, type(None))) and has_torch_function(tensors):
        return handle_torch_function(lobpcg, tensors, A, k=k, B=B, X=X, n=n, iK=iK, niter=niter, tol=tol,
                                     largest=largest, method=method, tracker=tracker,
                                     ortho_iparams=ortho_iparams, ortho_fparams=ortho_fparams,
                                     ortho_bparams=ortho_bparams)
    if A.requires_grad or (B is not None and B.requires_grad):
        # the gradient is that of the symmetric part, as the method sees only it
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if B is not None else None
        return LOBPCGAutogradFunction.apply(A_sym, k, B_sym, X, n, iK, niter, tol, largest, method, tracker,
                                     ortho_iparams, ortho_fparams, ortho_bparams)
    return _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams,
                   ortho_bparams)


def _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams,
            ortho_bparams):
    assert A.shape[-2] == A.shape[-1], A.shape
    if B is not None:
        assert A.shape == B.shape, (A.shape, B.shape)
    dtype = _floating_dtype(A)
    device = A.device
    if tol is None:
        tol = {ember.float32: 1.2e-07, ember.float64: 2.23e-16}[dtype] ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError("LPBPCG algorithm is not applicable when the number of A rows (={})"
                         " is smaller than 3 x the number of requested eigenpairs (={})".format(m, n))
    method = "ortho" if method is None else method
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        iparams.update(ortho_iparams or {})
        fparams.update(ortho_fparams or {})
        bparams.update(ortho_bparams or {})
        iparams.setdefault("ortho_i_max", 3)
        iparams.setdefault("ortho_j_max", 3)
        fparams.setdefault("ortho_tol", tol)
        fparams.setdefault("ortho_tol_drop", tol)
        fparams.setdefault("ortho_tol_replace", tol)
        bparams.setdefault("ortho_use_drop", False)

    if A.dim() > 2:
        N = 1
        for s in A.shape[:-2]:
            N *= s
        bA = A.reshape((N,) + A.shape[-2:])
        bB = B.reshape((N,) + A.shape[-2:]) if B is not None else None
        bX = X.reshape((N,) + X.shape[-2:]) if X is not None else None
        bE = ember.empty((N, k), dtype=dtype, device=device)
        bXret = ember.empty((N, m, k), dtype=dtype, device=device)
        for i in range(N):
            X_ = ember.randn((m, n), dtype=dtype, device=device) if bX is None else bX[i]
            assert len(X_.shape) == 2 and X_.shape == (m, n), (X_.shape, (m, n))
            iparams["batch_index"] = i
            worker = LOBPCG(bA[i], bB[i] if bB is not None else None, X_, iK, iparams, fparams, bparams,
                            method, tracker)
            worker.run()
            bE[i] = worker.E[:k]
            bXret[i] = worker.X[:, :k]
        return bE.reshape(A.shape[:-2] + (k,)), bXret.reshape(A.shape[:-2] + (m, k))

    X = ember.randn((m, n), dtype=dtype, device=device) if X is None else X
    assert len(X.shape) == 2 and X.shape == (m, n), (X.shape, (m, n))
    worker = LOBPCG(A, B, X, iK, iparams, fparams, bparams, method, tracker)
    worker.run()
    return worker.E[:k], worker.X[:, :k]


class LOBPCG:
    """The iteration's state: X (m x n) the current eigenvector estimates, E their Rayleigh
    quotients, R the residuals, S (m x 3n) the search basis [X, P, W]; ivars / fvars / bvars /
    tvars the counters, norms, flags and tensors a tracker may read."""

    def __init__(self, A, B, X, iK, iparams, fparams, bparams, method, tracker):
        self.A, self.B, self.iK = A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.method, self.tracker = method, tracker
        m, n = iparams["m"], iparams["n"]
        self.X = X
        self.E = ember.zeros((n,), dtype=X.dtype, device=X.device)
        self.R = ember.zeros((m, n), dtype=X.dtype, device=X.device)
        self.S = ember.zeros((m, 3 * n), dtype=X.dtype, device=X.device)
        self.tvars = {}
        self.ivars = {"istep": 0}
        self.fvars = {"_": 0.0}
        self.bvars = {"_": False}

    def __str__(self):
        lines = ["LOPBCG:"]
        for name in ("iparams", "fparams", "bparams", "ivars", "fvars", "bvars", "tvars", "A", "B", "iK", "X",
                     "E"):
            lines.append("  {}={}".format(name, getattr(self, name)))
        return "".join(line + "\n" for line in lines)

    def update(self):
        """One step: the norms on the first, then the method's update."""
        if self.ivars["istep"] == 0:
            X_norm = float(ember.norm(self.X))
            iX_norm = X_norm ** -1
            self.fvars["X_norm"] = X_norm
            self.fvars["A_norm"] = float(ember.norm(_mm(self.A, self.X))) * iX_norm
            self.fvars["B_norm"] = float(ember.norm(_mm(self.B, self.X))) * iX_norm
            self.ivars["iterations_left"] = self.iparams["niter"]
            self.ivars["converged_count"] = 0
            self.ivars["converged_end"] = 0
        if self.method == "ortho":
            self._update_ortho()
        else:
            self._update_basic()
        self.ivars["iterations_left"] = self.ivars["iterations_left"] - 1
        self.ivars["istep"] = self.ivars["istep"] + 1

    def update_residual(self):
        """R = A X - B X E."""
        self.R = _mm(self.A, self.X) - _mm(self.B, self.X) * self.E

    def update_converged_count(self):
        """The number of leading eigenpairs whose relative residual is below tol (never falls)."""
        prev = self.ivars["converged_count"]
        tol = self.fparams["tol"]
        E, X, R = self.E, self.X, self.R
        rerr = ember.norm(R, 2, (0,)) * (ember.norm(X, 2, (0,)) * (
            self.fvars["A_norm"] + E[:X.shape[-1]] * self.fvars["B_norm"])) ** -1
        count = 0
        for ok in rerr < tol:
            if not ok:
                break
            count += 1
        assert count >= prev, ("the number of converged eigenpairs (was {}, got {}) cannot decrease"
                               .format(prev, count))
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    def stop_iteration(self):
        return (self.bvars.get("force_stop", False) or self.ivars["iterations_left"] == 0
                or self.ivars["converged_count"] >= self.iparams["k"])

    def run(self):
        self.update()
        if self.tracker is not None:
            self.call_tracker()
        while not self.stop_iteration():
            self.update()
            if self.tracker is not None:
                self.call_tracker()

    def call_tracker(self):
        self.tracker(self)

    # The search basis S = [X, P, W]: X the estimates, P the previous step's directions, W the
    # preconditioned residuals of the unconverged pairs; columns [nc, ns) are the active ones.

    def _counts(self):
        return (self.ivars["converged_end"], self.ivars["converged_count"], self.iparams["n"],
                self.bparams["largest"])

    def _ritz_of_x(self):
        """The first step's Rayleigh-Ritz: the eigenpairs of X's B-orthonormalized quadratic form."""
        Ri = self._rayleigh_ritz(self.X)
        E, Z = _eigh_ordered(_qform(_qform(self.A, self.X), Ri), self.bparams["largest"])
        return E, ember.matmul(Ri, Z)

    def _update_basic(self):
        mm = ember.matmul
        ns, nc, n, largest = self._counts()
        if self.ivars["istep"] == 0:
            E, RiZ = self._ritz_of_x()
            self.X[:] = mm(self.X, RiZ)
            self.E[:] = E
            np = 0
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            W = _mm(self.iK, self.R)
        else:
            S_ = self.S[:, nc:ns]
            Ri = self._rayleigh_ritz(S_)
            E_, Z = _eigh_ordered(_qform(_qform(self.A, S_), Ri), largest)
            self.X[:, nc:] = mm(S_, mm(Ri, Z[:, :n - nc]))
            self.E[nc:] = E_[:n - nc]
            P = mm(S_, mm(Ri, Z[:, n:2 * n - nc]))
            np = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            self.S[:, n:n + np] = P
            W = _mm(self.iK, self.R[:, nc:])
        self.ivars["converged_end"] = ns = n + np + W.shape[-1]
        self.S[:, n + np:ns] = W

    def _update_ortho(self):
        mm = ember.matmul
        ns, nc, n, largest = self._counts()
        if self.ivars["istep"] == 0:
            # (PyTorch's ortho method leaves E at zeros on this first step; so does ember)
            _, RiZ = self._ritz_of_x()
            self.X = mm(self.X, RiZ)
            self.update_residual()
            np = 0
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            W = self._get_ortho(self.R, self.X)
        else:
            S_ = self.S[:, nc:ns]
            # S_ is B-orthonormal already: the Rayleigh-Ritz step is a plain eigenproblem
            E_, Z = _eigh_ordered(_qform(self.A, S_), largest)
            self.X[:, nc:] = mm(S_, Z[:, :n - nc])
            self.E[nc:] = E_[:n - nc]
            P = mm(S_, mm(Z[:, n - nc:], _orthonormal_basis(_t(Z[:n - nc, n - nc:]))))
            np = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            self.S[:, n:n + np] = P
            W = self._get_ortho(self.R[:, nc:], self.S[:, :n + np])
        ns = self.ivars["converged_end"] = n + np + W.shape[-1]
        self.S[:, n + np:ns] = W

    def _rayleigh_ritz(self, S):
        """Ri with Ri^T (S^T B S) Ri = I: the inverse of the Cholesky factor of the diagonally
        scaled S^T B S, the scaling folded back in."""
        SBS = _qform(self.B, S)
        d_row = SBS.diagonal(0, -2, -1) ** -0.5
        d_col = d_row.reshape(d_row.shape[0], 1)
        R = ember.linalg.cholesky((SBS * d_row) * d_col, upper=True)
        return ember.linalg.solve_triangular(R, d_row.diag_embed(), upper=True, left=False)

    def _get_svqb(self, U, drop, tau):
        """U B-orthonormalized by the scaled eigendecomposition of U^T B U (SVQB, Stathopoulos and
        Wu); eigenvalues below tau * max|E| dropped with their directions, or raised to it."""
        if ember.numel(U) == 0:
            return U
        UBU = _qform(self.B, U)
        d = UBU.diagonal(0, -2, -1)
        nz = ember.where(abs(d) != 0.0)
        assert len(nz) == 1, nz
        if len(nz[0]) < len(d):
            U = U[:, nz[0]]
            if ember.numel(U) == 0:
                return U
            UBU = _qform(self.B, U)
            d = UBU.diagonal(0, -2, -1)
            nz = ember.where(abs(d) != 0.0)
            assert len(nz[0]) == len(d)
        d_col = (d ** -0.5).reshape(d.shape[0], 1)
        E, Z = _eigh_ordered((UBU * d_col) * _t(d_col))
        t = tau * abs(E).max()
        if drop:
            keep = ember.where(E > t)
            assert len(keep) == 1, keep
            E, Z, d_col = E[keep[0]], Z[:, keep[0]], d_col[keep[0]]
        else:
            E[(ember.where(E < t))[0]] = t
        return ember.matmul(U * _t(d_col), Z * E ** -0.5)

    def _get_ortho(self, U, V):
        """U B-orthogonalized against V (V^T B V = I) and B-orthonormalized itself, repeating the
        projection up to ortho_i_max times and the SVQB step up to ortho_j_max times until the
        relative errors fall below ortho_tol."""
        mm = ember.matmul
        m = self.iparams["m"]
        tau_ortho = self.fparams["ortho_tol"]
        tau_drop = self.fparams["ortho_tol_drop"]
        tau_replace = self.fparams["ortho_tol_replace"]
        i_max, j_max = self.iparams["ortho_i_max"], self.iparams["ortho_j_max"]
        use_drop = self.bparams["ortho_use_drop"]
        for key in list(self.fvars.keys()):
            if key.startswith("ortho_") and key.endswith("_rerr"):
                self.fvars.pop(key)
        self.ivars.pop("ortho_i", 0)
        self.ivars.pop("ortho_j", 0)
        BV_norm = ember.norm(_mm(self.B, V))
        BU = _mm(self.B, U)
        VBU = mm(_t(V), BU)
        i = j = 0
        for i in range(i_max):
            U = U - mm(V, VBU)
            drop = False
            tau_svqb = tau_drop
            for j in range(j_max):
                if use_drop:
                    U = self._get_svqb(U, drop, tau_svqb)
                    drop = True
                    tau_svqb = tau_replace
                else:
                    U = self._get_svqb(U, False, tau_replace)
                if ember.numel(U) == 0:
                    self.ivars["ortho_i"] = i
                    self.ivars["ortho_j"] = j
                    return U
                BU = _mm(self.B, U)
                UBU = mm(_t(U), BU)
                U_norm = ember.norm(U)
                BU_norm = ember.norm(BU)
                R = UBU - ember.eye(UBU.shape[-1], device=UBU.device, dtype=UBU.dtype)
                rerr = float(ember.norm(R)) * float(BU_norm * U_norm) ** -1
                self.fvars["ortho_UBUmI_rerr[{}, {}]".format(i, j)] = rerr
                if rerr < tau_ortho:
                    break
            VBU = mm(_t(V), BU)
            VBU_norm = ember.norm(VBU)
            U_norm = ember.norm(U)
            rerr = float(VBU_norm) * float(BV_norm * U_norm) ** -1
            self.fvars["ortho_VBU_rerr[{}]".format(i)] = rerr
            if rerr < tau_ortho:
                break
            if m < U.shape[-1] + V.shape[-1]:
                B = self.B
                assert B is not None
                raise ValueError("Overdetermined shape of U:"
                                 " #B-cols(={}) >= #U-cols(={}) + #V-cols(={}) must hold"
                                 .format(B.shape[-1], U.shape[-1], V.shape[-1]))
        self.ivars["ortho_i"] = i
        self.ivars["ortho_j"] = j
        return U
