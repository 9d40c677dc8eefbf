"""ember.ao.nn.quantized.dynamic: dynamically quantized modules (float in, float out)."""
from .._modules import DynamicLinear as Linear  # noqa: F401
from . import modules  # noqa: F401
from .modules.rnn import LSTM, GRU, LSTMCell, RNNCell, GRUCell  # noqa: F401

__all__ = ["Linear", "LSTM", "GRU", "LSTMCell", "RNNCell", "GRUCell"]
