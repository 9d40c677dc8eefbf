// nnq.Embedding / nnq.EmbeddingBag and their EmbeddingPackedParams child
// (ember/nn/quantized/embedding.h): torch/ao/nn/quantized/modules/embedding_ops.py of PyTorch
// 1.13, its asserts and texts included.
#include "ember/nn/quantized/embedding.h"

#include <cstring>
#include <typeinfo>

#include "../../nn/modules/module_util.h"
#include "../../nn/modules/seq_util.h"
#include "ember/nn/modules/embedding.h"
#include "ember/nn/modules/embedding_bag.h"
#include "ember/nn/module_clone.h"
#include "ember/nn/qat/embedding_ops.h"
#include "ember/nn/quantized/utils.h"
#include "ember/ops/factory.h"
#include "ember/print.h"
#include "ember/quantization/fake_quantize.h"
#include "ember/quantization/observer.h"
#include "ember/quantization/qconfig.h"
#include "ember/quantized/tensor.h"
#include "from_float_util.h"
#include "module_state.h"
#include "quant/quantizer.h"

namespace ember::nn::quantized {

namespace q = ember::quantized;
namespace quant = ember::quantization;

namespace {

// torch's `assert`s (AssertionError in Python).
#define QE_ASSERT(cond, ...)                                                              \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      throw ::ember::quantization::AssertionError(::ember::detail::str_cat(__VA_ARGS__)); \
    }                                                                                     \
  } while (0)

bool supported_dtype(ScalarType dtype) { return dtype == kQUInt8 || dtype == kQUInt4x2; }

void check_dtype(ScalarType dtype) {
  EMBER_CHECK_NOT_IMPLEMENTED(supported_dtype(dtype),
                              "Unsupported dtype on quantized embedding! Supports quint8 and "
                              "quint4x2. Got dtype: ",
                              dtype_repr(dtype));
}

// torch's _empty_per_channel_affine_quantized([rows, cols], scales=ones, zero_points=zeros(float),
// axis=0, dtype): a placeholder table (zeroed here, uninitialised in PyTorch).
Tensor placeholder_weight(int64_t rows, int64_t cols, ScalarType dtype) {
  Tensor w = _empty_per_channel_affine_quantized({rows, cols}, ones({rows}, kFloat32),
                                                 zeros({rows}, kFloat32), 0, dtype);
  if (w.numel() > 0) {
    std::memset(w.data_ptr(), 0, static_cast<size_t>(qtensor_nbytes(w.sizes(), dtype)));
  }
  return w;
}

ScalarType observer_dtype(Module& observer) {
  if (auto* o = dynamic_cast<quant::ObserverBase*>(&observer)) return o->dtype();
  if (auto* f = dynamic_cast<quant::FakeQuantizeBase*>(&observer)) return f->dtype();
  return quant::observed_qparams(observer).dtype;
}
QScheme observer_qscheme(Module& observer) {
  if (auto* o = dynamic_cast<quant::ObserverBase*>(&observer)) return o->qscheme();
  if (auto* f = dynamic_cast<quant::FakeQuantizeBase*>(&observer)) return f->qscheme();
  return quant::observed_qparams(observer).qscheme;
}

std::shared_ptr<Module> child_or_null(const Module& m, const std::string& name) {
  for (const auto& [n, c] : m.named_children())
    if (n == name) return c;
  return nullptr;
}

// What Embedding.from_float / EmbeddingBag.from_float share after choosing the observer: its
// checks, running it on the weight, and _quantize_weight.
Tensor observed_weight(Module& mod, Module& observer, const char* cls) {
  const ScalarType dtype = observer_dtype(observer);
  QE_ASSERT(observer_qscheme(observer) == QScheme::PerChannelAffineFloatQParams, cls,
            " quantization is only supported with float_qparams_weight_only_qconfig.");
  QE_ASSERT(supported_dtype(dtype), "The only supported dtype for nnq.", cls,
            " is ember.quint8 and ember.quint4x2, got ", dtype_repr(dtype));
  const Tensor w = mod.parameter("weight");
  observer.call({Value(w)});
  return from_float_util::quantize_with_observer(w.to(kFloat32), observer);
}

// `mod.qconfig.weight()` when the qconfig has one, else float_qparams_weight_only_qconfig's.
std::shared_ptr<Module> weight_observer(const Module& mod, const char* cls) {
  QE_ASSERT(mod.has_qconfig(), cls, " input float module must have qconfig defined");
  if (mod.qconfig() && mod.qconfig()->weight) return mod.qconfig()->weight();
  return quant::float_qparams_weight_only_qconfig()->weight();
}

}  // namespace

// ---- EmbeddingPackedParams ----

EmbeddingPackedParams::EmbeddingPackedParams(int64_t num_embeddings, int64_t embedding_dim,
                                             ScalarType dtype_)
    : Module("EmbeddingPackedParams"), dtype(dtype_) {
  check_dtype(dtype);
  set_weight(placeholder_weight(num_embeddings, embedding_dim, dtype));
}

