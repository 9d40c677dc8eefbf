"""ember.vision.models.quantization: torchvision.models.quantization's quantizable MobileNetV2 and
ResNets (C++ ember::models::quantization, python/csrc/vision_models.cpp)."""
from .mobilenetv2 import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
