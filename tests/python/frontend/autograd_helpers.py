"""What the autograd tests share: building tensors and reading values the same way on torch and
ember (through ember.tensor / Tensor.tolist where this build has them, else through ops the
core always binds: full, stack, reshape, select, item)."""


def tensor(lib, data, dtype=None, requires_grad=False):
    if hasattr(lib, "tensor"):
        return lib.tensor(data, dtype=dtype, requires_grad=requires_grad)
    flat, shape = _flatten(data)
    if dtype is None:
        ints = all(isinstance(v, int) and not isinstance(v, bool) for v in flat)
        dtype = lib.int64 if ints else lib.get_default_dtype()
    t = lib.stack([lib.full([], v, dtype=dtype) for v in flat]).reshape(shape).detach()
    return t.requires_grad_() if requires_grad else t


def _flatten(data):
    if not isinstance(data, (list, tuple)):
        return [data], []
    flat, inner = [], []
    for item in data:
        f, inner = _flatten(item)
        flat += f
    return flat, [len(data)] + inner


def values(t):
    """Nested lists of Python numbers (None for None)."""
    if t is None:
        return None
    t = t.detach()
    if hasattr(t, "tolist"):
        return t.tolist()
    if t.dim() == 0:
        return t.item()
    return [values(t.select(0, i)) for i in range(t.shape[0])]
