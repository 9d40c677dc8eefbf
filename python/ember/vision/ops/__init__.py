"""ember.vision.ops: torchvision.ops' building blocks."""
from .misc import Conv2dNormActivation, ConvNormActivation  # noqa: F401
