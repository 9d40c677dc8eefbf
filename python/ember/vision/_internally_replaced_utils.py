"""torchvision._internally_replaced_utils: where torchvision's model builders get
`load_state_dict_from_url` (ember.hub's)."""

__all__ = ["load_state_dict_from_url"]

try:
    from ..hub import load_state_dict_from_url  # noqa: F401
except ImportError:
    def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                                 check_hash=False, file_name=None, weights_only=False):
        """Unavailable: this build of ember has no `ember.hub` (the checkpoint downloader that
        provides load_state_dict_from_url)."""
        raise RuntimeError(
            "load_state_dict_from_url needs ember.hub, which this build of ember does not "
            "have; build the model with weights=None and load a state_dict instead "
            "(url: {})".format(url))
