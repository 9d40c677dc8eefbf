"""ember.optim.lr_scheduler: the C++ schedulers (ember::optim::LRScheduler), bound."""
from .. import _C

LRScheduler = _C._optim.LRScheduler
_LRScheduler = LRScheduler
StepLR = _C._optim.StepLR
MultiStepLR = _C._optim.MultiStepLR
CosineAnnealingLR = _C._optim.CosineAnnealingLR
LambdaLR = _C._optim.LambdaLR
OneCycleLR = _C._optim.OneCycleLR
ExponentialLR = _C._optim.ExponentialLR
ConstantLR = _C._optim.ConstantLR
LinearLR = _C._optim.LinearLR
MultiplicativeLR = _C._optim.MultiplicativeLR
PolynomialLR = _C._optim.PolynomialLR
CosineAnnealingWarmRestarts = _C._optim.CosineAnnealingWarmRestarts
ReduceLROnPlateau = _C._optim.ReduceLROnPlateau
SequentialLR = _C._optim.SequentialLR
ChainedScheduler = _C._optim.ChainedScheduler
CyclicLR = _C._optim.CyclicLR
