"""torch.ao.quantization.stubs: QuantStub, DeQuantStub and QuantWrapper (C++
ember::quantization, ember/quantization/stubs.h, bound in python/csrc/quantization_stubs.cpp)."""
from ... import _C

QuantStub = _C._qstubs.QuantStub
DeQuantStub = _C._qstubs.DeQuantStub
QuantWrapper = _C._qstubs.QuantWrapper

__all__ = ["QuantStub", "DeQuantStub", "QuantWrapper"]

for _cls in (QuantStub, DeQuantStub, QuantWrapper):
    _cls.__module__ = __name__  # type(m) prints <class '...ao.quantization.stubs.QuantStub'>
