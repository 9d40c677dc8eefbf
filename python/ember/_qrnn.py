"""ember.quantized_lstm / quantized_gru: torch 1.13's aten::quantized_lstm / quantized_gru with
CellParamsBase objects (the `.input` and `.data` overloads; the legacy ones that take packed
tensors are not supported). C++: ember::quantized::quantized_lstm / quantized_gru
(include/ember/quantized/rnn.h); the op table has no list of objects, so these are plain
functions (Note [Lists of packed objects])."""
from . import _C
from ._tensor import Tensor

__all__ = ["quantized_lstm", "quantized_gru"]


def quantized_lstm(*args, dtype=None, use_dynamic=False):
    """quantized_lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first, *, dtype=None, use_dynamic=False), or (data, batch_sizes, hx, params,
    has_biases, num_layers, dropout, train, bidirectional, *, dtype=None, use_dynamic=False)
    -> (output, h_n, c_n)."""
    if len(args) == 9 and not isinstance(args[1], Tensor):
        return _C._quantized_lstm(*args, dtype, use_dynamic)
    if len(args) == 9 and isinstance(args[1], Tensor):
        return _C._quantized_lstm_data(*args, dtype, use_dynamic)
    raise TypeError(
        "quantized_lstm() expects (input, hx, params, has_biases, num_layers, dropout, train, "
        "bidirectional, batch_first) or (data, batch_sizes, hx, params, has_biases, num_layers, "
        "dropout, train, bidirectional), got {} positional arguments".format(len(args)))


def quantized_gru(*args):
    """quantized_gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first), or (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
    bidirectional) -> (output, h_n)."""
    if len(args) == 9 and isinstance(args[2], Tensor):
        return _C._quantized_gru_data(*args)
    if len(args) == 9:
        return _C._quantized_gru(*args)
    raise TypeError(
        "quantized_gru() expects (input, hx, params, has_biases, num_layers, dropout, train, "
        "bidirectional, batch_first) or (data, batch_sizes, hx, params, has_biases, num_layers, "
        "dropout, train, bidirectional), got {} positional arguments".format(len(args)))
