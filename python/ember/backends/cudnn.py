"""ember.backends.cudnn: absent from ember. The flags are plain module attributes, as PyTorch's,
so code that sets `ember.backends.cudnn.benchmark = True` runs."""
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None
