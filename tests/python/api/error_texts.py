"""The check that no text ember produces names `torch.` where PyTorch's would say `ember.`
(issue 17), shared by tests/python/conftest.py (every error text the suite provokes) and
test_error_texts.py (the texts in ember's Python sources).

`torch.` is a leak unless it is part of a longer name (`pytorch.org`, `safetensors.torch`,
`__torch__.torch.classes`), a module a checkpoint's pickle names (`torch._utils.` ...), the
class of a user's own object (`<class 'torch.Tensor'>`), a pickle's `GLOBAL torch.X` quoted
from a file, or an address (`...html#torch.nn.utils`): those are torch's names, which a text
must quote as they are. tests/cpp/api/test_error_texts.cpp holds the same rule for C++.
"""
import re

PICKLED_PREFIXES = ("torch._utils.", "torch.storage.", "torch.nn.parameter.", "torch._tensor.",
                    "torch.serialization.")
_TORCH = re.compile(r"(?<![\w.])torch\.")


def leaks(text: str):
    """The positions where `text` says `torch.` as ember's own name."""
    out = []
    for m in _TORCH.finditer(text):
        at = m.start()
        if text.startswith(PICKLED_PREFIXES, at):
            continue
        if text[max(0, at - 8):at] == "<class '":
            continue
        if text[max(0, at - 7):at] == "GLOBAL ":  # a pickle's global, quoted from the file
            continue
        if "://" in re.split(r"\s", text[:at])[-1]:  # an address's anchor (...nn.html#torch.nn...)
            continue
        out.append(at)
    return out


def names_torch(text: str) -> bool:
    return bool(leaks(text))
