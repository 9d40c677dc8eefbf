"""ember.cpu.amp.autocast(args...) is ember.autocast("cpu", args...), as in torch.cpu.amp."""
import ember
from ember.amp.autocast_mode import autocast as _autocast


class autocast(_autocast):
    r"""See :class:`ember.autocast`. ``ember.cpu.amp.autocast(args...)`` is equivalent to
    ``ember.autocast("cpu", args...)``."""

    def __init__(self, enabled=True, dtype=ember.bfloat16, cache_enabled=True):
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)

    def __enter__(self):
        return super().__enter__()

    def __exit__(self, exc_type, exc_val, exc_tb):
        return super().__exit__(exc_type, exc_val, exc_tb)

    def __call__(self, func):
        return super().__call__(func)
