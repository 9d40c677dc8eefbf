"""ember.cuda: what a CPU-only PyTorch build answers. ember runs on the CPU only, so
`is_available()` is False and `device_count()` 0 (device-selecting code takes its CPU branch);
seeding and memory queries are no-ops, as in PyTorch without CUDA; anything that needs a device
raises PyTorch's AssertionError with ember's name."""

__all__ = [
    "is_available", "device_count", "is_initialized", "init", "current_device", "set_device",
    "synchronize", "get_device_name", "get_device_properties", "get_device_capability",
    "is_bf16_supported", "get_arch_list", "manual_seed", "manual_seed_all", "seed", "seed_all",
    "initial_seed", "get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all",
    "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "reset_peak_memory_stats", "current_stream", "device",
]


def _lazy_init():
    raise AssertionError("ember not compiled with CUDA enabled")


def is_available():
    """False: ember has no CUDA backend."""
    return False


def device_count():
    return 0


def is_initialized():
    return False


def init():
    _lazy_init()


def current_device():
    _lazy_init()


def set_device(device):
    _lazy_init()


def synchronize(device=None):
    _lazy_init()


def get_device_name(device=None):
    _lazy_init()


def get_device_properties(device):
    _lazy_init()


def get_device_capability(device=None):
    _lazy_init()


def is_bf16_supported():
    _lazy_init()


def get_arch_list():
    return []


# Seeding is lazy in PyTorch: without CUDA these do nothing (ember.manual_seed calls them too).
def manual_seed(seed):
    int(seed)


def manual_seed_all(seed):
    int(seed)


def seed():
    pass


def seed_all():
    pass


def initial_seed():
    _lazy_init()


def get_rng_state(device="cuda"):
    _lazy_init()


def get_rng_state_all():
    return []


def set_rng_state(new_state, device="cuda"):
    pass


def set_rng_state_all(new_states):
    pass


# Memory queries on an uninitialised CUDA answer zero in PyTorch.
def empty_cache():
    pass


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0


def reset_peak_memory_stats(device=None):
    _lazy_init()


def current_stream(device=None):
    _lazy_init()


class device:
    """Context manager that changes the selected CUDA device; index -1 (or None) does nothing."""

    def __init__(self, device):
        if device is None:
            self.idx = -1
        elif isinstance(device, int):
            self.idx = device
        else:
            from .. import device as _device
            index = _device(device).index
            self.idx = -1 if index is None else index
        self.prev_idx = -1

    def __enter__(self):
        if self.idx == -1:
            return
        _lazy_init()

    def __exit__(self, type, value, traceback):
        return False
