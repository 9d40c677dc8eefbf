"""ember.vision: torchvision's classification models and their building blocks over ember::models
(C++, python/csrc/vision_models.cpp), with torchvision 0.14's names, arguments and state_dict keys.
"""
from . import models, ops  # noqa: F401
