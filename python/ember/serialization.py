"""ember.save / ember.load: PyTorch's checkpoint format, read and written by ember's C++ code.

The default, ``weights_only=True``, loads with ember's own unpickler (C++), which resolves only a
fixed allowlist of globals (tensors' rebuild functions, storage types, OrderedDict, dtypes,
devices, Size, qschemes): a file cannot make it run code. ``weights_only=False`` is the opt-in to
Python's own pickle (with ember's persistent loader for storages): it can run arbitrary code from
the file, so use it only for files you trust, as with ``torch.load(weights_only=False)``.
See docs/serialization.md.
"""
import io
import os
import pickle
import sys

from . import _C

__all__ = ["save", "load", "DEFAULT_PROTOCOL", "default_restore_location", "location_tag"]

DEFAULT_PROTOCOL = 2

_S = _C._serialization

UNSAFE_MESSAGE = (
    "Weights only load failed. Re-running `ember.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you get the "
    "file from a trusted source. WeightsUnpickler error: ")


def _is_path(f):
    return isinstance(f, (str, os.PathLike))


def location_tag(storage):
    return str(storage.device)


def default_restore_location(storage, location):
    return storage


def _archive_name(f):
    return os.path.splitext(os.path.basename(os.fspath(f)))[0] if _is_path(f) else "archive"


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True):
    """Saves `obj` to `f` (a path or a writable binary file-like) in PyTorch's zip format.

    Paths are written atomically (a temporary file in the same folder, fsync, rename). Objects
    made of tensors, containers, numbers, strings, dtypes and devices are pickled by ember's C++
    pickler exactly as torch.save pickles them; anything else goes through Python's pickler with
    the same persistent ids for storages, as torch.save does.
    """
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("ember.save writes only the zip format (PyTorch >= 1.6); "
                                  "the legacy format is read, not written")
    if not isinstance(pickle_protocol, int) or not 2 <= pickle_protocol <= 5:
        raise ValueError(f"pickle_protocol must be 2 to 5, got {pickle_protocol!r}")
    if _is_path(f):
        target = os.fspath(f)
        if isinstance(target, bytes):
            target = os.fsdecode(target)
    elif hasattr(f, "write"):
        target = None
    else:
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'write'")
    name = _archive_name(f)
    try:
        if pickle_module is not pickle:
            raise _S._Unsupported("a custom pickle_module")
        out = _S.save(obj, target if target is not None else 0, pickle_protocol, name)
    except _S._Unsupported:
        out = _save_with_python_pickle(obj, target, pickle_module, pickle_protocol, name)
    if target is None:
        f.write(out)
        if hasattr(f, "flush"):
            f.flush()


def _save_with_python_pickle(obj, target, pickle_module, pickle_protocol, name):
    # torch.serialization._save over ember's storages, written by ember's zip writer.
    from .storage import TypedStorage, UntypedStorage
    import ember
    storages = {}
    id_map = {}
    storage_dtypes = {}

    def persistent_id(o):
        if not isinstance(o, (TypedStorage, UntypedStorage)):
            return None
        if isinstance(o, TypedStorage):
            storage, dtype, numel = o.untyped(), o.dtype, o.size()
        else:
            storage, dtype, numel = o, ember.uint8, o.nbytes()
        if storage.data_ptr() != 0:
            if storage_dtypes.setdefault(storage.data_ptr(), dtype) != dtype:
                raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                                   "data as different types")
        key = id_map.setdefault(storage._cdata, str(len(id_map)))
        storages[key] = storage
        return ("storage", _StorageType(dtype), key, location_tag(storage), numel)

    buf = io.BytesIO()
    if pickle_module is pickle:
        pickler = _TorchNamesPickler(buf, protocol=pickle_protocol)
    else:
        pickler = pickle_module.Pickler(buf, protocol=pickle_protocol)
    pickler.persistent_id = persistent_id
    pickler.dump(obj)
    records = [(k, _bytes_tensor(s)) for k, s in storages.items()]
    return _S.save_pickled(buf.getvalue(), records, target if target is not None else 0, name)


_STORAGE_NAMES = {"float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
                  "bfloat16": "BFloat16Storage", "int8": "CharStorage", "uint8": "ByteStorage",
                  "int16": "ShortStorage", "int32": "IntStorage", "int64": "LongStorage",
                  "bool": "BoolStorage", "quint8": "QUInt8Storage", "qint8": "QInt8Storage",
                  "qint32": "QInt32Storage", "complex64": "ComplexFloatStorage",
                  "complex128": "ComplexDoubleStorage", "quint4x2": "QUInt4x2Storage",
                  "quint2x4": "QUInt2x4Storage"}
