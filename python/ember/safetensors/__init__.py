"""safetensors files, with the API of ``safetensors.torch``.

    from ember.safetensors import save_file, load_file, safe_open
    save_file({"w": w}, "model.safetensors", metadata={"format": "pt"})
    with safe_open("model.safetensors", framework="pt") as f:
        rows = f.get_slice("w")[0:2]

The reader and writer are ember's C++ (``ember/safetensors.h``); this module checks arguments
as safetensors does and names things as it names them. ``load_file`` and ``safe_open`` map the
file privately: tensors are views of the mapping (no copy), and writing to them never changes
the file. ``ember.safetensors.torch`` is the same module under safetensors' own path.
"""
import os

from .. import _C
from .._tensor import Tensor as _Tensor

_st = _C._safetensors
SafetensorError = _st.SafetensorError
SafetensorError.__module__ = "ember.safetensors"

__all__ = ["save", "save_file", "load", "load_file", "safe_open", "SafetensorError"]

_FRAMEWORKS = {"pt", "torch", "pytorch"}
_OTHER_FRAMEWORKS = {"np", "numpy", "tf", "tensorflow", "jax", "flax", "mlx", "paddle"}


def _items(tensors):
    # safetensors.torch's _evaluate_tensors_for_save: a dict of tensors, or ValueError.
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    for k, v in tensors.items():
        if not isinstance(v, _Tensor):
            raise ValueError(f"Key `{k}` is invalid, expected torch.Tensor but received {type(v)}")
        if not isinstance(k, str):
            raise TypeError(f"argument 'tensor_dict': '{type(k).__name__}' object cannot be converted to 'PyString'")
    return list(tensors.items())


def _metadata(metadata):
    if metadata is None:
        return None
    if not isinstance(metadata, dict):
        raise TypeError(f"argument 'metadata': '{type(metadata).__name__}' object cannot be converted to 'PyDict'")
    for k, v in metadata.items():
        for x in (k, v):
            if not isinstance(x, str):
                raise TypeError(f"argument 'metadata': '{type(x).__name__}' object cannot be converted to 'PyString'")
    return dict(metadata)


def save(tensors, metadata=None):
    """The bytes of a safetensors file holding ``tensors`` (contiguous, not sharing memory)."""
    return _st.serialize(_items(tensors), _metadata(metadata))


def save_file(tensors, filename, metadata=None):
    """Writes ``tensors`` to ``filename`` (a temporary file in the same folder, renamed over it)."""
    _st.save_file(_items(tensors), os.fspath(filename), _metadata(metadata))


def _to_device(tensors, device):
    if device in ("cpu", None) or (not isinstance(device, (str, int)) and str(device) == "cpu"):
        return tensors
    return {k: v.to(device) for k, v in tensors.items()}


def load(data):
    """The tensors of a safetensors file image (``bytes``); each owns a copy of its data."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"argument 'bytes': '{type(data).__name__}' object cannot be converted to 'PyBytes'")
    return _st.load(data)


def load_file(filename, device="cpu"):
    """The tensors of a safetensors file, in the order of their data, as views of a private mapping."""
    return _to_device(_st.load_file(os.fspath(filename)), device)


class PySafeSlice:
    """A tensor of an open file, read in part: ``f.get_slice("w")[:, 0:4]`` copies only those
    elements. Indices are ints (negative counts from the end) and slices whose start and stop
    are unsigned and inside the dimension (as safetensors: no clamping, no step)."""

    def __init__(self, handle, name):
        self._handle = handle
        self._name = name

    def get_shape(self):
        return list(self._handle.info(self._name)[1])

    def get_dtype(self):
        return self._handle.info(self._name)[0]

    def __getitem__(self, index):
        return self._handle.get_slice(self._name, index)


class safe_open:  # noqa: N801  (safetensors' name)
    """Opens a safetensors file lazily: ``keys()``, ``metadata()``, ``get_tensor(name)``,
    ``get_slice(name)``; a context manager whose exit closes the file."""

    def __init__(self, filename, framework, device="cpu"):
        if not isinstance(framework, str):
            raise TypeError(f"argument 'framework': '{type(framework).__name__}' object cannot be converted to 'PyString'")
        if framework not in _FRAMEWORKS:
            if framework in _OTHER_FRAMEWORKS:
                raise SafetensorError(f"framework {framework} is not supported by ember.safetensors (use \"pt\")")
            raise SafetensorError(f"framework {framework} is invalid")
        self._device = device
        self._inner = _st.SafeOpen(os.fspath(filename))

    def _open(self):
        if self._inner is None:
            raise SafetensorError("File is closed")
        return self._inner

    def keys(self):
        return self._open().keys()

    def offset_keys(self):
        return self._open().offset_keys()

    def metadata(self):
        return self._open().metadata()

    def get_tensor(self, name):
        t = self._open().get_tensor(name)
        return _to_device({name: t}, self._device)[name]

    def get_tensors(self):
        f = self._open()
        return _to_device({k: f.get_tensor(k) for k in f.offset_keys()}, self._device)

    def get_slice(self, name):
        f = self._open()
        f.info(name)  # "File does not contain tensor NAME" now, as safetensors
        return PySafeSlice(f, name)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self._inner = None

