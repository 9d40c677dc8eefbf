"""torchvision.models._utils' helpers used by the model builders."""
from ... import _C

_make_divisible = _C._vision._make_divisible


def _check_no_weights(weights):
    # ember downloads nothing: weights come in through load_state_dict.
    if weights is not None:
        raise NotImplementedError(
            "ember.vision has no pretrained weights; build the model with weights=None and "
            "load a state_dict")
