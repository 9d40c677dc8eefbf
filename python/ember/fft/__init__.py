"""ember.fft: torch.fft's discrete Fourier transforms (docs/complex.md).

Every function is an op of ember's table (`ember.ops.aten.fft_*`), written in C++
(src/ops/fft.cpp, over ember's own FFT engine); this module only names them as torch.fft does.
"""
from .. import _C

__all__ = [
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn",
    "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq",
    "fftshift", "ifftshift",
]


def _fn(name):
    # Named like PyTorch's bindings (torch.fft.fft.__name__ == "fft_fft"), so argument errors
    # read "fft_fft() missing 1 required positional arguments: ...".
    fn = _C._make_op_function("fft_" + name, [f"aten::fft_{name}"], False)
    fn.__module__ = "ember.fft"
    return fn


for _name in __all__:
    globals()[_name] = _fn(_name)
del _name
