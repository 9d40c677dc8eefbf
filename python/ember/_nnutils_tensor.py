"""torch.dot / vdot / inner / mv and Tensor.mT / mH / is_complex, which the reparametrizations
use (nn.utils.parametrizations), with PyTorch's checks and texts over ember.matmul (which already
computes the 1-d x 1-d and 2-d x 1-d products); and Tensor methods PyTorch defines as thin
spellings of existing ones (view_as, reshape_as, type_as, ndimension, nelement, is_signed,
is_same_size, get_device, is_nonzero, ravel, orgqr)."""

from . import _C


def _name(dtype):
    # c10's ScalarType names, as PyTorch's messages print them.
    names = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
             "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
             "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}
    key = str(dtype).split(".")[-1]
    return names.get(key, key)


def _install(ns, Tensor):
    _matmul = ns["matmul"]

    def matmul(a, b):
        # dot and mv are ops of their own in PyTorch, off CPU autocast's lists: they run in their
        # inputs' dtype, so the matmul that computes them here runs with autocast off.
        if not _C.is_autocast_cpu_enabled():
            return _matmul(a, b)
        _C.set_autocast_cpu_enabled(False)
        try:
            return _matmul(a, b)
        finally:
            _C.set_autocast_cpu_enabled(True)

    def dot(input, other):
        if input.dim() != 1 or other.dim() != 1:
            raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D "
                               "tensors")
        if input.dtype != other.dtype:
            raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                               f"{_name(input.dtype)} and "
                               f"{_name(other.dtype)}")
        if input.numel() != other.numel():
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.numel()}] and "
                               f"src [{other.numel()}] to have the same number of elements, but "
                               f"got {input.numel()} and {other.numel()} elements respectively")
        return matmul(input, other)

    def mv(input, vec):
        if input.dim() != 2 or vec.dim() != 1:
            raise RuntimeError("vector + matrix @ vector expected, got 1, "
                               f"{input.dim()}, {vec.dim()}")
        if input.size(1) != vec.size(0):
            raise RuntimeError(f"size mismatch, got {input.size(0)}, "
                               f"{input.size(0)}x{input.size(1)},{vec.size(0)}")
        if input.dtype != vec.dtype:
            raise RuntimeError(f"expected scalar type {_name(input.dtype)} but "
                               f"found {_name(vec.dtype)}")
        return matmul(input, vec)

    def _mT(self):
        if self.dim() < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self.dim()}-D tensor.")
        return self.transpose(-2, -1)

    def _mH(self):
        if self.dim() < 2:
            raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. "
                               f"Got {self.dim()}-D tensor.")
        t = self.transpose(-2, -1)
        return t.conj() if self.is_complex() else t

    def is_complex(self):
        return bool(getattr(self.dtype, "is_complex", False))

    def vdot(input, other):
        # Real tensors: vdot is dot (the conjugate of a real tensor is itself).
        if input.is_complex():
            input = input.conj()
        return dot(input, other)

    def inner(input, other):
        if input.dim() == 0 or other.dim() == 0:
            return input * other
        if input.size(-1) != other.size(-1):
            raise RuntimeError("inner() the last dimension must match on both input tensors but "
                               f"got shapes {list(input.shape)} and {list(other.shape)}")
        return ns["tensordot"](input, other, dims=([-1], [-1]))

    def is_nonzero(self):
        n = self.numel()
        if n == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if n > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item() != 0)

    def is_signed(self):
        return self.dtype not in (ns["uint8"], ns["bool"])

    def is_same_size(self, other):
        return self.shape == other.shape

    def ravel(self):
        return self.reshape(-1)

    def argwhere(self):
        return self.nonzero()

    def narrow_copy(self, dim, start, length):
        return self.narrow(dim, start, length).clone()

    def rsub(input, other, *, alpha=1):
        # torch.rsub: other - alpha * input (sub with the operands swapped).
        if not isinstance(other, Tensor):
            # A number: (-alpha * input) + other rounds as other - alpha * input does.
            scaled = input.neg() if alpha == 1 else input.mul(-alpha)
            return scaled.add(other)
        return ns["sub"](other, input, alpha=alpha)

    methods = {
        "argwhere": argwhere,
        "narrow_copy": narrow_copy,
        "view_as": lambda self, other: self.view(other.size()),
        "reshape_as": lambda self, other: self.reshape(other.size()),
        "type_as": lambda self, other: self.to(other.dtype),
        "ndimension": lambda self: self.dim(),
        "nelement": lambda self: self.numel(),
        "get_device": lambda self: -1,
        "is_nonzero": is_nonzero,
        "is_signed": is_signed,
        "is_same_size": is_same_size,
        "ravel": ravel,
        "vdot": vdot,
        "inner": inner,
    }
    for name, fn in methods.items():
        fn.__name__ = name
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    for name in ("concat", "concatenate"):
        ns.setdefault(name, ns["cat"])
    ns.setdefault("rsub", rsub)
    for name in ("is_signed", "is_same_size", "ravel", "vdot", "inner", "is_nonzero", "argwhere",
                 "narrow_copy"):
        if name not in ns:
            ns[name] = methods[name]
    # torch.ctc_loss: torch 1.13's Python binding reads the schema's default `reduction=Mean` as
    # 0 (no reduction), unlike C++ (Mean); ember's Python spelling keeps torch's behaviour.
    _ctc = _C._op_functions["ctc_loss"]

    def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
                 zero_infinity=False):
        return _ctc(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                    zero_infinity)

    ctc_loss.__module__ = "ember"
    ns["ctc_loss"] = ctc_loss
    # The private aten names torch exposes too (torch._weight_norm, torch._ctc_loss).
    for name in ("_weight_norm", "_ctc_loss"):
        ns.setdefault(name, _C._op_functions[name])
    if not hasattr(Tensor, "orgqr"):
        Tensor.orgqr = _C._make_op_function("orgqr", ["aten::orgqr"], True)

    for name, fn in (("dot", dot), ("mv", mv)):
        if name not in ns:
            fn.__module__ = "ember"
            ns[name] = fn
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    if not hasattr(Tensor, "is_complex"):
        Tensor.is_complex = is_complex
    if not hasattr(Tensor, "mT"):
        Tensor.mT = property(_mT)
    if not hasattr(Tensor, "mH"):
        Tensor.mH = property(_mH)
