// torch.ao.nn.qat.Embedding / EmbeddingBag: the float layers with a `weight_fake_quant` child
// made by the qconfig's weight factory, whose qscheme must be per_channel_affine_float_qparams
// (default_embedding_qat_qconfig); forward looks up rows of weight_fake_quant(weight).
//
//   auto e = std::make_shared<ember::nn::qat::Embedding>(10, 4, std::nullopt, std::nullopt, 2.0,
//       false, false, ember::Tensor(), qconfig_with_float_qparams_weight);
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "ember/nn/modules/embedding.h"
#include "ember/nn/modules/embedding_bag.h"
#include "ember/quantization/qconfig.h"

namespace ember::nn::qat {

class Embedding : public nn::Embedding {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim,
            std::optional<int64_t> padding_idx = std::nullopt,
            std::optional<double> max_norm = std::nullopt, double norm_type = 2.0,
            bool scale_grad_by_freq = false, bool sparse = false, const Tensor& _weight = Tensor(),
            quantization::QConfigPtr qconfig = nullptr, TensorOptions options = {});
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// An nn::Embedding with a float-qparams qconfig -> this class, sharing its weight.
  static std::shared_ptr<Embedding> from_float(Module& mod);
  /// A float nn::Embedding over the detached weight, in this module's training mode.
  std::shared_ptr<Module> to_float();
};

class EmbeddingBag : public nn::EmbeddingBag {
 public:
  EmbeddingBag(int64_t num_embeddings, int64_t embedding_dim,
               std::optional<double> max_norm = std::nullopt, double norm_type = 2.0,
               bool scale_grad_by_freq = false, std::string mode = "mean", bool sparse = false,
               const Tensor& _weight = Tensor(), bool include_last_offset = false,
               std::optional<int64_t> padding_idx = std::nullopt,
               quantization::QConfigPtr qconfig = nullptr, TensorOptions options = {});
  Tensor forward(const Tensor& input, const std::optional<Tensor>& offsets = std::nullopt,
                 const std::optional<Tensor>& per_sample_weights = std::nullopt);
  Value forward(const std::vector<Value>& inputs) override;
  static std::shared_ptr<EmbeddingBag> from_float(Module& mod);
  std::shared_ptr<Module> to_float();
};

}  // namespace ember::nn::qat