_DTYPE_OF_STORAGE = {v: k for k, v in _STORAGE_NAMES.items()}


class _StorageType:
    """The storage type of a persistent id: pickled as the global torch.<Name>Storage."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.name = _STORAGE_NAMES[str(dtype).rsplit(".", 1)[-1]]


class _TorchNamesPickler(pickle._Pickler):
    """Python's pickler (the pure-Python one, whose save_global can be overridden), writing
    ember's globals under torch's names, so that PyTorch loads what it writes: ember.X ->
    torch.X, dtypes as torch.<name>, ember.Size as torch.Size, devices as torch.device."""

    def _write_global(self, module, name, obj):
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + module.encode("utf-8") + b"\n" + name.encode("utf-8") + b"\n")
        self.memoize(obj)

    def save(self, obj, save_persistent_id=True):
        import ember
        if isinstance(obj, _StorageType):
            if id(obj) in self.memo:
                self.write(self.get(self.memo[id(obj)][0]))
                return
            return self._write_global("torch", obj.name, obj)
        if isinstance(obj, ember.dtype):
            return self._save_named(obj, "torch", str(obj).rsplit(".", 1)[-1])
        return super().save(obj, save_persistent_id)

    def _save_named(self, obj, module, name):
        x = self.memo.get(id(obj))
        if x is not None:
            self.write(self.get(x[0]))
            return
        self._write_global(module, name, obj)

    def save_global(self, obj, name=None):
        import ember
        module = getattr(obj, "__module__", None) or ""
        qualname = name or getattr(obj, "__qualname__", None) or obj.__name__
        if obj is ember.Size:
            return self._write_global("torch", "Size", obj)
        if obj is ember.device:
            return self._write_global("torch", "device", obj)
        if module == "ember" or module.startswith("ember."):
            if not _reachable(module, qualname, obj) or "._C" in module:
                # C++ classes live in ember._C...: name the public module that exports them
                # (ember.nn.Linear -> torch.nn.Linear), as PyTorch's own names are.
                module = next((m for m in sorted(sys.modules, key=len)
                               if (m == "ember" or m.startswith("ember.")) and "._" not in m
                               and _reachable(m, qualname, obj)), module)
            return self._write_global("torch" + module[len("ember"):], qualname, obj)
        return super().save_global(obj, name)

    # pickle._Pickler's dispatch table holds its own save_global: point it at ours.
    dispatch = dict(pickle._Pickler.dispatch)
    dispatch[type(len)] = save_global
    dispatch[type(_archive_name)] = save_global

def _reachable(module, qualname, obj):
    mod = sys.modules.get(module)
    try:
        for part in qualname.split("."):
            mod = getattr(mod, part)
    except AttributeError:
        return False
    return mod is obj


def _bytes_tensor(untyped):
    """A uint8 tensor over the whole of an UntypedStorage (how save_pickled takes storages)."""
    from . import uint8
    t = _C._op_functions["empty"](0, dtype=uint8, device=untyped.device)
    return t.set_(untyped, 0, (untyped.nbytes(),), (1,))


def _map_location_fn(map_location):
    """map_location as a function of a saved location ("cpu", "cuda:0") to a device, or None."""
    from . import device as _device
    if map_location is None:
        return None
    if isinstance(map_location, (str, _device)):
        dev = str(map_location)
        return lambda loc: dev
    if isinstance(map_location, dict):
        mapping = {str(k): str(v) for k, v in map_location.items()}
        return lambda loc: mapping.get(loc, loc)
    raise TypeError(f"map_location must be a str, an ember.device, a dict or a callable, got "
                    f"{type(map_location).__name__}")


def _read_source(f):
    """(source for C++, is_path): a path string, or the bytes of a file-like."""
    if _is_path(f):
        path = os.fspath(f)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", path)
        return path
    if not hasattr(f, "read"):
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'read'")
    data = f.read()
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"ember.load: the file-like's read() returned {type(data).__name__}, "
                        "expected bytes (open the file in binary mode)")
    return bytes(data)


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None,
         **pickle_load_args):
    """Loads an object saved with ember.save or torch.save (zip format, or the legacy format).

    f: a path (str, os.PathLike) or a binary file-like. map_location: a device string, an
    ember.device, a dict {saved location: location}, or a callable (storage, location) ->
    storage or None. mmap=True maps the file and makes tensors views of it (paths only).
    weights_only=True (the default) uses ember's safe unpickler; weights_only=False runs Python's
    pickle and can execute code from the file: use it only for files you trust.
    """
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    mmap = bool(mmap)
    if mmap and not _is_path(f):
        raise ValueError("f must be a file path in order to use the mmap argument")
    source = _read_source(f)
    if (os.path.getsize(source) if isinstance(source, str) else len(source)) == 0:
        raise EOFError("Ran out of input")  # as torch.load on an empty file
    call_fn = None
    if callable(map_location) and not isinstance(map_location, (str, dict)) \
            and not _is_device(map_location):
        call_fn = map_location
    loc_fn = None if call_fn is not None else _map_location_fn(map_location)
    if not weights_only:
        return _load_with_python_pickle(source, loc_fn, call_fn, pickle_module or pickle, mmap,
                                        pickle_load_args)
    try:
        return _S.load(source, loc_fn, mmap, _storage_hook(call_fn) if call_fn else None)
    except pickle.UnpicklingError as e:
        raise pickle.UnpicklingError(UNSAFE_MESSAGE + str(e)) from None


def _storage_hook(call_fn):
    """PyTorch's callable map_location(storage, location) over ember's storages: the C++
    loader hands each storage as a uint8 tensor over it and takes one back (or None)."""
    from .storage import TypedStorage, UntypedStorage, _untyped_of

    def hook(t, location):
        result = call_fn(_untyped_of(t), location)
        if result is None:
            return None
        if isinstance(result, TypedStorage):
            result = result.untyped()
        if not isinstance(result, UntypedStorage):
            raise TypeError(f"map_location must return a storage or None, got "
                            f"{type(result).__name__}")
        return _bytes_tensor(result)
    return hook


def _is_device(x):
    from . import device as _device
    return isinstance(x, _device)


def _load_with_python_pickle(source, loc_fn, call_fn, pickle_module, mmap, pickle_load_args):
    """weights_only=False: Python's pickle (it can run code from the file), with torch.load's
    persistent ids resolved to ember storages read by ember's zip reader."""
    from .storage import TypedStorage, UntypedStorage, _untyped_of
    import ember
    if isinstance(source, bytes):
        head = source[:4]
    else:
        with open(source, "rb") as fh:
            head = fh.read(4)
    if not _S._is_zip(head):
        # The legacy format: ember's C++ reader.
        return _S.load(source, loc_fn, False, _storage_hook(call_fn) if call_fn else None)
    reader = _S.ZipReader(source, mmap)
    names = reader.names()
    prefix = names[0].split("/", 1)[0] + "/" if names else ""
    loaded = {}

    def persistent_load(saved_id):
        typename = saved_id[0]
        if isinstance(typename, bytes):
            typename = typename.decode("ascii")
        if typename != "storage":
            raise pickle.UnpicklingError(f"Unknown typename for persistent_load, expected "
                                         f"'storage' but got '{typename}'")
        storage_type, key, location, numel = saved_id[1:5]
        dtype = storage_type.dtype if isinstance(storage_type, _StorageType) else ember.uint8
        if key not in loaded:
            nbytes = numel * dtype.itemsize
            device = loc_fn(location) if loc_fn is not None else None
            if device is None and call_fn is None and not str(location).startswith("cpu"):
                raise RuntimeError(
                    "Attempting to deserialize object on a CUDA device but ember has no CUDA "
                    "devices. If you are running on a CPU-only machine, please use ember.load "
                    "with map_location=ember.device('cpu') to map your storages to the CPU.")
            untyped = _untyped_of(reader.storage(prefix + "data/" + key, nbytes, device, mmap))
            if call_fn is not None:
                result = call_fn(untyped, location)
                if result is not None:
                    untyped = result.untyped() if isinstance(result, TypedStorage) else result
            loaded[key] = untyped
        return TypedStorage(wrap_storage=loaded[key], dtype=dtype)

    class _Unpickler(pickle_module.Unpickler):
        def find_class(self, mod_name, name):
            if mod_name == "torch" and name in _DTYPE_OF_STORAGE:
                return _StorageType(getattr(ember, _DTYPE_OF_STORAGE[name]))
            if mod_name in ("torch", "torch.storage") and name == "UntypedStorage":
                return _StorageType(ember.uint8)
            if mod_name == "torch" or mod_name.startswith("torch."):
                mod_name = "ember" + mod_name[len("torch"):]
            return super().find_class(mod_name, name)

    data = reader.read(prefix + "data.pkl")
    pickle_load_args.setdefault("encoding", "utf-8")
    unpickler = _Unpickler(io.BytesIO(data), **pickle_load_args)
    unpickler.persistent_load = persistent_load
    return unpickler.load()
