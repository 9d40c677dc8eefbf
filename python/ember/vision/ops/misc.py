"""torchvision.ops.misc.Conv2dNormActivation: Conv2d, norm layer, activation as a Sequential with
children "0", "1", "2" (kernel_size, stride, padding and dilation as ints)."""
from ... import _C

Conv2dNormActivation = _C._vision.Conv2dNormActivation
Conv2dNormActivation.__module__ = "ember.vision.ops.misc"
