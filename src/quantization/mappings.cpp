// torch.ao.quantization.quantization_mappings for ember's classes
// (Note [Module classes across the front end]).
#include "ember/quantization/mappings.h"

#include <algorithm>
#include <atomic>

#include "ember/nn/intrinsic/fused.h"
#include "ember/nn/intrinsic/qat/modules.h"
#include "ember/nn/qat/modules.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/activation_more.h"
#include "ember/nn/modules/layers_more.h"
#include "ember/nn/modules/normalization.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/embedding.h"
#include "ember/nn/modules/embedding_bag.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/rnn.h"
#include "ember/nn/quantized/activation_more.h"
#include "ember/nn/quantized/conv.h"
#include "ember/nn/quantized/conv_more.h"
#include "ember/nn/quantized/embedding.h"
#include "ember/nn/quantized/norm_more.h"
#include "ember/nn/quantized/linear.h"
#include "ember/nn/quantized/modules.h"
#include "ember/nn/quantized/linear_relu_dynamic.h"
#include "ember/nn/quantized/prelu.h"
#include "ember/nn/quantized/rnn.h"
#include "ember/quantization/stubs.h"

namespace ember::quantization {

namespace nnq = ember::nn::quantized;
namespace nni = ember::nn::intrinsic;
namespace nniqat = ember::nn::intrinsic::qat;
namespace nnqat = ember::nn::qat;

ModuleMapping& ModuleMapping::add(std::type_index key, Converter converter) {
  for (auto& [k, c] : entries_) {
    if (k == key) {
      c = std::move(converter);
      return *this;
    }
  }
  entries_.emplace_back(key, std::move(converter));
  return *this;
}

ModuleMapping& ModuleMapping::remove(std::type_index key) {
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [&](const auto& e) { return e.first == key; }),
                 entries_.end());
  return *this;
}

std::optional<Converter> ModuleMapping::find(const nn::Module& m) const {
  const std::type_index key(typeid(m));
  for (const auto& [k, c] : entries_)
    if (k == key) return c;
  return std::nullopt;
}

bool ModuleMapping::contains(std::type_index key) const {
  for (const auto& e : entries_)
    if (e.first == key) return true;
  return false;
}

MappingLookup ModuleMapping::lookup() const {
  return [table = *this](nn::Module& m) { return table.find(m); };
}

ModuleClassSet ModuleMapping::keys() const {
  std::vector<std::type_index> keys;
  for (const auto& e : entries_) keys.push_back(e.first);
  return class_set(std::move(keys));
}

ModuleClassSet class_set(std::vector<std::type_index> classes) {
  return [classes = std::move(classes)](nn::Module& m) {
    return std::find(classes.begin(), classes.end(), std::type_index(typeid(m))) != classes.end();
  };
}

ModuleClassSet set_union(ModuleClassSet a, ModuleClassSet b) {
  return [a = std::move(a), b = std::move(b)](nn::Module& m) {
    return (a && a(m)) || (b && b(m));
  };
}

namespace {

/// A converter calling Q::from_float.
template <class Q>
Converter from_float() {
  return [](nn::Module& m) -> std::shared_ptr<nn::Module> { return Q::from_float(m); };
}

}  // namespace

ModuleMapping get_default_static_quant_module_mappings() {
  ModuleMapping m;
  m.add<QuantStub>(from_float<nnq::Quantize>())
      .add<DeQuantStub>(from_float<nnq::DeQuantize>())
      .add<nn::BatchNorm2d>(from_float<nnq::BatchNorm2d>())
      .add<nn::PReLU>(from_float<nnq::PReLU>())
      .add<nn::BatchNorm3d>(from_float<nnq::BatchNorm3d>())
      .add<nn::Conv1d>(from_float<nnq::Conv1d>())
      .add<nn::Conv2d>(from_float<nnq::Conv2d>())
      .add<nn::Conv3d>(from_float<nnq::Conv3d>())
      .add<nn::ConvTranspose1d>(from_float<nnq::ConvTranspose1d>())
      .add<nn::ConvTranspose2d>(from_float<nnq::ConvTranspose2d>())
      .add<nn::ConvTranspose3d>(from_float<nnq::ConvTranspose3d>())
      .add<nn::Dropout>(from_float<nnq::Dropout>())
      .add<nn::ELU>(from_float<nnq::ELU>())
      .add<nn::Embedding>(from_float<nnq::Embedding>())
      .add<nn::EmbeddingBag>(from_float<nnq::EmbeddingBag>())
      .add<nn::GroupNorm>(from_float<nnq::GroupNorm>())
      .add<nn::Hardswish>(from_float<nnq::Hardswish>())
      .add<nn::InstanceNorm1d>(from_float<nnq::InstanceNorm1d>())
      .add<nn::InstanceNorm2d>(from_float<nnq::InstanceNorm2d>())
      .add<nn::InstanceNorm3d>(from_float<nnq::InstanceNorm3d>())
      .add<nn::LayerNorm>(from_float<nnq::LayerNorm>())
      .add<nn::LeakyReLU>(from_float<nnq::LeakyReLU>())
      .add<nn::Linear>(from_float<nnq::Linear>())
      .add<nn::ReLU6>(from_float<nnq::ReLU6>())
      .add<nnq::FloatFunctional>(from_float<nnq::QFunctional>())
      .add<nni::BNReLU2d>(from_float<nnq::BNReLU2d>())
      .add<nni::BNReLU3d>(from_float<nnq::BNReLU3d>())
      .add<nni::ConvReLU1d>(from_float<nnq::ConvReLU1d>())
      .add<nni::ConvReLU2d>(from_float<nnq::ConvReLU2d>())
      .add<nni::ConvReLU3d>(from_float<nnq::ConvReLU3d>())
      .add<nni::LinearReLU>(from_float<nnq::LinearReLU>())
      .add<nniqat::ConvBn1d>(from_float<nnq::Conv1d>())
      .add<nniqat::ConvBn2d>(from_float<nnq::Conv2d>())
      .add<nniqat::ConvBn3d>(from_float<nnq::Conv3d>())
      .add<nniqat::ConvBnReLU1d>(from_float<nnq::ConvReLU1d>())
      .add<nniqat::ConvBnReLU2d>(from_float<nnq::ConvReLU2d>())
      .add<nniqat::ConvBnReLU3d>(from_float<nnq::ConvReLU3d>())
      .add<nniqat::ConvReLU2d>(from_float<nnq::ConvReLU2d>())
      .add<nniqat::ConvReLU3d>(from_float<nnq::ConvReLU3d>())
      .add<nniqat::LinearReLU>(from_float<nnq::LinearReLU>())
      .add<nniqat::LinearBn1d>(from_float<nnq::Linear>())
      .add<nnqat::Linear>(from_float<nnq::Linear>())
      .add<nnqat::Conv2d>(from_float<nnq::Conv2d>())
      .add<nnqat::Conv3d>(from_float<nnq::Conv3d>());
  return m;
}

