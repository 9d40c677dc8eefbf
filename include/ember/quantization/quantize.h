// Eager-mode post-training quantization and QAT over one module tree
// (torch.ao.quantization.quantize): propagate qconfigs, insert observers, swap observed float
// modules for quantized ones. Works on C++ models with no front end in the process, on Python
// models and on Python subclasses of C++ models (Note [Module classes across the front end]).
//
//   model->set_qconfig(ember::quantization::get_default_qconfig("qnnpack"));
//   model->eval();
//   auto prepared = ember::quantization::prepare(model);          // a deep copy, observed
//   for (auto& batch : calibration) (*prepared)(batch);           // observers record
//   auto quantized = ember::quantization::convert(prepared);      // int8 modules
//
// Note [Observer hooks]
// prepare gives each observed module an "activation_post_process" child and a C++ forward hook
// (ObserverHook) placed first among its hooks, which passes the module's output through that
// child. The hook lives in the module, so it runs whoever calls the module (a C++ Sequential,
// Python's __call__), and it looks the child up at each call, so deep copies and replaced
// observers keep working. A module with a hook is never part of the eval-mode conv-bn fast
// path (Module::has_forward_hooks). convert recognises the hooks by their type and removes
// them, keeping every other hook, as torch does with `_observer_forward_hook`.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/quantization/mappings.h"
#include "ember/quantization/qconfig.h"

