// torch.nn.Embedding: a lookup table of num_embeddings rows of embedding_dim values, read by
// integer indices. weight is drawn from N(0, 1), with the padding row zeroed.
//
//   ember::nn::Embedding emb(10, 3, /*padding_idx=*/0);
//   ember::Tensor v = emb(ember::tensor({1, 0, 4}));                    // [3, 3]
//   auto frozen = ember::nn::Embedding::from_pretrained(pretrained);    // no grad
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/options.h"
#include "ember/tensor_options.h"

namespace ember::nn {

/// Embedding's arguments (libtorch's EmbeddingOptions).
struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.0;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(bool, sparse) = false;
  EMBER_ARG(Tensor, _weight) = Tensor();
  EMBER_ARG(TensorOptions, options) = {};
};

class Embedding : public Module {
 public:
  /// padding_idx may count from the end (-1: the last row) and is stored non-negative; its row
  /// gets no gradient. max_norm renormalises, in place, the rows a forward looks up whose
  /// norm_type-norm exceeds it. `_weight`, when defined, becomes the parameter as it is (sharing
  /// its storage; options are then unused, nothing is initialised), as PyTorch's `_weight`.
  Embedding(int64_t num_embeddings, int64_t embedding_dim,
            std::optional<int64_t> padding_idx = std::nullopt,
            std::optional<double> max_norm = std::nullopt, double norm_type = 2.0,
            bool scale_grad_by_freq = false, bool sparse = false, const Tensor& _weight = Tensor(),
            TensorOptions options = {});
  explicit Embedding(const EmbeddingOptions& o)
      : Embedding(o.num_embeddings(), o.embedding_dim(), o.padding_idx(), o.max_norm(),
                  o.norm_type(), o.scale_grad_by_freq(), o.sparse(), o._weight(), o.options()) {}
  /// An Embedding over a 2-d `embeddings` tensor (shared, not copied), frozen by default.
  static std::shared_ptr<Embedding> from_pretrained(
      const Tensor& embeddings, bool freeze = true, std::optional<int64_t> padding_idx = std::nullopt,
      std::optional<double> max_norm = std::nullopt, double norm_type = 2.0,
      bool scale_grad_by_freq = false, bool sparse = false);

  /// normal_(weight), then zeroes the padding row (nothing happens to a meta weight).
  void reset_parameters();
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "10, 3" then, when set, ", padding_idx=0", ", max_norm=1.5", ", norm_type=1.0",
  /// ", scale_grad_by_freq=True", ", sparse=True".
  std::string extra_repr() const override;

  Tensor& weight() { return parameter("weight"); }

  int64_t num_embeddings;
  int64_t embedding_dim;
  std::optional<int64_t> padding_idx;
  std::optional<double> max_norm;
  double norm_type;
  bool scale_grad_by_freq;
  bool sparse;
};

}  // namespace ember::nn
