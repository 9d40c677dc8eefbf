// nn::EmbeddingBag: PyTorch 1.13's module over nn::functional::embedding_bag.
#include "ember/nn/modules/embedding_bag.h"

#include "ember/grad_mode.h"
#include "ember/nn/functional_embedding_bag.h"
#include "ember/nn/init.h"
#include "ember/nn/module_clone.h"
#include "ember/ops/factory.h"
#include "module_util.h"
#include "seq_util.h"

namespace ember::nn {

EmbeddingBag::EmbeddingBag(int64_t num_embeddings_, int64_t embedding_dim_,
                           std::optional<double> max_norm_, double norm_type_,
                           bool scale_grad_by_freq_, std::string mode_, bool sparse_,
                           const Tensor& _weight, bool include_last_offset_,
                           std::optional<int64_t> padding_idx_, TensorOptions options)
    : Module("EmbeddingBag"),
      num_embeddings(num_embeddings_),
      embedding_dim(embedding_dim_),
      max_norm(max_norm_),
      norm_type(norm_type_),
      scale_grad_by_freq(scale_grad_by_freq_),
      mode(std::move(mode_)),
      sparse(sparse_),
      include_last_offset(include_last_offset_) {
  // Python's asserts, with their texts.
  if (padding_idx_) {
    if (*padding_idx_ > 0) {
      EMBER_CHECK_ASSERTION(*padding_idx_ < num_embeddings, "padding_idx must be within num_embeddings");
    } else if (*padding_idx_ < 0) {
      EMBER_CHECK_ASSERTION(*padding_idx_ >= -num_embeddings, "padding_idx must be within num_embeddings");
      padding_idx_ = num_embeddings + *padding_idx_;
    }
  }
  padding_idx = padding_idx_;
  if (!_weight.defined()) {
    register_parameter("weight", empty({num_embeddings, embedding_dim}, options));
    reset_parameters();
  } else {
    EMBER_CHECK_ASSERTION(_weight.sizes().vec() == std::vector<int64_t>({num_embeddings, embedding_dim}),
                          "Shape of weight does not match num_embeddings and embedding_dim");
    register_parameter("weight", _weight);
  }
}

std::shared_ptr<EmbeddingBag> EmbeddingBag::from_pretrained(
    const Tensor& embeddings, bool freeze, std::optional<double> max_norm, double norm_type,
    bool scale_grad_by_freq, std::string mode, bool sparse, bool include_last_offset,
    std::optional<int64_t> padding_idx) {
  EMBER_CHECK_ASSERTION(embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional");
  auto e = std::make_shared<EmbeddingBag>(embeddings.size(0), embeddings.size(1), max_norm,
                                          norm_type, scale_grad_by_freq, std::move(mode), sparse,
                                          embeddings, include_last_offset, padding_idx);
  e->weight().requires_grad_(!freeze);
  return e;
}

void EmbeddingBag::reset_parameters() {
  init::normal_(weight());
  if (padding_idx) {
    NoGradGuard no_grad;
    weight().select(0, *padding_idx).fill_(0);
  }
}

Tensor EmbeddingBag::forward(const Tensor& input, const std::optional<Tensor>& offsets,
                             const std::optional<Tensor>& per_sample_weights) {
  return functional::embedding_bag(input, weight(), offsets, max_norm, norm_type,
                                   scale_grad_by_freq, mode, sparse, per_sample_weights,
                                   include_last_offset, padding_idx);
}

Value EmbeddingBag::forward(const std::vector<Value>& in) {
  detail::check_seq_forward_inputs(type_name(), in, {"input"}, 2);
  return forward(in[0].to_tensor(), detail::value_opt_tensor(in, 1), detail::value_opt_tensor(in, 2));
}

std::string EmbeddingBag::extra_repr() const {
  std::string s = std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim);
  if (max_norm) s += ", max_norm=" + detail::py_float(*max_norm);
  if (norm_type != 2.0) s += ", norm_type=" + detail::py_float(norm_type);
  if (scale_grad_by_freq) s += ", scale_grad_by_freq=True";
  s += ", mode=" + mode;
  if (padding_idx) s += ", padding_idx=" + std::to_string(*padding_idx);
  return s;
}

namespace {
const bool registered = (register_cloneable<EmbeddingBag>(), true);
}

}  // namespace ember::nn
