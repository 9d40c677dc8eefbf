"""ember.UntypedStorage / ember.TypedStorage: the bytes under tensors, as PyTorch's storages.

A storage object wraps one C++ ember::Storage (`_C._StorageImpl`). While a Python storage object
of a C++ storage is alive it is the only one (a weak cache keyed by the C++ address), so pickle's
memo and deepcopy's memo see two views of one tensor's memory as one storage: they come back as
two views of one new storage (Note [Tensor pickling and deep copies] in ember/_utils.py).
"""
import copy as _copy
import weakref

from . import _C

_cache = weakref.WeakValueDictionary()


def _of_impl(impl):
    key = impl.key()
    s = _cache.get(key)
    if s is None:
        s = UntypedStorage.__new__(UntypedStorage)
        s._impl = impl
        _cache[key] = s
    return s


def _untyped_of(tensor):
    """The UntypedStorage under `tensor` (the same object for every view while it lives)."""
    s = _cache.get(_C._storage_key(tensor))
    return s if s is not None else _of_impl(_C._storage_impl(tensor))


def _rebuild_untyped_storage(data, device):
    """Unpickling: a new storage holding `data` (bytes) on `device` (meta: `data` is the size)."""
    if isinstance(data, int):
        return _of_impl(_C._StorageImpl.new_empty(data, device))
    return _of_impl(_C._StorageImpl.from_bytes(data, device))


def _rebuild_typed_storage(untyped, dtype):
    return TypedStorage(wrap_storage=untyped, dtype=dtype)


_C10_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
              "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
              "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _legacy_tensor_over(storage, dtype):
    """ember.Tensor(storage) / t.new(storage): a 1-d tensor of `dtype` over the whole storage."""
    if isinstance(storage, TypedStorage):
        if storage.dtype != dtype:
            name = lambda d: _C10_NAMES[str(d).rsplit(".", 1)[-1]]  # noqa: E731
            raise RuntimeError(f"Expected a Storage of type {name(dtype)} or an UntypedStorage, "
                               f"but got type {name(storage.dtype)} for argument 1 'storage'")
        storage = storage.untyped()
    t = _C._op_functions["empty"](0, dtype=dtype, device=storage.device)
    return t.set_(storage, 0, (storage.nbytes() // dtype.itemsize,), (1,))


class UntypedStorage:
    """Bytes on a device (PyTorch's torch.UntypedStorage)."""

    __slots__ = ("_impl", "__weakref__")

    def __init__(self, size=0, *, device=None):
        if isinstance(size, (bytes, bytearray)):
            impl = _C._StorageImpl.from_bytes(bytes(size), device)
        else:
            impl = _C._StorageImpl.new_empty(int(size), device)
        self._impl = impl
        _cache[impl.key()] = self

    @property
    def device(self):
        return self._impl.device

    @property
    def is_meta(self):
        return self.device.type == "meta"

    def nbytes(self):
        return self._impl.nbytes()

    def size(self):
        return self._impl.nbytes()

    def __len__(self):
        return self._impl.nbytes()

    def element_size(self):
        return 1

    def data_ptr(self):
        return self._impl.data_ptr()

    @property
    def _cdata(self):
        return self._impl.key()

    def clone(self):
        return _of_impl(self._impl.clone())

    def tolist(self):
        return list(self._impl.to_bytes())

    def __getitem__(self, i):
        if not isinstance(i, int):
            raise TypeError(f"can't index a {type(self).__name__} with {type(i).__name__}")
        return self._impl.get_byte(i)

    def __iter__(self):
        return iter(self.tolist())

    def untyped(self):
        return self

    def __copy__(self):
        return self  # a storage is its memory; copy.copy shares it, as PyTorch's

    def __deepcopy__(self, memo):
        # One copy per storage within a deepcopy, keyed as PyTorch keys its memo.
        storages = memo.setdefault("ember", {})
        if self._cdata in storages:
            return storages[self._cdata]
        new = self.clone()
        storages[self._cdata] = new
        return new

    def __reduce__(self):
        data = self.nbytes() if self.is_meta else self._impl.to_bytes()
        return (_rebuild_untyped_storage, (data, str(self.device)))

    def __repr__(self):
        head = f"[ember.storage.UntypedStorage(device={self.device}) of size {len(self)}]"
        if self.is_meta or len(self) == 0:
            return "..." + "\n" + head if self.is_meta else head
        return "\n".join(f" {b}" for b in self.tolist()) + "\n" + head

    __str__ = __repr__


class TypedStorage:
    """An UntypedStorage seen as elements of a dtype (what Tensor.storage() returns in 1.13)."""

    __slots__ = ("_untyped_storage", "dtype")

    def __init__(self, *args, wrap_storage=None, dtype=None, device=None):
        if wrap_storage is not None:
            if args:
                raise RuntimeError("TypedStorage.__init__ received positional arguments together "
                                   "with wrap_storage")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError("expected a UntypedStorage for argument 'wrap_storage', but got "
                                f"{type(wrap_storage)}")
            self._untyped_storage = wrap_storage
        else:
            size = args[0] if args else 0
            if isinstance(size, (list, tuple)):
                from ._creation import tensor
                t = tensor(list(size), dtype=dtype or _C.get_default_dtype(), device=device)
                self._untyped_storage = _untyped_of(t)
                self.dtype = t.dtype
                return
            itemsize = (dtype or _C.get_default_dtype()).itemsize
            self._untyped_storage = UntypedStorage(int(size) * itemsize, device=device)
        self.dtype = dtype if dtype is not None else _C.get_default_dtype()

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_meta(self):
        return self._untyped_storage.is_meta

    def untyped(self):
        return self._untyped_storage

    def _new_wrapped_storage(self, untyped):
        return TypedStorage(wrap_storage=untyped, dtype=self.dtype)

    def element_size(self):
        return self.dtype.itemsize

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def size(self):
        return self.nbytes() // self.element_size()

    def __len__(self):
        return self.size()

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    @property
    def _cdata(self):
        return self._untyped_storage._cdata

    def _as_tensor(self):
        t = _C._op_functions["empty"](0, dtype=self.dtype, device=self.device)
        return t.set_(self._untyped_storage, 0, (self.size(),), (1,))

    def tolist(self):
        return self._as_tensor().tolist()

    def __getitem__(self, i):
        return self._as_tensor()[i].item()

    def __iter__(self):
        return iter(self.tolist())

    def clone(self):
        return self._new_wrapped_storage(self._untyped_storage.clone())

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self._new_wrapped_storage(_copy.deepcopy(self._untyped_storage, memo))

    def __reduce__(self):
        return (_rebuild_typed_storage, (self._untyped_storage, self.dtype))

    def __repr__(self):
        head = (f"[ember.storage.TypedStorage(dtype={self.dtype}, device={self.device}) "
                f"of size {len(self)}]")
        if self.is_meta:
            return "...\n" + head
        if len(self) == 0:
            return head
        return "\n".join(f" {v}" for v in self._as_tensor().tolist()) + "\n" + head

    __str__ = __repr__