void EmbeddingPackedParams::set_weight(const Tensor& weight) {
  EMBER_CHECK_NOT_IMPLEMENTED(supported_dtype(dtype), "Unsupported dtype for quantized embedding "
                              "prepack! Supports quint8 and quint4x2.");
  set_packed_weight(q::embedding_bag_prepack(weight));
}

Tensor EmbeddingPackedParams::_weight() const {
  EMBER_CHECK_NOT_IMPLEMENTED(supported_dtype(dtype), "Unsupported dtype for quantized embedding "
                              "unpack! Supports quint8 and quint4x2.");
  return q::embedding_bag_unpack(packed_);
}

void EmbeddingPackedParams::set_packed_weight(const q::EmbeddingPackedParamsPtr& packed) {
  EMBER_CHECK_TYPE(packed, "EmbeddingPackedParams._packed_weight must be an "
                           "EmbeddingPackedParamsBase object");
  packed_ = packed;
}

Value EmbeddingPackedParams::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"x"});
  return inputs[0];
}

std::string EmbeddingPackedParams::repr() const { return to_string(_weight()); }

void EmbeddingPackedParams::_save_to_state_dict(StateDict& destination, const std::string& prefix,
                                                bool keep_vars) {
  Module::_save_to_state_dict(destination, prefix, keep_vars);
  destination.insert(prefix + "dtype", Value(dtype));
  destination.insert(prefix + "_packed_weight", Value(_weight()));
}

void EmbeddingPackedParams::_load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                                                  LocalMetadata& local_metadata, bool /*strict*/,
                                                  std::vector<std::string>& missing_keys,
                                                  std::vector<std::string>& unexpected_keys,
                                                  std::vector<std::string>& error_msgs) {
  Value d = pop_entry(state_dict, prefix + "dtype");
  EMBER_CHECK_TYPE(d.is_dtype(), "state_dict entry '", prefix, "dtype' must be a dtype, got ",
                   d.type_name());
  const ScalarType new_dtype = d.to_dtype();
  const Tensor weight = pop_tensor(state_dict, prefix + "_packed_weight");
  EMBER_CHECK_NOT_IMPLEMENTED(supported_dtype(new_dtype), "Unsupported dtype for quantized "
                              "embedding prepack! Supports quint8 and quint4x2.");
  // Packed while the tree is checked; installed once every module has passed (all or nothing).
  q::EmbeddingPackedParamsPtr packed = q::embedding_bag_prepack(weight);
  Module::schedule_load_write([this, packed, new_dtype] {
    dtype = new_dtype;
    set_packed_weight(packed);
  });
  Module::_load_from_state_dict(state_dict, prefix, local_metadata, false, missing_keys,
                                unexpected_keys, error_msgs);
}

// ---- Embedding ----

Embedding::Embedding(int64_t num_embeddings_, int64_t embedding_dim_,
                     std::optional<int64_t> /*padding_idx*/, std::optional<double> /*max_norm*/,
                     double /*norm_type*/, bool /*scale_grad_by_freq*/, bool /*sparse*/,
                     const std::optional<Tensor>& weight, ScalarType dtype_)
    : Embedding("QuantizedEmbedding", num_embeddings_, embedding_dim_, weight, dtype_) {}

Embedding::Embedding(std::string type_name, int64_t num_embeddings_, int64_t embedding_dim_,
                     const std::optional<Tensor>& weight, ScalarType dtype_)
    : Module(std::move(type_name)), num_embeddings(num_embeddings_),
      embedding_dim(embedding_dim_), dtype(dtype_) {
  Tensor qweight;
  if (!weight) {
    // PyTorch makes the placeholder quint8 whatever dtype says.
    qweight = placeholder_weight(num_embeddings, embedding_dim, kQUInt8);
  } else {
    QE_ASSERT(weight->dim() == 2 && weight->size(0) == num_embeddings &&
                  weight->size(1) == embedding_dim,
              "Shape of weight does not match num_embeddings and embedding_dim");
    qweight = *weight;
  }
  auto packed = register_module(
      "_packed_params", std::make_shared<EmbeddingPackedParams>(num_embeddings, embedding_dim, dtype));
  packed->set_weight(qweight);
}

EmbeddingPackedParams& Embedding::packed_module() const {
  auto child = this->child("_packed_params");
  auto* p = dynamic_cast<EmbeddingPackedParams*>(child.get());
  EMBER_CHECK_TYPE(p != nullptr, type_name(),
                   "._packed_params must be an EmbeddingPackedParams module, got ",
                   child ? child->type_name() : std::string("None"));
  return *p;
}

void Embedding::set_weight(const Tensor& weight) { packed_module().set_weight(weight); }
Tensor Embedding::weight() const { return packed_module()._weight(); }

Tensor Embedding::forward(const Tensor& indices) {
  const auto& packed = packed_module().packed_weight();
  if (dtype == kQUInt4x2) return q::embedding_4bit(packed, indices);
  return q::embedding_byte(packed, indices);
}

Value Embedding::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"indices"});
  return Value(forward(inputs[0].to_tensor()));
}

