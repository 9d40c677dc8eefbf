"""DynamicQuantizedLinearReLU: C++ ember::nn::quantized::dynamic::LinearReLU (bound as
ember._C._nnqd.LinearReLU; from_float is C++ and reads any observer)."""
from ......._C import _nnqd

LinearReLU = _nnqd.LinearReLU
LinearReLU.__module__ = __name__


from ....modules import LinearReLU as _FloatLinearReLU  # noqa: E402

LinearReLU._FLOAT_MODULE = _FloatLinearReLU
LinearReLU._native_state = lambda self: {
    "scale": self.scale, "zero_point": self.zero_point, "version": self.version}


def _set_native_state(self, state):
    self.scale, self.zero_point = state["scale"], state["zero_point"]
    self.version = state["version"]


LinearReLU._set_native_state = _set_native_state

__all__ = ["LinearReLU"]
