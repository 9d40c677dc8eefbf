"""The quantized embeddings (torch/ao/nn/quantized/modules/embedding_ops.py): the classes are C++
(ember::nn::quantized::Embedding, EmbeddingBag and EmbeddingPackedParams, bound in
python/csrc/nn_quantized_embedding.cpp, from_float included); here what PyTorch's Python adds:
from_reference, and the state pickling needs beyond the constructor's arguments."""
from .... import _C

_nnq = _C._nnq

EmbeddingPackedParams = _nnq.EmbeddingPackedParams
Embedding = _nnq.Embedding
EmbeddingBag = _nnq.EmbeddingBag

for _cls in (EmbeddingPackedParams, Embedding, EmbeddingBag):
    _cls.__module__ = "ember.ao.nn.quantized.modules.embedding_ops"


def _embedding_from_reference(cls, ref_embedding):
    return cls(
        ref_embedding.num_embeddings,
        ref_embedding.embedding_dim,
        ref_embedding.padding_idx,
        ref_embedding.max_norm,
        ref_embedding.norm_type,
        ref_embedding.scale_grad_by_freq,
        ref_embedding.sparse,
        ref_embedding.get_quantized_weight(),
        ref_embedding.weight_dtype,
    )


def _embedding_bag_from_reference(cls, ref_embedding_bag):
    return cls(
        ref_embedding_bag.num_embeddings,
        ref_embedding_bag.embedding_dim,
        ref_embedding_bag.max_norm,
        ref_embedding_bag.norm_type,
        ref_embedding_bag.scale_grad_by_freq,
        ref_embedding_bag.mode,
        ref_embedding_bag.sparse,
        ref_embedding_bag.get_quantized_weight(),
        ref_embedding_bag.include_last_offset,
        ref_embedding_bag.weight_dtype,
    )


Embedding.from_reference = classmethod(_embedding_from_reference)
EmbeddingBag.from_reference = classmethod(_embedding_bag_from_reference)

# ---- pickling (ember/nn/modules/_copy.py): what the constructor does not rebuild ----

EmbeddingPackedParams._native_state = lambda self: {"dtype": self.dtype, "weight": self._weight()}


def _packed_set_native_state(self, state):
    self.dtype = state["dtype"]
    self.set_weight(state["weight"])


EmbeddingPackedParams._set_native_state = _packed_set_native_state

Embedding._native_state = lambda self: {"dtype": self.dtype}
Embedding._set_native_state = lambda self, state: setattr(self, "dtype", state["dtype"])
EmbeddingBag._native_state = lambda self: {
    "dtype": self.dtype, "mode": self.mode, "pruned_weights": self.pruned_weights,
    "include_last_offset": self.include_last_offset}


def _bag_set_native_state(self, state):
    for k, v in state.items():
        setattr(self, k, v)


EmbeddingBag._set_native_state = _bag_set_native_state
