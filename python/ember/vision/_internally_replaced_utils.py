"""torchvision._internally_replaced_utils: where torchvision's model builders get
`load_state_dict_from_url` (ember.hub's)."""

from ..hub import load_state_dict_from_url  # noqa: F401

__all__ = ["load_state_dict_from_url"]