namespace ember::quantization {

/// A fresh key for an observer hook (process-wide counter, from 1).
unsigned next_observer_hook_key();
/// The forward hook prepare registers (Note [Observer hooks]). `key` names it for a front end
/// (Python lists it in `_forward_hooks`, Note [C++ hooks seen from Python]): copies of the
/// hook, as module clones and re-registrations make, keep it.
struct ObserverHook {
  std::optional<Value> operator()(nn::Module& self, const std::vector<Value>& inputs,
                                  const Value& output) const;
  unsigned key = next_observer_hook_key();
};
/// The forward pre-hook prepare registers for a memoryless activation observer: observes
/// the first input.
struct ObserverPreHook {
  std::optional<std::vector<Value>> operator()(nn::Module& self,
                                               const std::vector<Value>& inputs) const;
  unsigned key = next_observer_hook_key();
};

/// torch's qconfig_dict: qconfigs by module class and by dotted name (names win). A class
/// lookup returning a null QConfigPtr means None (the subtree stays float).
struct QConfigDict {
  std::function<std::optional<QConfigPtr>(nn::Module&)> by_class;
  std::map<std::string, QConfigPtr> by_name;
};

/// torch's prepare_custom_config_dict.
struct PrepareCustomConfig {
  /// "float_to_observed_custom_module_class": the observed module replacing a float one.
  MappingLookup float_to_observed;
  /// "non_traceable_module_name" / "non_traceable_module_class": qconfig is not propagated
  /// into these children.
  std::vector<std::string> non_traceable_module_name;
  ModuleClassSet non_traceable_module_class;
};

/// torch's convert_custom_config_dict: "observed_to_quantized_custom_module_class"
/// (the converter is the quantized class's from_observed).
struct ConvertCustomConfig {
  MappingLookup observed_to_quantized;
};

/// Gives every module a qconfig: its own when it has one (possibly None), else the dict's entry
/// for its name, else for its class, else its parent's.
void propagate_qconfig_(nn::Module& module, const QConfigDict& qconfig_dict = {},
                        const PrepareCustomConfig& prepare_custom_config = {});

/// Observers as "activation_post_process" children with hooks (Note [Observer hooks]), into
/// `module` itself: leaves whose class is in `qconfig_propagation_list` (default: the default
/// propagation list), fused modules as units, classes in `non_leaf_module_list` as units,
/// FloatFunctional's own observer (no hook); never Dropout, DeQuantStub or a Sequential.
/// `special_act_post_process`: the observer factory that replaces the qconfig's for a module
/// (torch's fixed-qparams fake-quantize for Sigmoid / Tanh / ... in training mode), null: none.
using SpecialActPostProcess = std::function<ModuleFactory(nn::Module& m)>;
void add_observer_(nn::Module& module, const ModuleClassSet& qconfig_propagation_list = nullptr,
                   const ModuleClassSet& non_leaf_module_list = nullptr,
                   const MappingLookup& custom_module_class_mapping = nullptr,
                   const SpecialActPostProcess& special_act_post_process = nullptr);

/// torch.ao.quantization.prepare: a deep copy (unless inplace) with qconfigs propagated and
/// observers added. Warns when no module got a qconfig.
std::shared_ptr<nn::Module> prepare(const std::shared_ptr<nn::Module>& model, bool inplace = false,
                                    const ModuleClassSet& allow_list = nullptr,
                                    const ModuleClassSet& observer_non_leaf_module_list = nullptr,
                                    const PrepareCustomConfig& prepare_custom_config = {},
                                    const SpecialActPostProcess& special_act_post_process = nullptr);

/// torch.ao.quantization.prepare_qat: the model must be in training mode (AssertionError
/// "prepare_qat only works on models in training mode"); swaps float modules for their QAT
/// classes (`mapping`, default get_default_qat_module_mappings) and adds observers to them.
std::shared_ptr<nn::Module> prepare_qat(const std::shared_ptr<nn::Module>& model,
                                        const std::optional<ModuleMapping>& mapping = std::nullopt,
                                        bool inplace = false);
/// prepare_qat with a front end's mapping: `qat_classes` are the mapping's values.
std::shared_ptr<nn::Module> prepare_qat(const std::shared_ptr<nn::Module>& model,
                                        const MappingLookup& mapping,
                                        const ModuleClassSet& qat_classes, bool inplace);

/// torch.ao.quantization.convert: post-order, each child with a qconfig whose exact class is in
/// `mapping` (default: the static mapping) replaced by its converter's result, keeping its
/// non-observer hooks; fused modules convert as units. Then (remove_qconfig) qconfigs,
/// observers and observer hooks are removed everywhere. `is_reference` must be false: ember
/// has no reference quantized modules (ValueError otherwise).
std::shared_ptr<nn::Module> convert(const std::shared_ptr<nn::Module>& module,
                                    const MappingLookup& mapping = nullptr, bool inplace = false,
                                    bool remove_qconfig = true, bool is_reference = false,
                                    const ConvertCustomConfig& convert_custom_config = {});

/// What replaces `mod` (itself when it has no qconfig or no converter), with its pre-hooks and
/// non-observer hooks (torch.ao.quantization.swap_module).
std::shared_ptr<nn::Module> swap_module(const std::shared_ptr<nn::Module>& mod,
                                        const MappingLookup& mapping,
                                        const MappingLookup& custom_module_class_mapping = nullptr);

/// Wraps each leaf with a qconfig in a QuantWrapper (the module itself when it is such a leaf).
std::shared_ptr<nn::Module> add_quant_dequant(const std::shared_ptr<nn::Module>& module);

/// torch.ao.quantization.quantize: deep copy (unless inplace), eval, prepare, `run_fn`
/// (calibration), convert with `mapping` (default static).
std::shared_ptr<nn::Module> quantize(const std::shared_ptr<nn::Module>& model,
                                     const std::function<void(nn::Module&)>& run_fn,
                                     const MappingLookup& mapping = nullptr, bool inplace = false);
/// torch.ao.quantization.quantize_qat: train mode, prepare_qat, run_fn (training), convert.
std::shared_ptr<nn::Module> quantize_qat(const std::shared_ptr<nn::Module>& model,
                                         const std::function<void(nn::Module&)>& run_fn,
                                         bool inplace = false);

/// quantize_dynamic's qconfig_spec: nullopt → the dtype's default modules (qint8: every Linear,
/// LSTM, GRU, LSTMCell, RNNCell and GRUCell; quint8: Embedding and EmbeddingBag; quint4x2:
/// EmbeddingBag) with its qconfig; a set of classes / names → those with it; a QConfigDict → as
/// given.
struct DynamicQConfigSpec {
  std::optional<QConfigDict> dict;
  /// The set form: classes and dotted names.
  ModuleClassSet classes;
  std::vector<std::string> names;
  bool is_set = false;
};
/// torch.ao.quantization.quantize_dynamic (Linear, the recurrent layers and cells: dtype qint8;
/// embeddings: quint8 / quint4x2 with the float-qparams weight-only qconfigs). float16 raises:
/// ember has no fp16 packed weights.
std::shared_ptr<nn::Module> quantize_dynamic(const std::shared_ptr<nn::Module>& model,
                                             const DynamicQConfigSpec& qconfig_spec = {},
                                             ScalarType dtype = kQInt8,
                                             const MappingLookup& mapping = nullptr,
                                             bool inplace = false);

/// torch's is_activation_post_process: an observer or fake-quantize module.
bool is_activation_post_process(const nn::Module& m);

/// The front end's part of swap_module: copies its own (Python) forward pre-hooks and
/// non-observer forward hooks from `from` to `to`. Installed by the front end.
using FrontEndHookCopy = void (*)(nn::Module& from, nn::Module& to);
void set_front_end_hook_copy(FrontEndHookCopy fn);

}  // namespace ember::quantization
