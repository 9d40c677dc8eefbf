"""ember.Size: the type of `Tensor.shape`, a tuple of ints (as torch.Size)."""


class Size(tuple):
    __module__ = "ember"

    def __new__(cls, sizes=()):
        return super().__new__(cls, (int(s) for s in sizes))

    def __repr__(self):
        return f"ember.Size([{', '.join(str(s) for s in self)}])"

    def __getitem__(self, item):
        result = super().__getitem__(item)
        return Size(result) if isinstance(item, slice) else result

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __reduce__(self):
        return (Size, (tuple(self),))
