"""torchvision.ops.misc.Conv2dNormActivation: Conv2d, norm layer, activation as a Sequential with
children "0", "1", "2" (kernel_size, stride, padding and dilation as ints)."""
from ... import _C

Conv2dNormActivation = _C._vision.Conv2dNormActivation
Conv2dNormActivation.__module__ = "ember.vision.ops.misc"

# torchvision 0.12's name, which the custom-quantization notebook uses as `type(m) is
# ConvNormActivation` to find MobileNetV2's conv blocks. torchvision 0.14 made it a deprecated
# subclass, which never matches that test; here it is the same class object, so the notebook's
# code works as written (docs/quantization.md).
ConvNormActivation = Conv2dNormActivation

__all__ = ["Conv2dNormActivation", "ConvNormActivation"]
