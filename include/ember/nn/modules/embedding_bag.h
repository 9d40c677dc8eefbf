// torch.nn.EmbeddingBag: sums, means or maxima of bags of embeddings (PyTorch 1.13's arguments,
// initialisation N(0, 1) with the padding row zeroed, repr and checks).
//
//   nn::EmbeddingBag bag(10, 3, std::nullopt, 2.0, false, "sum");
//   Tensor out = bag.forward(indices, offsets);                 // [bags, 3]
#pragma once

#include <optional>
#include <string>

#include "ember/nn/module.h"
#include "ember/tensor_options.h"

namespace ember::nn {

class EmbeddingBag : public Module {
 public:
  EmbeddingBag(int64_t num_embeddings, int64_t embedding_dim,
               std::optional<double> max_norm = std::nullopt, double norm_type = 2.0,
               bool scale_grad_by_freq = false, std::string mode = "mean", bool sparse = false,
               const Tensor& _weight = Tensor(), bool include_last_offset = false,
               std::optional<int64_t> padding_idx = std::nullopt, TensorOptions options = {});
  static std::shared_ptr<EmbeddingBag> from_pretrained(
      const Tensor& embeddings, bool freeze = true, std::optional<double> max_norm = std::nullopt,
      double norm_type = 2.0, bool scale_grad_by_freq = false, std::string mode = "mean",
      bool sparse = false, bool include_last_offset = false,
      std::optional<int64_t> padding_idx = std::nullopt);
  void reset_parameters();
  Tensor forward(const Tensor& input, const std::optional<Tensor>& offsets = std::nullopt,
                 const std::optional<Tensor>& per_sample_weights = std::nullopt);
  /// (input, offsets=None, per_sample_weights=None)
  Value forward(const std::vector<Value>& inputs) override;
  /// "10, 3, mode=mean" plus the options that differ from the defaults.
  std::string extra_repr() const override;
  Tensor& weight() { return parameter("weight"); }

  int64_t num_embeddings;
  int64_t embedding_dim;
  std::optional<double> max_norm;
  double norm_type;
  bool scale_grad_by_freq;
  std::string mode;
  bool sparse;
  bool include_last_offset;
  std::optional<int64_t> padding_idx;
};

}  // namespace ember::nn
