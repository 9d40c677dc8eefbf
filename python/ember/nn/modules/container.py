"""The operators PyTorch 1.13 writes in Python on its containers (Sequential's +, +=, *, and
ModuleList's +), over the C++ containers' own methods."""
from collections import OrderedDict
from itertools import chain

from ... import _C

Sequential = _C._nn.Sequential
ModuleList = _C._nn.ModuleList
ModuleDict = _C._nn.ModuleDict  # named here too: pickle finds each class by its __module__


def _seq_add(self, other):
    if isinstance(other, Sequential):
        ret = Sequential()
        for layer in self:
            ret.append(layer)
        for layer in other:
            ret.append(layer)
        return ret
    raise ValueError("add operator supports only objects of Sequential class, but "
                     f"{str(type(other))} is given.")


def _seq_iadd(self, other):
    if isinstance(other, Sequential):
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self
    raise ValueError("add operator supports only objects of Sequential class, but "
                     f"{str(type(other))} is given.")


def _check_factor(self, other):
    if not isinstance(other, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
    if other <= 0:
        raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")


def _seq_mul(self, other):
    _check_factor(self, other)
    combined = Sequential()
    offset = 0
    for _ in range(other):
        for module in self:
            combined.add_module(str(offset), module)
            offset += 1
    return combined


def _seq_imul(self, other):
    _check_factor(self, other)
    len_original = len(self)
    offset = len(self)
    modules = list(self)
    for _ in range(other - 1):
        for i in range(len_original):
            self.add_module(str(i + offset), modules[i])
        offset += len_original
    return self


def _list_add(self, other):
    combined = ModuleList()
    for i, module in enumerate(chain(self, other)):
        combined.add_module(str(i), module)
    return combined


_seq_getitem = Sequential.__getitem__
_list_getitem = ModuleList.__getitem__


def _seq_slice_of_class(self, idx):
    # A slice is built by the container's own class, as PyTorch's self.__class__(...).
    if isinstance(idx, slice) and type(self) is not Sequential:
        return type(self)(OrderedDict(list(self._modules.items())[idx]))
    return _seq_getitem(self, idx)


def _list_slice_of_class(self, idx):
    if isinstance(idx, slice) and type(self) is not ModuleList:
        return type(self)(list(self._modules.values())[idx])
    return _list_getitem(self, idx)


Sequential.__getitem__ = _seq_slice_of_class
ModuleList.__getitem__ = _list_slice_of_class
Sequential.__add__ = _seq_add
Sequential.__iadd__ = _seq_iadd
Sequential.__mul__ = _seq_mul
Sequential.__rmul__ = _seq_mul
Sequential.__imul__ = _seq_imul
ModuleList.__add__ = _list_add
for _cls in (Sequential, ModuleList, ModuleDict):
    _cls.__module__ = __name__  # type(seq) prints as torch's: <class '...modules.container.Sequential'>
