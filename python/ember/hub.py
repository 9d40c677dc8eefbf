"""Downloads with a cache, as ``torch.hub``: ``load_state_dict_from_url``,
``download_url_to_file``, ``get_dir`` and ``set_dir``.

The transfers (http, https and file URLs, through libcurl), the cache and the hash check are
ember's C++ (``ember/hub.h``). The cache folder is ``<get_dir()>/checkpoints``; ``get_dir()`` is
``set_dir()``'s folder, else ``$EMBER_HOME/hub``, ``$EMBER_HOME`` defaulting to
``$XDG_CACHE_HOME/ember`` and ``$XDG_CACHE_HOME`` to ``~/.cache``.
"""
import os

from . import _C
from .serialization import load as _load

_hub = _C._hub
HASH_REGEX_PATTERN = r"-([a-f0-9]*)\."

__all__ = ["get_dir", "set_dir", "download_url_to_file", "load_state_dict_from_url"]


def get_dir():
    """The hub folder: ``set_dir``'s, else ``$EMBER_HOME/hub`` (default ``~/.cache/ember/hub``)."""
    return _hub.get_dir()


def set_dir(d):
    """Sets the folder that downloaded weights are kept in (``<d>/checkpoints``)."""
    _hub.set_dir(os.fspath(d))


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Downloads ``url`` to ``dst`` through a temporary file in the same folder, renamed into
    place only when complete and, with ``hash_prefix``, when the SHA-256 of the bytes starts with
    it (``RuntimeError: invalid hash value (expected "...", got "...")`` otherwise). A progress
    bar goes to stderr unless ``progress=False``."""
    _hub.download_url_to_file(str(url), os.fspath(dst), hash_prefix, bool(progress))


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=True):
    """Loads the checkpoint at ``url`` with :func:`ember.load`, downloading it into
    ``model_dir`` (default ``<get_dir()>/checkpoints``) unless it is already there.

    ``check_hash``: the file name's hex after a dash, ``name-<hex>.ext``, must start the SHA-256
    of the file (a name without one is not checked, as in torch.hub). ``file_name`` replaces the
    URL's last path part as the cached name. ``weights_only`` and ``map_location`` go to
    :func:`ember.load`."""
    cached = _hub.cached_file_for_url(
        str(url), None if model_dir is None else os.fspath(model_dir), bool(progress), bool(check_hash),
        file_name)
    return _load(cached, map_location=map_location, weights_only=weights_only)
