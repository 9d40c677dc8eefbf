"""ember.random: seeding and the state of the default generator (PyTorch writes these in Python
too, over torch._C.default_generator)."""
import contextlib

from ._C import default_generator, Generator  # noqa: F401

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"]


def set_rng_state(new_state):
    """Sets the default generator's state (an ember.ByteTensor from get_rng_state)."""
    default_generator.set_state(new_state)


def get_rng_state():
    """The default generator's state as an ember.ByteTensor."""
    return default_generator.get_state()


def manual_seed(seed):
    """Seeds the default generator and returns it. Any value int() accepts, in
    [-0x8000_0000_0000_0000, 0xffff_ffff_ffff_ffff]; negatives wrap around."""
    seed = int(seed)
    return default_generator.manual_seed(seed)


def seed():
    """Seeds the default generator non-deterministically and returns the 64-bit seed."""
    return default_generator.seed()


def initial_seed():
    """The seed of the default generator (a Python int)."""
    return default_generator.initial_seed()


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices"):
    """Restores the default generator's state on exit. ember has no CUDA devices: `devices`
    must be empty or None (a CUDA device raises, as a CPU-only PyTorch does)."""
    if not enabled:
        yield
        return
    if devices:
        from . import cuda
        for device in devices:
            cuda.get_rng_state(device)  # raises: ember has no CUDA
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
