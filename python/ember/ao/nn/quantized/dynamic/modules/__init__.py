"""ember.ao.nn.quantized.dynamic.modules: torch 1.13's package of the dynamic quantized modules."""
from . import linear, rnn  # noqa: F401
from .linear import Linear  # noqa: F401
from .rnn import LSTM, GRU, LSTMCell, RNNCell, GRUCell  # noqa: F401

__all__ = ["Linear", "LSTM", "GRU", "LSTMCell", "RNNCell", "GRUCell"]
