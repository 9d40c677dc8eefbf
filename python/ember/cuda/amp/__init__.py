"""ember.cuda.amp (torch.cuda.amp) as a CPU-only PyTorch has it: `autocast("cuda")` and
`GradScaler` warn that CUDA is not available and disable themselves; custom_fwd / custom_bwd."""
from .autocast_mode import autocast, custom_fwd, custom_bwd  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401
