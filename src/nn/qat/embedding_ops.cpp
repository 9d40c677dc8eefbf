// nn.qat.Embedding / EmbeddingBag (ember/nn/qat/embedding_ops.h): torch/ao/nn/qat/modules/
// embedding_ops.py. from_float's asserts and texts are PyTorch's.
#include "ember/nn/qat/embedding_ops.h"

#include "../modules/module_util.h"
#include "../modules/seq_util.h"
#include "ember/error.h"
#include "ember/nn/functional.h"
#include "ember/nn/functional_embedding_bag.h"
#include "ember/nn/module_clone.h"
#include "ember/nn/qat/modules.h"
#include "ember/quantization/fake_quantize.h"
#include "ember/quantization/observer.h"
#include "ember/quantized/tensor.h"
#include "qat_util.h"

namespace ember::nn::qat {

namespace {

std::string qscheme_text(QScheme q) {
  switch (q) {
    case QScheme::PerTensorAffine: return "ember.per_tensor_affine";
    case QScheme::PerChannelAffine: return "ember.per_channel_affine";
    case QScheme::PerTensorSymmetric: return "ember.per_tensor_symmetric";
    case QScheme::PerChannelSymmetric: return "ember.per_channel_symmetric";
    case QScheme::PerChannelAffineFloatQParams: return "ember.per_channel_affine_float_qparams";
  }
  return "?";
}

// `qconfig.weight().qscheme`: a fresh weight module's qscheme (C++ fake-quantize modules and
// observers say it; another module answers through observed_qparams).
QScheme weight_qscheme(const quantization::QConfigPtr& qconfig) {
  std::shared_ptr<Module> w = qconfig->weight();
  if (auto* f = dynamic_cast<quantization::FakeQuantizeBase*>(w.get())) return f->qscheme();
  if (auto* o = dynamic_cast<quantization::ObserverBase*>(w.get())) return o->qscheme();
  return quantization::observed_qparams(*w).qscheme;
}

void check_float_qparams(const quantization::QConfigPtr& qconfig, const char* what) {
  EMBER_CHECK_ASSERTION(qconfig != nullptr, "qconfig must be provided for QAT module");
  EMBER_CHECK_VALUE(static_cast<bool>(qconfig->weight),
                    "the qconfig has no weight factory (a QAT module fake-quantizes its weight)");
  const QScheme q = weight_qscheme(qconfig);
  EMBER_CHECK_ASSERTION(q == QScheme::PerChannelAffineFloatQParams, what,
                        " weights requires a qscheme of ember.per_channel_affine_float_qparams "
                        "Got ",
                        qscheme_text(q));
}

}  // namespace

// ---- Embedding ----

Embedding::Embedding(int64_t num_embeddings, int64_t embedding_dim,
                     std::optional<int64_t> padding_idx, std::optional<double> max_norm,
                     double norm_type, bool scale_grad_by_freq, bool sparse, const Tensor& _weight,
                     quantization::QConfigPtr qconfig, TensorOptions options)
    : nn::Embedding(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                    scale_grad_by_freq, sparse, _weight, options) {
  check_float_qparams(qconfig, "Embedding");
  detail::attach_weight_fake_quant(*this, qconfig);
}

Tensor Embedding::forward(const Tensor& input) {
  return functional::embedding(input, detail::fake_quant_weight(*this, weight()), padding_idx,
                               max_norm, norm_type, scale_grad_by_freq, sparse);
}

Value Embedding::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"input"});
  return Value(forward(inputs[0].to_tensor()));
}

std::shared_ptr<Embedding> Embedding::from_float(Module& mod) {
  auto qconfig = qat_detail::checked_float_qconfig(mod, typeid(nn::Embedding), "Embedding",
                                                   "Embedding", " qat.");
  const QScheme q = weight_qscheme(qconfig);
  EMBER_CHECK_ASSERTION(q == QScheme::PerChannelAffineFloatQParams,
                        "Embedding weights requires a qscheme of "
                        "ember.per_channel_affine_float_qparams Got ",
                        qscheme_text(q));
  auto& f = static_cast<nn::Embedding&>(mod);
  return std::make_shared<Embedding>(f.num_embeddings, f.embedding_dim, f.padding_idx, f.max_norm,
                                     f.norm_type, f.scale_grad_by_freq, f.sparse, f.weight(),
                                     qconfig);
}

std::shared_ptr<Module> Embedding::to_float() {
  auto e = std::make_shared<nn::Embedding>(num_embeddings, embedding_dim, padding_idx, max_norm,
                                           norm_type, scale_grad_by_freq, sparse);
  e->weight() = qat_detail::detached_parameter(weight());
  e->train(is_training());
  return e;
}

// ---- EmbeddingBag ----

EmbeddingBag::EmbeddingBag(int64_t num_embeddings, int64_t embedding_dim,
                           std::optional<double> max_norm, double norm_type,
                           bool scale_grad_by_freq, std::string mode, bool sparse,
                           const Tensor& _weight, bool include_last_offset,
                           std::optional<int64_t> padding_idx, quantization::QConfigPtr qconfig,
                           TensorOptions options)
    : nn::EmbeddingBag(num_embeddings, embedding_dim, max_norm, norm_type, scale_grad_by_freq,
                       std::move(mode), sparse, _weight, include_last_offset, padding_idx,
                       options) {
  check_float_qparams(qconfig, "Embedding Bag");
  detail::attach_weight_fake_quant(*this, qconfig);
}

Tensor EmbeddingBag::forward(const Tensor& input, const std::optional<Tensor>& offsets,
                             const std::optional<Tensor>& per_sample_weights) {
  return functional::embedding_bag(input, detail::fake_quant_weight(*this, weight()), offsets,
                                   max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                                   per_sample_weights, include_last_offset, padding_idx);
}

Value EmbeddingBag::forward(const std::vector<Value>& in) {
  nn::detail::check_seq_forward_inputs(type_name(), in, {"input"}, 2);
  return Value(forward(in[0].to_tensor(), nn::detail::value_opt_tensor(in, 1),
                       nn::detail::value_opt_tensor(in, 2)));
}

std::shared_ptr<EmbeddingBag> EmbeddingBag::from_float(Module& mod) {
  auto qconfig = qat_detail::checked_float_qconfig(mod, typeid(nn::EmbeddingBag), "EmbeddingBag",
                                                   "EmbeddingBag", " qat.");
  const QScheme q = weight_qscheme(qconfig);
  EMBER_CHECK_ASSERTION(q == QScheme::PerChannelAffineFloatQParams,
                        "Embedding Bag weights requires a qscheme of "
                        "ember.per_channel_affine_float_qparams Got ",
                        qscheme_text(q));
  auto& f = static_cast<nn::EmbeddingBag&>(mod);
  return std::make_shared<EmbeddingBag>(f.num_embeddings, f.embedding_dim, f.max_norm,
                                        f.norm_type, f.scale_grad_by_freq, f.mode, f.sparse,
                                        f.weight(), f.include_last_offset, f.padding_idx, qconfig);
}

std::shared_ptr<Module> EmbeddingBag::to_float() {
  auto e = std::make_shared<nn::EmbeddingBag>(num_embeddings, embedding_dim, max_norm, norm_type,
                                              scale_grad_by_freq, mode, sparse, Tensor(),
                                              include_last_offset, padding_idx);
  e->weight() = qat_detail::detached_parameter(weight());
  e->train(is_training());
  return e;
}

namespace {
const bool registered = [] {
  register_cloneable<Embedding>();
  register_cloneable<EmbeddingBag>();
  return true;
}();
}  // namespace

}  // namespace ember::nn::qat
