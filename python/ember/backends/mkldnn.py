"""ember.backends.mkldnn: oneDNN (formerly MKL-DNN), which ember's convolutions use."""
enabled = True


def is_available():
    return True
