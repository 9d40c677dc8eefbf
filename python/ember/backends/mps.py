"""ember.backends.mps: Apple's Metal backend, absent from ember."""


def is_available():
    return False


def is_built():
    return False