std::string Embedding::extra_repr() const {
  return "num_embeddings=" + std::to_string(num_embeddings) +
         ", embedding_dim=" + std::to_string(embedding_dim) +
         ", dtype=" + dtype_repr(packed_module().dtype) +
         ", qscheme=" + qscheme_repr(ember::qscheme(weight()));
}

std::string Embedding::repr() const {
  // Module::repr without the packed-params children (PyTorch's hide_packed_params_repr).
  std::vector<std::pair<std::string, const Module*>> children;
  for (const auto& [n, m] : named_children()) {
    if (!dynamic_cast<const EmbeddingPackedParams*>(m.get())) children.emplace_back(n, m.get());
  }
  return nn::detail::format_repr(type_name(), extra_repr(), children);
}

std::shared_ptr<Embedding> Embedding::from_float(Module& mod) {
  std::shared_ptr<Module> observer;
  if (auto fq = child_or_null(mod, "weight_fake_quant")) {
    QE_ASSERT(typeid(mod) == typeid(qat::Embedding),
              "nnq.Embedding.from_float with fake quant only works for Embedding");
    observer = fq;
  } else {
    QE_ASSERT(typeid(mod) == typeid(nn::Embedding),
              "nnq.Embedding.from_float only works for Embedding");
    observer = weight_observer(mod, "Embedding");
  }
  const Tensor qweight = observed_weight(mod, *observer, "Embedding");
  auto& f = static_cast<nn::Embedding&>(mod);
  // PyTorch builds the module with the default dtype (quint8) whatever the weight's.
  auto qe = std::make_shared<Embedding>(f.num_embeddings, f.embedding_dim);
  qe->set_weight(qweight);
  return qe;
}

// ---- EmbeddingBag ----

EmbeddingBag::EmbeddingBag(int64_t num_embeddings_, int64_t embedding_dim_,
                           std::optional<double> /*max_norm*/, double /*norm_type*/,
                           bool /*scale_grad_by_freq*/, std::string mode_, bool /*sparse*/,
                           const std::optional<Tensor>& weight, bool include_last_offset_,
                           ScalarType dtype_)
    : Embedding("QuantizedEmbeddingBag", num_embeddings_, embedding_dim_, weight, dtype_),
      mode(std::move(mode_)), include_last_offset(include_last_offset_) {}

Tensor EmbeddingBag::forward(const Tensor& indices, const std::optional<Tensor>& offsets,
                             const std::optional<Tensor>& per_sample_weights,
                             const std::optional<Tensor>& compressed_indices_mapping) {
  const auto& packed = packed_module().packed_weight();
  if (dtype == kQUInt4x2) {
    return q::embedding_bag_4bit(packed, indices, offsets, false, 0, pruned_weights,
                                 per_sample_weights, compressed_indices_mapping,
                                 include_last_offset);
  }
  return q::embedding_bag_byte(packed, indices, offsets, false, 0, pruned_weights,
                               per_sample_weights, compressed_indices_mapping,
                               include_last_offset);
}

Tensor EmbeddingBag::forward(const Tensor& indices) { return forward(indices, std::nullopt); }

Value EmbeddingBag::forward(const std::vector<Value>& in) {
  nn::detail::check_seq_forward_inputs(type_name(), in, {"indices"}, 3);
  return Value(forward(in[0].to_tensor(), nn::detail::value_opt_tensor(in, 1),
                       nn::detail::value_opt_tensor(in, 2), nn::detail::value_opt_tensor(in, 3)));
}

std::shared_ptr<EmbeddingBag> EmbeddingBag::from_float(Module& mod) {
  std::shared_ptr<Module> observer;
  if (auto fq = child_or_null(mod, "weight_fake_quant")) {
    observer = fq;
  } else {
    QE_ASSERT(typeid(mod) == typeid(nn::EmbeddingBag),
              "nnq.EmbeddingBag.from_float only works for EmbeddingBag");
    observer = weight_observer(mod, "EmbeddingBag");
  }
  const Tensor qweight = observed_weight(mod, *observer, "EmbeddingBag");
  auto& f = static_cast<nn::EmbeddingBag&>(mod);
  auto qe = std::make_shared<EmbeddingBag>(f.num_embeddings, f.embedding_dim, std::nullopt, 2.0,
                                           false, "sum", false, std::nullopt, false,
                                           observer_dtype(*observer));
  qe->set_weight(qweight);
  return qe;
}

// ---- copies ----
namespace {
// A copy packs the weight again (its own packed object), as PyTorch's deepcopy does through
// the packed object's __getstate__ / __setstate__.
void repack(Module& copy, CloneMemo& /*memo*/) {
  auto& m = static_cast<EmbeddingPackedParams&>(copy);
  m.set_packed_weight(q::embedding_bag_prepack(m._weight()));
}

const bool registered = [] {
  register_cloneable<EmbeddingPackedParams>();
  register_cloneable<Embedding>();
  register_cloneable<EmbeddingBag>();
  detail::register_fixup(typeid(EmbeddingPackedParams), repack);
  return true;
}();
}  // namespace

}  // namespace ember::nn::quantized
