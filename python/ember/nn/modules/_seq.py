"""The sequence-model layers (attention, transformers), bound from ember._C._nn."""
from ... import _C

_nn = _C._nn
MultiheadAttention = _nn.MultiheadAttention
TransformerEncoderLayer = _nn.TransformerEncoderLayer
TransformerDecoderLayer = _nn.TransformerDecoderLayer
TransformerEncoder = _nn.TransformerEncoder
TransformerDecoder = _nn.TransformerDecoder
Transformer = _nn.Transformer
RNNBase = _nn.RNNBase
RNN = _nn.RNN
LSTM = _nn.LSTM
GRU = _nn.GRU
RNNCellBase = _nn.RNNCellBase
RNNCell = _nn.RNNCell
LSTMCell = _nn.LSTMCell
GRUCell = _nn.GRUCell
EmbeddingBag = _nn.EmbeddingBag

__all__ = [
    "MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
    "TransformerEncoder", "TransformerDecoder", "Transformer", "RNNBase", "RNN", "LSTM", "GRU",
    "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "EmbeddingBag",
]
