"""ember.backends.cuda: absent from ember."""


def is_built():
    return False
