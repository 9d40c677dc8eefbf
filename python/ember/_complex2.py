"""torch.stft / Tensor.stft with torch 1.13's Python signature (center=True, pad_mode="reflect"
after window): the aten::stft.center overload (src/ops/fft_stft.cpp). The overload without
centring stays reachable as ember.ops.aten.stft.default, as in PyTorch."""
from . import _C
from ._tensor import Tensor

stft = _C._make_op_function("stft", ["aten::stft.center"], False)
Tensor.stft = _C._make_op_function("stft", ["aten::stft.center"], True)
