"""nnq.PReLU (C++ ember::nn::quantized::PReLU, bound as ember._C._nnq.PReLU; its from_float is
C++ and reads any observer, Python ones included) and its pickle state."""
from .... import _C

PReLU = _C._nnq.PReLU
PReLU.__module__ = "ember.ao.nn.quantized"


def _prelu_native_state(self):
    return {"scale": self.scale, "zero_point": self.zero_point, "weight": self.weight}


def _prelu_set_native_state(self, state):
    self.scale, self.zero_point = state["scale"], state["zero_point"]
    self.weight = state["weight"]


PReLU._native_state = _prelu_native_state
PReLU._set_native_state = _prelu_set_native_state
