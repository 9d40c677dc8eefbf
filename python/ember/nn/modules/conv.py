"""Issue 6's layers (python/csrc/nn_cnn_layers.cpp): convolutions, batch and group norm,
pooling, channel dropout and upsampling, bound from ember._C._nn with PyTorch's signatures."""
from ... import _C

_nn = _C._nn
_names = [
    "Conv1d", "Conv2d", "ConvTranspose2d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
    "GroupNorm", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "Dropout2d",
    "Upsample",
]
globals().update({name: getattr(_nn, name) for name in _names})
_ConvNd = _nn._ConvNd
_BatchNorm = _nn._BatchNorm
for _name in _names + ["_ConvNd", "_BatchNorm"]:
    getattr(_nn, _name).__module__ = "ember.nn"

__all__ = list(_names)
