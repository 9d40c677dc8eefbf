# The code of PyTorch's note "Extending PyTorch" (docs/source/notes/extending.rst), section
# "Extending torch with a Tensor-like type" (ScalarTensor), run on ember.
# Edits to the note's code: `import torch` -> `import ember as torch`; nothing else. The note
# shows its examples as interactive `>>>` sessions: each shown value is printed here with
# print(), and each shown exception is caught by a `try/except` that prints its type and text
# (lines marked `# driver`). Where the note redefines `__torch_function__` alone, the class is
# repeated with the new method (the rest of the class unchanged).
# Expected output: expected/extending_torch_function.txt (see README.md).

import ember as torch


class ScalarTensor(object):
   def __init__(self, N, value):
       self._N = N
       self._value = value

   def __repr__(self):
       return "ScalarTensor(N={}, value={})".format(self._N, self._value)

   def tensor(self):
       return self._value * torch.eye(self._N)

d = ScalarTensor(5, 2)
print(d)
print(d.tensor())
try:  # driver
    torch.mean(d)
except TypeError as e:  # driver
    print(f"{type(e).__name__}: {e}")  # driver


HANDLED_FUNCTIONS = {}
class ScalarTensor(object):
    def __init__(self, N, value):
        self._N = N
        self._value = value

    def __repr__(self):
        return "ScalarTensor(N={}, value={})".format(self._N, self._value)

    def tensor(self):
        return self._value * torch.eye(self._N)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS or not all(
            issubclass(t, (torch.Tensor, ScalarTensor))
            for t in types
        ):
            return NotImplemented
        return HANDLED_FUNCTIONS[func](*args, **kwargs)

import functools
def implements(torch_function):
    """Register a torch function override for ScalarTensor"""
    def decorator(func):
        functools.update_wrapper(func, torch_function)
        HANDLED_FUNCTIONS[torch_function] = func
        return func
    return decorator

@implements(torch.mean)
def mean(input):
    return float(input._value) / input._N

d = ScalarTensor(5, 2)
print(torch.mean(d))

def ensure_tensor(data):
    if isinstance(data, ScalarTensor):
        return data.tensor()
    return torch.as_tensor(data)

@implements(torch.add)
def add(input, other):
   try:
       if input._N == other._N:
           return ScalarTensor(input._N, input._value + other._value)
       else:
           raise ValueError("Shape mismatch!")
   except AttributeError:
       return torch.add(ensure_tensor(input), ensure_tensor(other))

s = ScalarTensor(2, 2)
print(torch.add(s, s))
t = torch.tensor([[1, 1,], [1, 1]])
print(torch.add(s, t))
print(torch.add(t, s))  # driver: the Tensor first, same override
try:  # driver
    torch.add(s, s, alpha=2)
except TypeError as e:  # driver: Python 3.11 names the function by the __qualname__ that
    # functools.update_wrapper copied from torch.add (1.13: "_VariableFunctionsClass.add"), an
    # internal of the binding, so only the note's own text is compared
    print(type(e).__name__, str(e).endswith("add() got an unexpected keyword argument 'alpha'"))  # driver
try:  # driver
    torch.add(s, ScalarTensor(3, 1))  # driver: the override's own error
except ValueError as e:  # driver
    print(f"{type(e).__name__}: {e}")  # driver
try:  # driver
    torch.mul(s, 3)
except TypeError as e:  # driver
    print(f"{type(e).__name__}: {e}")  # driver


class ScalarTensor(object):
    def __init__(self, N, value):
        self._N = N
        self._value = value

    def __repr__(self):
        return "ScalarTensor(N={}, value={})".format(self._N, self._value)

    def tensor(self):
        return self._value * torch.eye(self._N)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS or not all(
                issubclass(t, (torch.Tensor, ScalarTensor))
                for t in types
            ):
            args = [a.tensor() if hasattr(a, 'tensor') else a for a in args]
            return func(*args, **kwargs)
        return HANDLED_FUNCTIONS[func](*args, **kwargs)

s = ScalarTensor(2, 2)
print(torch.mul(s, s))
print(torch.add(s, s))  # driver: handled functions still take the override
print(torch.mean(s))  # driver
