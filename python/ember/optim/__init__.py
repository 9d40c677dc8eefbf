"""ember.optim: the C++ optimizers and LR schedulers (ember::optim), bound."""
from .optimizer import Optimizer  # noqa: F401
from .. import _C
from . import lr_scheduler  # noqa: F401

SGD = _C._optim.SGD
Adam = _C._optim.Adam
AdamW = _C._optim.AdamW
RMSprop = _C._optim.RMSprop
Adagrad = _C._optim.Adagrad
Adadelta = _C._optim.Adadelta
Adamax = _C._optim.Adamax
NAdam = _C._optim.NAdam
RAdam = _C._optim.RAdam
LBFGS = _C._optim.LBFGS
ASGD = _C._optim.ASGD
Rprop = _C._optim.Rprop
from . import _copy  # noqa: E402,F401  (copy, deepcopy and pickle of optimizers and schedulers)
from . import swa_utils  # noqa: E402,F401  (pyauto: AveragedModel, SWALR, update_bn)
