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

__all__ = ["save", "save_file", "load", "load_file", "safe_open", "save_model", "load_model", "SafetensorError"]

_FRAMEWORKS = {"pt", "torch", "pytorch"}
_OTHER_FRAMEWORKS = {"np", "numpy", "tf", "tensorflow", "jax", "flax", "mlx", "paddle"}


def _items(tensors):
    # safetensors.torch's _evaluate_tensors_for_save: a dict of tensors, or ValueError.
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, ember.Tensor] but received {type(tensors)}")
    for k, v in tensors.items():
        if not isinstance(v, _Tensor):
            raise ValueError(f"Key `{k}` is invalid, expected ember.Tensor but received {type(v)}")
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


def _remove_duplicate_names(state_dict, *, preferred_names=None, discard_names=None):
    # safetensors.torch's rule: in each group of tensors sharing memory, keep one name that
    # covers the whole storage (preferring `preferred_names`, avoiding `discard_names`).
    preferred_names = set(preferred_names or [])
    discard_names = set(discard_names or [])
    to_remove = {}
    for shared in _st.find_shared_tensors(list(state_dict.items())):
        complete_names = {name for name in shared if _st.is_complete(state_dict[name])}
        if not complete_names:
            raise RuntimeError(
                "Error while trying to find names to remove to save state dict, but found no suitable name to keep"
                f" for saving amongst: {shared}. None is covering the entire storage.Refusing to save/load the model"
                " since you could be storing much more memory than needed. Please refer to"
                " https://huggingface.co/docs/safetensors/torch_shared_tensors for more information. Or open an"
                " issue.")
        keep_name = sorted(complete_names)[0]
        preferred = complete_names.difference(discard_names)
        if preferred:
            keep_name = sorted(preferred)[0]
        if preferred_names:
            preferred = preferred_names.intersection(complete_names)
            if preferred:
                keep_name = sorted(preferred)[0]
        for name in sorted(shared):
            if name != keep_name:
                to_remove.setdefault(keep_name, []).append(name)
    return to_remove


def save_model(model, filename, metadata=None, force_contiguous=True):
    """Saves ``model.state_dict()`` keeping one name per group of tied tensors (the others are
    recorded in the metadata as ``{dropped: kept}``), as ``safetensors.torch.save_model``."""
    state_dict = model.state_dict()
    for kept_name, group in _remove_duplicate_names(state_dict).items():
        for name in group:
            if metadata is None:
                metadata = {}
            if name not in metadata:
                metadata[name] = kept_name
            del state_dict[name]
    if force_contiguous:
        state_dict = {k: v.contiguous() for k, v in state_dict.items()}
    try:
        save_file(state_dict, filename, metadata=metadata)
    except ValueError as e:
        raise ValueError(str(e) + " Or use save_model(..., force_contiguous=True), read the docs for potential caveats.")


def load_model(model, filename, strict=True, device="cpu"):
    """Loads a file written by :func:`save_model` into ``model`` (tied tensors come back tied);
    returns ``(missing, unexpected)`` as ``safetensors.torch.load_model``."""
    state_dict = load_file(filename, device=device)
    model_state_dict = model.state_dict()
    to_removes = _remove_duplicate_names(model_state_dict, preferred_names=state_dict.keys())
    missing, unexpected = model.load_state_dict(state_dict, strict=False)
    missing = set(missing)
    unexpected = list(unexpected)
    for group in to_removes.values():
        for name in group:
            if name not in missing:
                unexpected.append(name)
            else:
                missing.remove(name)
    if strict and (missing or unexpected):
        missing_keys = ", ".join([f'"{k}"' for k in sorted(missing)])
        unexpected_keys = ", ".join([f'"{k}"' for k in sorted(unexpected)])
        error = f"Error(s) in loading state_dict for {model.__class__.__name__}:"
        if missing:
            error += f"\n    Missing key(s) in state_dict: {missing_keys}"
        if unexpected:
            error += f"\n    Unexpected key(s) in state_dict: {unexpected_keys}"
        raise RuntimeError(error)
    return missing, unexpected


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

