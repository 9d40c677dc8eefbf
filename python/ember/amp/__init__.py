"""ember.amp: automatic mixed precision (torch.amp). `autocast` is ember.autocast; the op lists
and their casting policies are C++ (src/dispatch/autocast.cpp, docs/amp.md)."""
from .autocast_mode import autocast  # noqa: F401
