"""ember.cpu.amp (torch.cpu.amp): `autocast` with device_type "cpu"."""
from .autocast_mode import autocast  # noqa: F401
