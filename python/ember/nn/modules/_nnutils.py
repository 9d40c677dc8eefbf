"""nn.CTCLoss, bound from ember._C._nn (C++: ember/nn/modules/ctc_loss.h)."""
from ... import _C

__all__ = ["CTCLoss"]

CTCLoss = _C._nn.CTCLoss
CTCLoss.__module__ = "ember.nn.modules.loss"
