"""ember.cpu (torch.cpu): CPU automatic mixed precision lives in ember.cpu.amp."""
from . import amp  # noqa: F401
