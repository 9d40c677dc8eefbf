"""torchvision.models._api's Weights / WeightsEnum (the `weights=` values of the model builders)
and _utils' handle_legacy_interface (`pretrained=`), for the builders ember has."""
import enum
import functools
import warnings
from dataclasses import dataclass, fields
from typing import Any, Callable, Dict, Optional

from .._internally_replaced_utils import load_state_dict_from_url

__all__ = ["Weights", "WeightsEnum"]


@dataclass
class Weights:
    """The location and meta-data of pre-trained weights."""
    url: str
    transforms: Optional[Callable]
    meta: Dict[str, Any]


class WeightsEnum(enum.Enum):
    """The parent class of all model weights; values are `Weights`."""

    @classmethod
    def verify(cls, obj: Any) -> Any:
        if obj is not None:
            if type(obj) is str:
                obj = cls.from_str(obj.replace(cls.__name__ + ".", ""))
            elif not isinstance(obj, cls):
                raise TypeError(
                    f"Invalid Weight class provided; expected {cls.__name__} but received "
                    f"{obj.__class__.__name__}.")
        return obj

    @classmethod
    def from_str(cls, value: str):
        for k, v in cls.__members__.items():
            if k == value:
                return v
        raise ValueError(f"Invalid value {value} for enum {cls.__name__}.")

    def get_state_dict(self, progress: bool):
        return load_state_dict_from_url(self.url, progress=progress)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}.{self._name_}"

    def __getattr__(self, name):
        # Weights' attributes directly (weights.url, weights.meta).
        for f in fields(Weights):
            if f.name == name:
                return object.__getattribute__(self.value, name)
        raise AttributeError(name)


def handle_legacy_interface(weights_param, pretrained_param, default):
    """`pretrained=True/False` mapped to `weights=default / None`, with torchvision's warnings."""
    def outer(builder):
        @functools.wraps(builder)
        def inner(*args, **kwargs):
            if pretrained_param not in kwargs:
                return builder(*args, **kwargs)
            pretrained_arg = kwargs.pop(pretrained_param)
            if pretrained_arg:
                default_weights_arg = default(kwargs) if callable(default) else default
            else:
                default_weights_arg = None
            warnings.warn(
                f"The parameter '{pretrained_param}' is deprecated since 0.13 and may be removed "
                f"in the future, please use '{weights_param}' instead.")
            msg = (f"Arguments other than a weight enum or `None` for '{weights_param}' are "
                   f"deprecated since 0.13 and may be removed in the future. The current behavior "
                   f"is equivalent to passing `{weights_param}={default_weights_arg}`.")
            if pretrained_arg:
                msg = (f"{msg} You can also use `{weights_param}="
                       f"{type(default_weights_arg).__name__}.DEFAULT` to get the most up-to-date "
                       f"weights.")
            warnings.warn(msg)
            kwargs[weights_param] = default_weights_arg
            return builder(*args, **kwargs)
        return inner
    return outer


def _ovewrite_named_param(kwargs, param, new_value):
    if param in kwargs:
        if kwargs[param] != new_value:
            raise ValueError(f"The parameter '{param}' expected value {new_value} but got "
                             f"{kwargs[param]} instead.")
    else:
        kwargs[param] = new_value
