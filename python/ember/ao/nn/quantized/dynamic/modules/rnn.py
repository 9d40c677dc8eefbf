"""ember.ao.nn.quantized.dynamic.modules.rnn: the dynamic quantized LSTM / GRU and cells, C++
classes (ember::nn::quantized::dynamic, include/ember/nn/quantized/rnn.h) bound as
ember._C._nnqd; here what torch writes around them in Python: _FLOAT_MODULE, the state pickle
needs beyond children (`_native_state`, read by ember/nn/modules/_copy.py) and
apply_permutation."""
import warnings

from ...... import _C
from ...... import nn as _nn

_nnqd = _C._nnqd

__all__ = ['pack_weight_bias', 'PackedParameter', 'RNNBase', 'LSTM', 'GRU', 'RNNCellBase',
           'RNNCell', 'LSTMCell', 'GRUCell']

PackedParameter = _nnqd.PackedParameter
RNNBase = _nnqd.RNNBase
LSTM = _nnqd.LSTM
GRU = _nnqd.GRU
RNNCellBase = _nnqd.RNNCellBase
RNNCell = _nnqd.RNNCell
LSTMCell = _nnqd.LSTMCell
GRUCell = _nnqd.GRUCell

for _cls in (PackedParameter, RNNBase, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell):
    _cls.__module__ = __name__

RNNBase._FLOAT_MODULE = _nn.RNNBase
LSTM._FLOAT_MODULE = _nn.LSTM
GRU._FLOAT_MODULE = _nn.GRU


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


def apply_permutation(tensor, permutation, dim=1):
    warnings.warn("apply_permutation is deprecated, please use tensor.index_select(dim, permutation) instead")
    return _apply_permutation(tensor, permutation, dim)


def pack_weight_bias(qweight, bias, dtype):
    """linear_prepack(qweight, bias) for qint8 (float16 weights: linear_prepack_fp16, which
    ember does not have)."""
    from ...... import ops, qint8
    if dtype == qint8:
        return ops.quantized.linear_prepack(qweight, bias)
    raise RuntimeError("quantized::linear_prepack_fp16 is not supported by ember: dynamic "
                       "quantized RNNs take qint8 weights")


# ---- pickle: what the C++ objects keep besides children (Note in _copy.py) ----

PackedParameter._native_state = lambda self: {"param": self.param}
PackedParameter._set_native_state = lambda self, s: setattr(self, "param", s["param"])

RNNBase._native_state = lambda self: {"version": self.version}
RNNBase._set_native_state = lambda self, s: setattr(self, "version", s["version"])


def _cell_native_state(self):
    return {"ih": self._packed_weight_ih, "hh": self._packed_weight_hh,
            "bias_ih": self.bias_ih, "bias_hh": self.bias_hh}


def _cell_set_native_state(self, s):
    self._packed_weight_ih = s["ih"]
    self._packed_weight_hh = s["hh"]
    self.bias_ih = s["bias_ih"]
    self.bias_hh = s["bias_hh"]


RNNCellBase._native_state = _cell_native_state
RNNCellBase._set_native_state = _cell_set_native_state
