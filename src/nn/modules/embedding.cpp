// nn::Embedding: PyTorch 1.13's constructor checks, initialisation, from_pretrained and repr.
#include "ember/nn/modules/embedding.h"

#include "ember/grad_mode.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/ops/factory.h"
#include "module_util.h"

namespace ember::nn {

Embedding::Embedding(int64_t num_embeddings_, int64_t embedding_dim_,
                     std::optional<int64_t> padding_idx_, std::optional<double> max_norm_,
                     double norm_type_, bool scale_grad_by_freq_, bool sparse_,
                     const Tensor& _weight, TensorOptions options)
    : Module("Embedding"),
      num_embeddings(num_embeddings_),
      embedding_dim(embedding_dim_),
      max_norm(max_norm_),
      norm_type(norm_type_),
      scale_grad_by_freq(scale_grad_by_freq_),
      sparse(sparse_) {
  // Python's asserts (AssertionError there), with their texts.
  if (padding_idx_) {
    if (*padding_idx_ > 0) {
      EMBER_CHECK(*padding_idx_ < num_embeddings, "Padding_idx must be within num_embeddings");
    } else if (*padding_idx_ < 0) {
      EMBER_CHECK(*padding_idx_ >= -num_embeddings, "Padding_idx must be within num_embeddings");
      padding_idx_ = num_embeddings + *padding_idx_;
    }
  }
  padding_idx = padding_idx_;
  if (!_weight.defined()) {
    register_parameter("weight", empty({num_embeddings, embedding_dim}, options));
    reset_parameters();
  } else {
    EMBER_CHECK(_weight.sizes().vec() == std::vector<int64_t>({num_embeddings, embedding_dim}),
                "Shape of weight does not match num_embeddings and embedding_dim");
    register_parameter("weight", _weight);
  }
}

std::shared_ptr<Embedding> Embedding::from_pretrained(const Tensor& embeddings, bool freeze,
                                                      std::optional<int64_t> padding_idx,
                                                      std::optional<double> max_norm,
                                                      double norm_type, bool scale_grad_by_freq,
                                                      bool sparse) {
  EMBER_CHECK(embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional");
  auto e = std::make_shared<Embedding>(embeddings.size(0), embeddings.size(1), padding_idx,
                                       max_norm, norm_type, scale_grad_by_freq, sparse, embeddings);
  e->weight().requires_grad_(!freeze);
  return e;
}

void Embedding::reset_parameters() {
  init::normal_(weight());
  if (padding_idx) {
    // On a meta weight the select and fill only check shapes: nothing is written.
    NoGradGuard no_grad;
    weight().select(0, *padding_idx).fill_(0);
  }
}

Tensor Embedding::forward(const Tensor& input) {
  return functional::embedding(input, weight(), padding_idx, max_norm, norm_type,
                               scale_grad_by_freq, sparse);
}

Value Embedding::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::string Embedding::extra_repr() const {
  std::string s = std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim);
  if (padding_idx) s += ", padding_idx=" + std::to_string(*padding_idx);
  if (max_norm) s += ", max_norm=" + detail::py_float(*max_norm);
  if (norm_type != 2.0) s += ", norm_type=" + detail::py_float(norm_type);
  if (scale_grad_by_freq) s += ", scale_grad_by_freq=True";
  if (sparse) s += ", sparse=True";
  return s;
}

}  // namespace ember::nn
