"""ember.ao.nn.quantized.modules.embedding_ops: torch 1.13's module of the quantized embeddings."""
from .._embedding import EmbeddingPackedParams, Embedding, EmbeddingBag  # noqa: F401

__all__ = ["EmbeddingPackedParams", "Embedding", "EmbeddingBag"]
