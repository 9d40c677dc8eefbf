"""F.ctc_loss over the aten op ctc_loss (C++: src/ops/ctc_loss.cpp)."""
from .. import _C

__all__ = ["ctc_loss"]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    r"""The Connectionist Temporal Classification loss (torch.nn.functional.ctc_loss)."""
    red = int(_C._nn._reduction_enum(reduction))
    return _C._op_functions["ctc_loss"](log_probs, targets, input_lengths, target_lengths, blank,
                                        red, zero_infinity)
