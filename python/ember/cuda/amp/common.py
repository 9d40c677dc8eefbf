"""amp_definitely_not_available(): True in ember, which has no CUDA device."""
import ember


def amp_definitely_not_available():
    return not ember.cuda.is_available()
