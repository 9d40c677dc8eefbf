"""ember.vision.models: torchvision.models' MobileNetV2 and ResNets."""
from .mobilenetv2 import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from ..ops.misc import Conv2dNormActivation  # noqa: F401
from . import quantization  # noqa: F401
