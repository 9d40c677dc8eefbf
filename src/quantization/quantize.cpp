// torch.ao.quantization.quantize over nn::Module (Note [Observer hooks]).
#include "ember/quantization/quantize.h"

#include <atomic>
#include <unordered_set>

#include "ember/nn/intrinsic/fused.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/embedding.h"
#include "ember/nn/modules/embedding_bag.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/rnn.h"
#include "ember/nn/quantized/modules.h"
#include "ember/quantization/fake_quantize.h"
#include "ember/quantization/observer.h"
#include "ember/quantization/stubs.h"
#include "ember/warning.h"

namespace ember::quantization {

namespace nnq = ember::nn::quantized;

// torch's `assert`s (AssertionError in Python).
#define Q_ASSERT(cond, ...) \
  do {                                                                 \
    if (!(cond)) {                                                     \
      throw ::ember::quantization::AssertionError(                     \
          ::ember::detail::str_cat(__VA_ARGS__));                      \
    }                                                                  \
  } while (0)

namespace {

std::shared_ptr<nn::Module> child_or_null(const nn::Module& m, const std::string& name) {
  for (const auto& [n, c] : m.named_children())
    if (n == name) return c;
  return nullptr;
}

bool needs_observation(const nn::Module& m) { return m.has_qconfig() && m.qconfig() != nullptr; }

/// torch's `isinstance(m, _FusedModule)`: the float fused containers and the QAT fused classes
/// (prepare observes them and convert swaps them as units, never reaching a QAT module's `bn`).
bool is_fused(const nn::Module& m) { return nn::intrinsic::is_fused_module(m); }

template <class T>
bool is_exactly(const nn::Module& m) {
  return typeid(m) == typeid(T);
}

std::atomic<FrontEndHookCopy> g_hook_copy{nullptr};

// The hook lists are reached through take_forward_*_hooks: taken, and put back in the order
// wanted (their ids change, which only C++ callers holding ids could notice).
void prepend_forward_hook(nn::Module& m, nn::Module::ForwardHook hook) {
  auto others = m.take_forward_hooks();
  m.register_forward_hook(std::move(hook));
  for (auto& h : others) m.register_forward_hook(std::move(h));
}

void prepend_forward_pre_hook(nn::Module& m, nn::Module::ForwardPreHook hook) {
  auto others = m.take_forward_pre_hooks();
  m.register_forward_pre_hook(std::move(hook));
  for (auto& h : others) m.register_forward_pre_hook(std::move(h));
}

}  // namespace

void set_front_end_hook_copy(FrontEndHookCopy fn) { g_hook_copy = fn; }

bool is_activation_post_process(const nn::Module& m) {
  return dynamic_cast<const ObserverBase*>(&m) || dynamic_cast<const FakeQuantizeBase*>(&m);
}

unsigned next_observer_hook_key() {
  static std::atomic<unsigned> next{1};
  return next++;
}

std::optional<Value> ObserverHook::operator()(nn::Module& self, const std::vector<Value>& /*in*/,
                                              const Value& output) const {
  return self.child("activation_post_process")->call({output});
}

std::optional<std::vector<Value>> ObserverPreHook::operator()(
    nn::Module& self, const std::vector<Value>& inputs) const {
  // torch's _observer_forward_pre_hook returns the observer's result, which replaces the
  // module's inputs by that single value.
  return std::vector<Value>{self.child("activation_post_process")->call({inputs.at(0)})};
}

// ---- propagate_qconfig_ ----

namespace {

void propagate_helper(nn::Module& module, const QConfigDict& dict, const QConfigPtr& parent,
                      bool has_parent, const std::string& prefix,
                      const PrepareCustomConfig* custom) {
  QConfigPtr q = parent;
  bool has = has_parent;
  if (dict.by_class) {
    if (auto found = dict.by_class(module)) {
      q = *found;
      has = true;
    }
  }
  if (auto it = dict.by_name.find(prefix); it != dict.by_name.end()) {
    q = it->second;
    has = true;
  }
  if (module.has_qconfig()) {
    q = module.qconfig();
    has = true;
  }
  // torch: `module.qconfig = qconfig_with_device_check` (None when nothing applies).
  (void)has;
  module.set_qconfig(q);
  for (const auto& [name, child] : module.named_children()) {
    const std::string child_prefix = prefix.empty() ? name : prefix + "." + name;
    bool skip = false;
    if (custom) {
      for (const auto& n : custom->non_traceable_module_name) skip |= n == name;
      if (custom->non_traceable_module_class) skip |= custom->non_traceable_module_class(*child);
    }
    // torch passes the custom config only to the top call: deeper levels never skip.
    if (!skip) propagate_helper(*child, dict, q, true, child_prefix, nullptr);
  }
}

/// torch's activation_is_memoryless: the qconfig's activation observer (inside its
/// fake-quantize module, if any) is a moving-average one with averaging_constant 1.
bool activation_is_memoryless(const QConfig& qconfig) {
  auto act = qconfig.activation();
  if (!act) return false;
  if (auto inner = child_or_null(*act, "activation_post_process")) act = inner;
  if (auto* mm = dynamic_cast<MovingAverageMinMaxObserver*>(act.get())) {
    return mm->averaging_constant == 1;
  }
  if (auto* pc = dynamic_cast<MovingAveragePerChannelMinMaxObserver*>(act.get())) {
    return pc->averaging_constant == 1;
  }
  return false;
}

void insert_observer(nn::Module& m, const ModuleFactory& special = nullptr) {
  if (!needs_observation(m) || dynamic_cast<DeQuantStub*>(&m)) return;
  const auto& qconfig = m.qconfig();
  Q_ASSERT(qconfig->activation, "'NoneType' object is not callable");
  auto observer = special ? special() : qconfig->activation();
  // Observer and hook are gone after the module is swapped.
  if (child_or_null(m, "activation_post_process")) {
    m.replace_module("activation_post_process", observer);
  } else {
    m.register_module("activation_post_process", observer);
  }
  if (activation_is_memoryless(*qconfig)) {
    prepend_forward_pre_hook(m, ObserverPreHook{});
  } else {
    prepend_forward_hook(m, ObserverHook{});
  }
}

bool has_no_children(const nn::Module& m) { return m.named_children().empty(); }

}  // namespace

void propagate_qconfig_(nn::Module& module, const QConfigDict& qconfig_dict,
                        const PrepareCustomConfig& prepare_custom_config) {
  propagate_helper(module, qconfig_dict, nullptr, false, "", &prepare_custom_config);
}

// ---- add_observer_ ----

void add_observer_(nn::Module& module, const ModuleClassSet& propagation_list_in,
                   const ModuleClassSet& non_leaf_module_list,
                   const MappingLookup& custom_module_class_mapping,
                   const SpecialActPostProcess& special) {
  const ModuleClassSet propagation_list =
      propagation_list_in ? propagation_list_in : get_default_qconfig_propagation_list();
  for (const auto& [name, child] : module.named_children()) {
    if (is_exactly<nn::Dropout>(*child)) continue;
    if (is_exactly<nnq::FloatFunctional>(*child) || is_exactly<nnq::QFunctional>(*child)) {
      if (needs_observation(*child)) {
        auto observer = child->qconfig()->activation();
        if (child_or_null(*child, "activation_post_process")) {
          child->replace_module("activation_post_process", observer);
        } else {
          child->register_module("activation_post_process", observer);
        }
      }
    } else if (is_fused(*child)) {
      if (needs_observation(*child)) insert_observer(*child);
    } else if (ModuleFactory factory = special ? special(*child) : nullptr) {
      insert_observer(*child, factory);
    } else if (non_leaf_module_list && non_leaf_module_list(*child)) {
      if (needs_observation(*child)) insert_observer(*child);
    } else if (needs_observation(*child) && custom_module_class_mapping &&
               custom_module_class_mapping(*child)) {
      auto observed = (*custom_module_class_mapping(*child))(*child);
      module.replace_module(name, observed);
      if (!no_observer_set()(*observed)) insert_observer(*observed);
    } else {
      add_observer_(*child, propagation_list, non_leaf_module_list, custom_module_class_mapping,
                    special);
    }
  }
  // Leaves only: the observer records the module's output (QuantStub observes the input).
  if (has_no_children(module) && !dynamic_cast<nn::Sequential*>(&module) &&
      propagation_list(module)) {
    insert_observer(module);
  }
}

// ---- prepare ----

std::shared_ptr<nn::Module> prepare(const std::shared_ptr<nn::Module>& model_in, bool inplace,
                                    const ModuleClassSet& allow_list,
                                    const ModuleClassSet& observer_non_leaf_module_list,
                                    const PrepareCustomConfig& custom,
                                    const SpecialActPostProcess& special) {
  EMBER_CHECK_TYPE(model_in, "prepare: expected a module, got None");
  auto model = inplace ? model_in : model_in->clone();
  const ModuleClassSet propagation_list =
      allow_list ? allow_list : get_default_qconfig_propagation_list();
  propagate_qconfig_(*model);
  bool any = false;
  for (const auto& m : model->modules()) any |= needs_observation(*m);
  if (!any) {
    warn("None of the submodule got qconfig applied. Make sure you passed correct "
         "configuration through `qconfig_dict` or by assigning the `.qconfig` attribute "
         "directly on submodules");
  }
  add_observer_(*model, propagation_list, observer_non_leaf_module_list, custom.float_to_observed,
                special);
  return model;
}

std::shared_ptr<nn::Module> prepare_qat(const std::shared_ptr<nn::Module>& model,
                                        const MappingLookup& mapping,
                                        const ModuleClassSet& qat_classes, bool inplace) {
  EMBER_CHECK_TYPE(model, "prepare_qat: expected a module, got None");
  Q_ASSERT(model->is_training(), "prepare_qat only works on models in training mode");
  auto m = inplace ? model : model->clone();
  propagate_qconfig_(*m);
  convert(m, mapping, /*inplace=*/true, /*remove_qconfig=*/false);
  prepare(m, /*inplace=*/true, nullptr, qat_classes);
  return m;
}

std::shared_ptr<nn::Module> prepare_qat(const std::shared_ptr<nn::Module>& model,
                                        const std::optional<ModuleMapping>& mapping,
                                        bool inplace) {
  const ModuleMapping table = mapping ? *mapping : get_default_qat_module_mappings();
  // The QAT classes are the mapping's values: the classes its converters produce, known by
  // the modules they made (recorded as convert runs).
  auto made = std::make_shared<std::vector<std::type_index>>();
  MappingLookup lookup = [table, made](nn::Module& m) -> std::optional<Converter> {
    auto found = table.find(m);
    if (!found) return std::nullopt;
    return Converter([conv = *found, made](nn::Module& observed) {
      auto out = conv(observed);
      if (out) made->emplace_back(typeid(*out));
      return out;
    });
  };
  ModuleClassSet qat_classes = [made](nn::Module& m) {
    for (const auto& t : *made)
      if (t == std::type_index(typeid(m))) return true;
    return false;
  };
  return prepare_qat(model, lookup, qat_classes, inplace);
}

// ---- convert ----

std::shared_ptr<nn::Module> swap_module(const std::shared_ptr<nn::Module>& mod,
                                        const MappingLookup& mapping,
                                        const MappingLookup& custom_module_class_mapping) {
  if (!needs_observation(*mod)) return mod;
  std::shared_ptr<nn::Module> new_mod;
  if (custom_module_class_mapping) {
    if (auto conv = custom_module_class_mapping(*mod)) new_mod = (*conv)(*mod);
  }
  if (!new_mod && mapping) {
    if (auto conv = mapping(*mod)) new_mod = (*conv)(*mod);
  }
  if (!new_mod) return mod;
  // Pre-hooks run on quantized inputs from now on; post hooks but the observer's on
  // quantized outputs.
  for (auto& hook : mod->take_forward_pre_hooks()) {
    new_mod->register_forward_pre_hook(hook);
    mod->register_forward_pre_hook(std::move(hook));
  }
  for (auto& hook : mod->take_forward_hooks()) {
    if (!hook.target<ObserverHook>()) new_mod->register_forward_hook(hook);
    mod->register_forward_hook(std::move(hook));
  }
  if (auto copy = g_hook_copy.load()) copy(*mod, *new_mod);
  return new_mod;
}

namespace {

void convert_impl(nn::Module& module, const MappingLookup& mapping,
                  const MappingLookup& custom) {
  std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>> reassign;
  for (const auto& [name, mod] : module.named_children()) {
    if (!is_fused(*mod) && !(custom && custom(*mod))) convert_impl(*mod, mapping, custom);
    reassign.emplace_back(name, swap_module(mod, mapping, custom));
  }
  for (const auto& [name, value] : reassign) module.replace_module(name, value);
}

void remove_activation_post_process(nn::Module& module) {
  auto app = child_or_null(module, "activation_post_process");
  if (app && is_activation_post_process(*app)) module.unregister_module("activation_post_process");
  for (auto& hook : module.take_forward_pre_hooks()) {
    if (!hook.target<ObserverPreHook>()) module.register_forward_pre_hook(std::move(hook));
  }
  for (auto& hook : module.take_forward_hooks()) {
    if (!hook.target<ObserverHook>()) module.register_forward_hook(std::move(hook));
  }
}

void remove_qconfig_(nn::Module& module) {
  for (const auto& child : module.children()) remove_qconfig_(*child);
  module.clear_qconfig();
  remove_activation_post_process(module);
}

}  // namespace

std::shared_ptr<nn::Module> convert(const std::shared_ptr<nn::Module>& module_in,
                                    const MappingLookup& mapping, bool inplace,
                                    bool remove_qconfig, bool is_reference,
                                    const ConvertCustomConfig& custom) {
  EMBER_CHECK_TYPE(module_in, "convert: expected a module, got None");
  EMBER_CHECK_VALUE(!is_reference,
                    "convert: is_reference=True needs reference quantized modules, which ember "
                    "does not have");
  auto module = inplace ? module_in : module_in->clone();
  const MappingLookup table =
      mapping ? mapping : get_default_static_quant_module_mappings().lookup();
  convert_impl(*module, table, custom.observed_to_quantized);
  if (remove_qconfig) remove_qconfig_(*module);
  return module;
}

// ---- the one-call forms ----

std::shared_ptr<nn::Module> add_quant_dequant(const std::shared_ptr<nn::Module>& module) {
  if (has_no_children(*module) && needs_observation(*module)) {
    return std::make_shared<QuantWrapper>(module);
  }
  for (const auto& [name, child] : module->named_children()) {
    module->replace_module(name, add_quant_dequant(child));
  }
  return module;
}

std::shared_ptr<nn::Module> quantize(const std::shared_ptr<nn::Module>& model,
                                     const std::function<void(nn::Module&)>& run_fn,
                                     const MappingLookup& mapping, bool inplace) {
  auto m = inplace ? model : model->clone();
  m->eval();
  prepare(m, /*inplace=*/true);
  run_fn(*m);
  convert(m, mapping, /*inplace=*/true);
  return m;
}

std::shared_ptr<nn::Module> quantize_qat(const std::shared_ptr<nn::Module>& model,
                                         const std::function<void(nn::Module&)>& run_fn,
                                         bool inplace) {
  auto m = inplace ? model : model->clone();
  m->train();
  prepare_qat(m, std::nullopt, /*inplace=*/true);
  run_fn(*m);
  convert(m, nullptr, /*inplace=*/true);
  return m;
}

std::shared_ptr<nn::Module> quantize_dynamic(const std::shared_ptr<nn::Module>& model,
                                             const DynamicQConfigSpec& spec, ScalarType dtype,
                                             const MappingLookup& mapping, bool inplace) {
  const bool known = dtype == kQInt8 || dtype == kFloat16 || dtype == kQUInt8 || dtype == kQUInt4x2;
  // torch's texts for dtypes it does not know; ember's limitation for those it does.
  auto check_supported = [&] {
    EMBER_CHECK(dtype != kFloat16, "quantize_dynamic: ember quantizes Linear and recurrent layers to qint8 "
                                   "and embeddings to quint8 / quint4x2 (no float16 weights), got ",
                dtype_repr(dtype));
  };
  // torch's qconfig for `dtype`: qint8 the dynamic one, quint8 / quint4x2 the float-qparams
  // weight-only ones (embedding tables).
  auto dtype_qconfig = [&]() -> QConfigPtr {
    if (dtype == kQUInt8) return float_qparams_weight_only_qconfig();
    if (dtype == kQUInt4x2) return float_qparams_weight_only_qconfig_4bit();
    return default_dynamic_qconfig();
  };
  QConfigDict dict;
  if (spec.dict) {
    dict = *spec.dict;
  } else if (spec.is_set) {
    EMBER_CHECK(known, "('Unknown dtype specified for quantize_dynamic: ', '", dtype_repr(dtype),
                "')");
    check_supported();
    const QConfigPtr q = dtype_qconfig();
    for (const auto& n : spec.names) dict.by_name[n] = q;
    if (spec.classes) {
      dict.by_class = [classes = spec.classes, q](nn::Module& m) -> std::optional<QConfigPtr> {
        if (classes(m)) return q;
        return std::nullopt;
      };
    }
  } else {
    EMBER_CHECK_VALUE(known, "Don't know how to quantize with default settings for ",
                      dtype_repr(dtype), ". Provide full qconfig please");
    check_supported();
    const QConfigPtr q = dtype_qconfig();
    dict.by_class = [q, dtype](nn::Module& m) -> std::optional<QConfigPtr> {
      const std::type_info& t = typeid(m);
      // torch's defaults for quint8 (both embedding layers) and quint4x2 (EmbeddingBag only).
      if (dtype == kQUInt8 || dtype == kQUInt4x2) {
        if (t == typeid(nn::EmbeddingBag) || (dtype == kQUInt8 && t == typeid(nn::Embedding)))
          return q;
        return std::nullopt;
      }
      // torch's default for qint8: Linear and the recurrent layers and cells.
      if (t == typeid(nn::Linear) || t == typeid(nn::LSTM) || t == typeid(nn::GRU) ||
          t == typeid(nn::LSTMCell) || t == typeid(nn::RNNCell) || t == typeid(nn::GRUCell)) {
        return q;
      }
      return std::nullopt;
    };
  }
  auto m = inplace ? model : model->clone();
  m->eval();
  propagate_qconfig_(*m, dict);
  convert(m, mapping ? mapping : get_default_dynamic_quant_module_mappings().lookup(),
          /*inplace=*/true);
  return m;
}

}  // namespace ember::quantization
