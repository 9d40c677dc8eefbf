"""ember.special: torch 1.13's torch.special functions.

The special_* ops of the op table (entr, erfcx, i0e, i1, i1e, ndtr, ndtri, log_ndtr, xlog1py,
zeta) under their short names, and the names torch.special shares with other functions
(erf, expm1, digamma, logsumexp, ...), which compute exactly what those do.
"""
from .. import _C

_fn = _C._op_functions


def _special(name, overloads):
    """A function named like torch.special's (`ember.special.<name>`) over the given rows."""
    f = _C._make_op_function(name, [f"aten::{o}" for o in overloads], False)
    f.__module__ = "ember.special"
    return f


entr = _special("entr", ["special_entr"])
erfcx = _special("erfcx", ["special_erfcx"])
i0e = _special("i0e", ["special_i0e"])
i1 = _special("i1", ["special_i1"])
i1e = _special("i1e", ["special_i1e"])
ndtr = _special("ndtr", ["special_ndtr"])
ndtri = _special("ndtri", ["special_ndtri"])
log_ndtr = _special("log_ndtr", ["special_log_ndtr"])
xlog1py = _special("xlog1py", ["special_xlog1py", "special_xlog1py.self_scalar",
                               "special_xlog1py.other_scalar"])
zeta = _special("zeta", ["special_zeta", "special_zeta.self_scalar", "special_zeta.other_scalar"])

erf = _special("erf", ["erf"])
erfc = _special("erfc", ["erfc"])
erfinv = _special("erfinv", ["erfinv"])
expm1 = _special("expm1", ["expm1"])
exp2 = _special("exp2", ["exp2"])
log1p = _special("log1p", ["log1p"])
xlogy = _special("xlogy", ["xlogy.Tensor", "xlogy.Scalar_Self", "xlogy.Scalar_Other"])
logit = _special("logit", ["logit"])
i0 = _special("i0", ["i0"])
digamma = _special("digamma", ["digamma"])
psi = _special("psi", ["digamma"])
gammaln = _special("gammaln", ["lgamma"])
polygamma = _special("polygamma", ["polygamma"])
multigammaln = _special("multigammaln", ["mvlgamma"])
sinc = _special("sinc", ["sinc"])
round = _special("round", ["round", "round.decimals"])  # noqa: A001  (torch.special.round)
expit = _special("expit", ["sigmoid"])
logsumexp = _special("logsumexp", ["logsumexp"])
softmax = _special("softmax", ["softmax.int"])
log_softmax = _special("log_softmax", ["log_softmax.int"])

__all__ = [
    "entr", "erfcx", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "xlog1py", "zeta", "erf",
    "erfc", "erfinv", "expm1", "exp2", "log1p", "xlogy", "logit", "i0", "digamma", "psi",
    "gammaln", "polygamma", "multigammaln", "sinc", "round", "expit", "logsumexp", "softmax",
    "log_softmax",
]
