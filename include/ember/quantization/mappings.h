// The tables of eager-mode quantization (torch.ao.quantization.quantization_mappings): which
// float module class becomes which quantized / QAT / dynamic class, and which classes get
// observers. Keys are exact classes, as torch's `type(mod) in mapping`: a subclass of
// nn::Conv2d is not nn::Conv2d.
//
//   auto mapping = ember::quantization::get_default_static_quant_module_mappings();
//   mapping.add<MyFloat>([](ember::nn::Module& m) { return MyQuantized::from_float(m); });
//   ember::quantization::convert(*model, mapping.lookup());
//
// Note [Module classes across the front end]
// The algorithms (prepare, convert, ...) ask questions about a module's class through
// functions: MappingLookup ("what replaces this module?") and ModuleClassSet ("is its class in
// this set?"). C++ tables answer by typeid; the Python binding answers from Python dicts and
// sets keyed by Python classes (`type(m)` of the module's Python object), so a user's own
// Python class works in `mapping=` exactly as in torch, and a C++ parent of it needs no Python.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

#include "ember/nn/module.h"

namespace ember::quantization {

/// Makes the replacement of an observed float module (torch: `QuantizedClass.from_float(mod)`).
using Converter = std::function<std::shared_ptr<nn::Module>(nn::Module& observed)>;
/// The replacement maker for `m`'s exact class, or nullopt when the mapping has none.
using MappingLookup = std::function<std::optional<Converter>(nn::Module& m)>;
/// Whether `m`'s exact class is in a set (torch: `type(m) in some_set`).
using ModuleClassSet = std::function<bool(nn::Module& m)>;

/// A table keyed by exact C++ classes.
class ModuleMapping {
 public:
  template <class Float>
  ModuleMapping& add(Converter converter) {
    return add(std::type_index(typeid(Float)), std::move(converter));
  }
  /// Adds or replaces the entry for `key`.
  ModuleMapping& add(std::type_index key, Converter converter);
  /// Removes `key` (no-op when absent).
  ModuleMapping& remove(std::type_index key);
  std::optional<Converter> find(const nn::Module& m) const;
  bool contains(const nn::Module& m) const { return find(m).has_value(); }
  bool contains(std::type_index key) const;
  /// A MappingLookup over a copy of this table.
  MappingLookup lookup() const;
  /// The keys as a class set (a copy).
  ModuleClassSet keys() const;
  const std::vector<std::pair<std::type_index, Converter>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<std::type_index, Converter>> entries_;
};

/// A class set of exact C++ classes: `classes<nn::Dropout, nn::ReLU>()`.
ModuleClassSet class_set(std::vector<std::type_index> classes);
template <class... M>
ModuleClassSet classes() {
  return class_set({std::type_index(typeid(M))...});
}
/// Either set.
ModuleClassSet set_union(ModuleClassSet a, ModuleClassSet b);

/// QuantStub → Quantize, DeQuantStub → DeQuantize, Conv1d/2d (and their QAT forms) →
/// quantized Conv1d/2d, ConvReLU1d/2d → quantized ConvReLU1d/2d, Linear (and QAT) → Linear,
/// LinearReLU → LinearReLU, BatchNorm2d, BNReLU2d, ReLU6, Hardswish, Dropout → their quantized
/// twins (torch 1.13's DEFAULT_STATIC_QUANT_MODULE_MAPPINGS, for the classes ember has).
ModuleMapping get_default_static_quant_module_mappings();
/// Conv2d, Linear, ConvBn2d, ConvBnReLU2d, ConvReLU2d, LinearReLU → their QAT classes.
ModuleMapping get_default_qat_module_mappings();
/// Linear (and LinearReLU) → dynamic quantized Linear.
ModuleMapping get_default_dynamic_quant_module_mappings();
/// The classes prepare observes when they are leaves: the keys of the three mappings above and
/// nn::Sequential (whose instances prepare never observes itself, as torch).
ModuleClassSet get_default_qconfig_propagation_list();
/// Classes convert may leave in place without an observer after `from_float` of a custom
/// module (torch's no_observer_set: the quantizable LSTM and MultiheadAttention, which ember
/// does not have): empty.
ModuleClassSet no_observer_set();

/// How messages show a module's class: "<class 'ember.nn.modules.conv.Conv2d'>" in Python
/// (the front end installs its describer), "<class 'Conv2d'>" otherwise.
std::string module_class_repr(const nn::Module& m);
using ClassRepr = std::string (*)(const nn::Module& m);
void set_module_class_repr(ClassRepr fn);

/// A front end's observers (Python modules with quant_min / quant_max attributes that are not
/// C++ observers): their range, for from_float's weight clamping; nullopt when unknown.
using FrontEndQuantRange = std::optional<std::pair<int64_t, int64_t>> (*)(nn::Module& m);
void set_front_end_quant_range(FrontEndQuantRange fn);
std::optional<std::pair<int64_t, int64_t>> front_end_quant_range(nn::Module& m);

}  // namespace ember::quantization
