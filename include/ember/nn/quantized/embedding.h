// torch.ao.nn.quantized.Embedding / EmbeddingBag (weight-only quantization of embedding tables)
// with their EmbeddingPackedParams child. State as PyTorch 1.13 lays it out: the child's
// "_packed_params.dtype" (quint8 / quint4x2) and "_packed_params._packed_weight" (the quantized
// weight, per_channel_affine_float_qparams); every module version 1.
//
//   auto qe = ember::nn::quantized::Embedding::from_float(observed_embedding);
//   ember::Tensor rows = qe->forward(indices);   // quantized::embedding_byte / embedding_4bit
//   // QuantizedEmbedding(num_embeddings=10, embedding_dim=12, dtype=ember.quint8,
//   //   qscheme=ember.per_channel_affine_float_qparams)
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/intrusive_ptr.h"
#include "ember/nn/module.h"
#include "ember/quantized/embedding.h"

namespace ember::nn::quantized {

/// The child that owns the packed table (PyTorch's EmbeddingPackedParams module).
class EmbeddingPackedParams : public Module {
 public:
  /// quint8 / quint4x2; other dtypes: NotImplementedError (PyTorch's text).
  EmbeddingPackedParams(int64_t num_embeddings, int64_t embedding_dim, ScalarType dtype = kQUInt8);
  /// quantized::embedding_bag_prepack(weight).
  void set_weight(const Tensor& weight);
  /// quantized::embedding_bag_unpack of the packed table.
  Tensor _weight() const;
  const ember::quantized::EmbeddingPackedParamsPtr& packed_weight() const { return packed_; }
  void set_packed_weight(const ember::quantized::EmbeddingPackedParamsPtr& packed);
  /// Returns its input (PyTorch's).
  Value forward(const std::vector<Value>& inputs) override;
  /// The repr of the unpacked weight, as PyTorch's __repr__.
  std::string repr() const override;
  int64_t version() const override { return 1; }
  void _save_to_state_dict(StateDict& destination, const std::string& prefix,
                           bool keep_vars) override;
  void _load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                             LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;

  ScalarType dtype;

 private:
  ember::quantized::EmbeddingPackedParamsPtr packed_;
};

class Embedding : public Module {
 public:
  /// torch's from_float: a float nn::Embedding with a qconfig (or a QAT Embedding) -> quantized;
  /// asserts (AssertionError) with PyTorch's texts.
  static std::shared_ptr<Embedding> from_float(Module& mod);
  /// An uninitialised quint8 table (scales 1, zero points 0) unless `weight` is given; the
  /// float-layer arguments padding_idx ... sparse are accepted and unused, as in PyTorch.
  Embedding(int64_t num_embeddings, int64_t embedding_dim,
            std::optional<int64_t> padding_idx = std::nullopt,
            std::optional<double> max_norm = std::nullopt, double norm_type = 2.0,
            bool scale_grad_by_freq = false, bool sparse = false,
            const std::optional<Tensor>& weight = std::nullopt, ScalarType dtype = kQUInt8);
  /// quantized::embedding_4bit if dtype is quint4x2, else embedding_byte.
  virtual Tensor forward(const Tensor& indices);
  Value forward(const std::vector<Value>& inputs) override;
  /// "num_embeddings=10, embedding_dim=12, dtype=ember.quint8,
  /// qscheme=ember.per_channel_affine_float_qparams".
  std::string extra_repr() const override;
  /// Module's repr without the EmbeddingPackedParams child (PyTorch's hide_packed_params_repr).
  std::string repr() const override;
  int64_t version() const override { return 1; }

  void set_weight(const Tensor& weight);
  Tensor weight() const;
  /// The "_packed_params" child (TypeError if it was replaced by another kind of module).
  EmbeddingPackedParams& packed_module() const;

  int64_t num_embeddings;
  int64_t embedding_dim;
  ScalarType dtype;

 protected:
  Embedding(std::string type_name, int64_t num_embeddings, int64_t embedding_dim,
            const std::optional<Tensor>& weight, ScalarType dtype);
};

class EmbeddingBag : public Embedding {
 public:
  static std::shared_ptr<EmbeddingBag> from_float(Module& mod);
  EmbeddingBag(int64_t num_embeddings, int64_t embedding_dim,
               std::optional<double> max_norm = std::nullopt, double norm_type = 2.0,
               bool scale_grad_by_freq = false, std::string mode = "sum", bool sparse = false,
               const std::optional<Tensor>& weight = std::nullopt,
               bool include_last_offset = false, ScalarType dtype = kQUInt8);
  /// quantized::embedding_bag_4bit if dtype is quint4x2, else embedding_bag_byte (bag sums:
  /// PyTorch 1.13 passes mode 0 whatever `mode` says).
  Tensor forward(const Tensor& indices, const std::optional<Tensor>& offsets,
                 const std::optional<Tensor>& per_sample_weights = std::nullopt,
                 const std::optional<Tensor>& compressed_indices_mapping = std::nullopt);
  Tensor forward(const Tensor& indices) override;
  Value forward(const std::vector<Value>& inputs) override;

  std::string mode;
  bool pruned_weights = false;
  bool include_last_offset;
};

}  // namespace ember::nn::quantized
