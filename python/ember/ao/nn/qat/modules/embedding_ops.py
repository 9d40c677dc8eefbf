"""torch.ao.nn.qat.modules.embedding_ops: Embedding and EmbeddingBag for quantization-aware
training (C++ ember::nn::qat, ember/nn/qat/embedding_ops.h)."""
from ..... import _C
from ..... import nn as _nn

Embedding = _C._nnqat.Embedding
EmbeddingBag = _C._nnqat.EmbeddingBag
for _cls in (Embedding, EmbeddingBag):
    _cls.__module__ = __name__
Embedding._FLOAT_MODULE = _nn.Embedding
EmbeddingBag._FLOAT_MODULE = _nn.EmbeddingBag

__all__ = ["Embedding", "EmbeddingBag"]
