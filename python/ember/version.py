"""ember.version: the build's version (PyTorch's torch.version and torch.torch_version).

`ember.__version__` is an EmberVersion: a str ("0.1.0", CMake's project version) that also
compares with version strings and tuples by PEP 440 order, as torch.__version__ does:
`ember.__version__ >= "0.1"`, `ember.__version__ < (1, 0)`.
"""
import re

from . import _C

__all__ = ["__version__", "EmberVersion", "cuda", "hip", "debug", "git_version"]

_PATTERN = re.compile(
    r"^v?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre>a|alpha|b|beta|rc|c)[-_.]?(?P<pre_n>\d*))?"
    r"(?:[-_.]?(?:post|rev|r)[-_.]?(?P<post>\d*))?"
    r"(?:[-_.]?dev[-_.]?(?P<dev>\d*))?"
    r"(?:\+(?P<local>[a-z0-9.]+))?$", re.IGNORECASE)
_PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "rc": 2, "c": 2}


def _key(version):
    """A sort key in PEP 440 order: release, then pre-release / final, post, dev."""
    if isinstance(version, (tuple, list)):
        version = ".".join(str(part) for part in version)
    if not isinstance(version, str):
        raise ValueError(f"Invalid version: '{version}'")
    m = _PATTERN.match(version.strip())
    if m is None:
        raise ValueError(f"Invalid version: '{version}'")
    release = [int(p) for p in m.group("release").split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    inf = float("inf")
    if m.group("pre"):
        pre = (_PRE_RANK[m.group("pre").lower()], int(m.group("pre_n") or 0))
    elif m.group("dev") is not None and m.group("post") is None:
        pre = (-inf, 0)  # 1.0.dev1 comes before 1.0a1
    else:
        pre = (inf, 0)
    post = int(m.group("post") or 0) if m.group("post") is not None else -inf
    dev = int(m.group("dev") or 0) if m.group("dev") is not None else inf
    return (tuple(release), pre, post, dev)


class EmberVersion(str):
    """A version string comparable with strings and tuples by PEP 440 order."""

    def _cmp(self, other, op):
        try:
            return op(_key(str(self)), _key(other))
        except ValueError:
            return NotImplemented

    def __lt__(self, other):
        return self._cmp(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._cmp(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._cmp(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._cmp(other, lambda a, b: a >= b)

    def __eq__(self, other):
        result = self._cmp(other, lambda a, b: a == b)
        return str.__eq__(self, other) if result is NotImplemented else result

    def __ne__(self, other):
        return not self == other

    __hash__ = str.__hash__


__version__ = EmberVersion(_C._version)
cuda = None
hip = None
debug = False
git_version = "Unknown"
