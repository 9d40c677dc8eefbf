"""torch.ao.nn.qat.modules."""
from .conv import Conv1d, Conv2d, Conv3d  # noqa: F401
from .linear import Linear  # noqa: F401
from .embedding_ops import Embedding, EmbeddingBag  # noqa: F401

__all__ = ["Linear", "Conv1d", "Conv2d", "Conv3d", "Embedding", "EmbeddingBag"]