ModuleMapping get_default_qat_module_mappings() {
  ModuleMapping m;
  m.add<nn::Conv2d>(from_float<nnqat::Conv2d>())
      .add<nn::Conv3d>(from_float<nnqat::Conv3d>())
      .add<nn::Linear>(from_float<nnqat::Linear>())
      .add<nni::ConvBn1d>(from_float<nniqat::ConvBn1d>())
      .add<nni::ConvBn2d>(from_float<nniqat::ConvBn2d>())
      .add<nni::ConvBn3d>(from_float<nniqat::ConvBn3d>())
      .add<nni::ConvBnReLU1d>(from_float<nniqat::ConvBnReLU1d>())
      .add<nni::ConvBnReLU2d>(from_float<nniqat::ConvBnReLU2d>())
      .add<nni::ConvBnReLU3d>(from_float<nniqat::ConvBnReLU3d>())
      .add<nni::ConvReLU2d>(from_float<nniqat::ConvReLU2d>())
      .add<nni::ConvReLU3d>(from_float<nniqat::ConvReLU3d>())
      .add<nni::LinearReLU>(from_float<nniqat::LinearReLU>())
      .add<nni::LinearBn1d>(from_float<nniqat::LinearBn1d>());
  return m;
}

ModuleMapping get_default_dynamic_quant_module_mappings() {
  ModuleMapping m;
  m.add<nn::GRUCell>(from_float<nnq::dynamic::GRUCell>())
      .add<nn::Linear>(from_float<nnq::dynamic::Linear>())
      .add<nn::LSTM>(from_float<nnq::dynamic::LSTM>())
      .add<nn::GRU>(from_float<nnq::dynamic::GRU>())
      .add<nn::LSTMCell>(from_float<nnq::dynamic::LSTMCell>())
      .add<nn::RNNCell>(from_float<nnq::dynamic::RNNCell>())
      .add<nni::LinearReLU>(from_float<nnq::dynamic::LinearReLU>())
      .add<nn::EmbeddingBag>(from_float<nnq::EmbeddingBag>())
      .add<nn::Embedding>(from_float<nnq::Embedding>());
  return m;
}

ModuleClassSet get_default_qconfig_propagation_list() {
  std::vector<std::type_index> keys;
  for (const auto& table : {get_default_static_quant_module_mappings(),
                            get_default_qat_module_mappings(),
                            get_default_dynamic_quant_module_mappings()}) {
    for (const auto& e : table.entries())
      if (std::find(keys.begin(), keys.end(), e.first) == keys.end()) keys.push_back(e.first);
  }
  keys.emplace_back(typeid(nn::Sequential));
  return class_set(std::move(keys));
}

ModuleClassSet no_observer_set() {
  return [](nn::Module&) { return false; };
}

namespace {
std::atomic<ClassRepr> g_class_repr{nullptr};
}  // namespace

std::string module_class_repr(const nn::Module& m) {
  if (auto fn = g_class_repr.load()) return fn(m);
  return "<class '" + m.type_name() + "'>";
}

void set_module_class_repr(ClassRepr fn) { g_class_repr = fn; }

namespace {
std::atomic<FrontEndQuantRange> g_quant_range{nullptr};
}  // namespace

void set_front_end_quant_range(FrontEndQuantRange fn) { g_quant_range = fn; }

std::optional<std::pair<int64_t, int64_t>> front_end_quant_range(nn::Module& m) {
  if (auto fn = g_quant_range.load()) return fn(m);
  return std::nullopt;
}

}  // namespace ember::quantization
