// state_dict and load_state_dict (extension-spec § 3), and Tensor.module_load.
//
// Note [All-or-nothing loading]
// PyTorch copies each value as it goes, so a load that fails on its tenth key has already
// overwritten nine. ember's load runs PyTorch's algorithm, hooks and messages unchanged, but the
// default per-module step (_load_from_state_dict) only *checks* each value and queues the write;
// load_state_dict applies the queued writes after the whole tree was checked and no error was
// found. A failed load leaves every module exactly as it was. (An override of
// _load_from_state_dict that writes by itself is outside this guarantee; one that edits the
// state_dict and calls the default, the usual pattern, is inside it.)
#include <sstream>

#include "../dispatch/boxing.h"
#include "ember/grad_mode.h"
#include "ember/nn/module.h"

#include "module_depth.h"
#include "ember/swap_tensors.h"
#include "ember/warning.h"

namespace ember {

// ---- Tensor.module_load (a composite op: torch_function handlers may take it over) ----
namespace {
Tensor module_load_impl(const Tensor& self, const Tensor& other, const bool& assign) {
  if (assign) return other.detach();
  Tensor target = self;
  return target.copy_(other).detach();
}
Tensor module_load_op(const Tensor& self, const Tensor& other, bool assign) {
  return dispatch::call<module_load_impl>(dispatch::OpId::module_load, self, other, assign);
}
}  // namespace
EMBER_REGISTER_OP(module_load, &module_load_op);

namespace nn {

Tensor module_load(const Tensor& self, const Tensor& other, bool assign) {
  return module_load_op(self, other, assign);
}

// ---- state_dict ----

namespace {
std::string module_prefix(const std::string& prefix) {
  return prefix.empty() ? prefix : prefix.substr(0, prefix.size() - 1);
}
}  // namespace

StateDict Module::state_dict(const std::string& prefix, bool keep_vars) {
  StateDict destination;
  destination.metadata.emplace();
  state_dict_into(destination, prefix, keep_vars);
  return destination;
}

void Module::state_dict_into(StateDict& destination, const std::string& prefix, bool keep_vars) {
  detail::ModuleDepthGuard depth;
  if (!destination.metadata) destination.metadata.emplace();
  LocalMetadata local{{"version", Value(version())}};
  if (LocalMetadata* existing = destination.metadata_for(module_prefix(prefix))) {
    *existing = local;
  } else {
    destination.metadata->emplace_back(module_prefix(prefix), local);
  }
  const auto pre = state_dict_pre_hooks_;
  for (const auto& [id, hook] : pre) hook(*this, prefix, keep_vars);
  _save_to_state_dict(destination, prefix, keep_vars);
  for (const auto& [name, child] : children_) {
    if (child) child->state_dict_into(destination, prefix + name + ".", keep_vars);
  }
  if (state_dict_post_hooks_.empty()) return;
  // The hooks see this module's metadata entry and may edit it (PyTorch hands them the dict
  // that destination._metadata holds); children may have grown the list, so look it up again.
  const std::string key = module_prefix(prefix);
  LocalMetadata* entry = destination.metadata_for(key);
  LocalMetadata edited = entry ? *entry : local;
  const auto post = state_dict_post_hooks_;
  for (const auto& [id, hook] : post) hook(*this, destination, prefix, edited);
  if (!destination.metadata) destination.metadata.emplace();
  if (LocalMetadata* now = destination.metadata_for(key)) {
    *now = std::move(edited);
  } else {
    destination.metadata->emplace_back(key, std::move(edited));
  }
}

void Module::_save_to_state_dict(StateDict& destination, const std::string& prefix,
                                 bool keep_vars) {
  for (const auto& s : parameters_) {
    if (s.value.defined()) destination.insert(prefix + s.name, keep_vars ? s.value : s.value.detach());
  }
  for (const auto& s : buffers_) {
    if (s.value.defined() && s.persistent) {
      destination.insert(prefix + s.name, keep_vars ? s.value : s.value.detach());
    }
  }
  if (has_extra_state()) destination.insert(prefix + "_extra_state", get_extra_state());
}

// ---- load_state_dict ----

// The writes a load queues until the whole tree is checked (Note [All-or-nothing loading]).
class ModuleLoader {
 public:
  static ModuleLoader*& current() {
    thread_local ModuleLoader* loader = nullptr;
    return loader;
  }
  std::vector<std::function<void()>> writes;
  /// Queues `write` while a load_state_dict is checking the tree; runs it at once otherwise.
  static void schedule(std::function<void()> write) {
    if (ModuleLoader* loader = current()) {
      loader->writes.push_back(std::move(write));
    } else {
      write();
    }
  }
};

namespace {

// Python's type() of a non-tensor checkpoint value, for PyTorch's message.
std::string python_type(const StateDict& sd, const std::string& key, const Value& v) {
  if (auto it = sd.value_types.find(key); it != sd.value_types.end()) return it->second;
  if (v.is_int()) return "<class 'int'>";
  if (v.is_double()) return "<class 'float'>";
  if (v.is_bool()) return "<class 'bool'>";
  if (v.is_string()) return "<class 'str'>";
  if (v.is_none()) return "<class 'NoneType'>";
  if (v.is_int_list() || v.is_double_list() || v.is_tensor_list()) return "<class 'list'>";
  return "<class '" + std::string(v.type_name()) + "'>";
}

std::string ember_size(IntArrayRef sizes) {
  std::ostringstream os;
  os << "ember.Size(" << sizes << ")";
  return os.str();
}

bool truthy(const LocalMetadata& md, const std::string& key) {
  auto it = md.find(key);
  return it != md.end() && it->second.is_bool() && it->second.to_bool();
}

}  // namespace

void Module::_load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                                   LocalMetadata& local_metadata, bool strict,
                                   std::vector<std::string>& missing_keys,
                                   std::vector<std::string>& unexpected_keys,
                                   std::vector<std::string>& error_msgs) {
  const auto pre = load_pre_hooks_;
  for (const auto& [id, hook] : pre) {
    hook(*this, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
         error_msgs);
  }
  const bool assign = truthy(local_metadata, "assign_to_params_buffers");
  const bool use_swap = get_swap_module_params_on_conversion();

  // Parameters, then persistent buffers (PyTorch's local_state).
  struct Local {
    Slot* slot;
    bool is_param;
  };
  std::vector<Local> local_state;
  for (auto& s : parameters_)
    if (s.value.defined()) local_state.push_back({&s, true});
  for (auto& s : buffers_)
    if (s.value.defined() && s.persistent) local_state.push_back({&s, false});

  for (const Local& local : local_state) {
    Slot& slot = *local.slot;
    const std::string key = prefix + slot.name;
    const Value* entry = state_dict.find(key);
    if (!entry) {
      if (strict) missing_keys.push_back(key);
      continue;
    }
    if (!entry->is_tensor()) {
      error_msgs.push_back("While copying the parameter named \"" + key +
                           "\", expected ember.Tensor or Tensor-like object from checkpoint but "
                           "received " + python_type(state_dict, key, *entry));
      continue;
    }
    const Tensor param = slot.value;
    Tensor input = entry->to_tensor();
    if (param.dim() == 0 && input.dim() == 1) input = input.select(0, 0);
    if (input.sizes() != param.sizes()) {
      error_msgs.push_back("size mismatch for " + key + ": copying a param with shape " +
                           ember_size(input.sizes()) +
                           " from checkpoint, the shape in current model is " +
                           ember_size(param.sizes()) + ".");
      continue;
    }
    if (param.is_meta() && !input.is_meta() && !assign) {
      EMBER_WARN("for ", key,
                 ": copying from a non-meta parameter in the checkpoint to a meta parameter in the "
                 "current model, which is a no-op. (Did you mean to pass `assign=True` to assign "
                 "items in the state dictionary to their corresponding key in the module instead "
                 "of copying them in place?)");
    }
    const char* verb = use_swap ? "swapping" : "copying";
    auto failure = [key, verb, param, input](const std::string& what) {
      return "While " + std::string(verb) + " the parameter named \"" + key +
             "\", whose dimensions in the model are " + ember_size(param.sizes()) +
             " and whose dimensions in the checkpoint are " + ember_size(input.sizes()) +
             ", an exception occurred : ('" + what + "',).";
    };
    // What copy_ would refuse, checked now so that nothing is written before the load fails.
    if (!use_swap && !assign && !param.is_meta() && input.is_meta()) {
      error_msgs.push_back(failure("Cannot copy out of meta tensor; no data!"));
      continue;
    }
    const bool is_param = local.is_param;
    std::function<void()> write = [this, &slot, key, input, assign, use_swap, is_param, failure] {
      NoGradGuard no_grad;
      const Tensor param = slot.value;
      try {
        if (use_swap) {
          Tensor loaded = module_load(param, input, assign);
          EMBER_CHECK(!loaded.is_same(input) && !loaded.is_same(param),
                      "module_load returned one of self or other, please .detach() the result if "
                      "returning one of the inputs in module_load");
          if (is_param) {
            const bool rg = param.requires_grad();
            loaded = is_parameter(loaded) ? loaded.requires_grad_(rg) : Parameter(loaded, rg);
          }
          utils::swap_tensors(param, loaded);
        } else if (assign) {
          Tensor value = input;
          if (is_param) {
            const bool rg = param.requires_grad();
            value = is_parameter(value) ? value.requires_grad_(rg) : Parameter(value, rg);
          }
          slot.value = value;
        } else {
          Tensor target = param;
          target.copy_(input);
        }
      } catch (const Error& e) {
        EMBER_FAIL(failure(e.what()));
      }
    };
    ModuleLoader::schedule(std::move(write));
  }

  const std::string extra_key = prefix + "_extra_state";
  if (has_extra_state()) {
    if (const Value* extra = state_dict.find(extra_key)) {
      Value state = *extra;
      ModuleLoader::schedule([this, state] { set_extra_state(state); });
    } else if (strict) {
      missing_keys.push_back(extra_key);
    }
  } else if (strict && state_dict.contains(extra_key)) {
    unexpected_keys.push_back(extra_key);
  }

  if (strict) {
    for (const auto& [k, v] : state_dict.items()) {
      if (k.compare(0, prefix.size(), prefix) != 0 || k == extra_key) continue;
      const std::string rest = k.substr(prefix.size());
      const auto dot = rest.find('.');
      const std::string head = rest.substr(0, dot);
      bool known = false;
      if (dot != std::string::npos) {
        for (const auto& [n, c] : children_) known |= n == head;
      } else {
        for (const Local& l : local_state) known |= l.slot->name == head;
      }
      if (!known) unexpected_keys.push_back(k);
    }
  }
}

void Module::schedule_load_write(std::function<void()> write) {
  ModuleLoader::schedule(std::move(write));
}

IncompatibleKeys Module::load_state_dict(const StateDict& state_dict, bool strict, bool assign) {
  IncompatibleKeys keys;
  std::vector<std::string> error_msgs;
  StateDict sd = state_dict;  // hooks may edit it; the caller's stays as it was
  ModuleLoader loader;
  struct Scope {
    explicit Scope(ModuleLoader* l) : prev(ModuleLoader::current()) { ModuleLoader::current() = l; }
    ~Scope() { ModuleLoader::current() = prev; }
    ModuleLoader* prev;
  } scope(&loader);

  std::function<void(Module&, StateDict&, const std::string&)> load =
      [&](Module& module, StateDict& local_sd, const std::string& prefix) {
        detail::ModuleDepthGuard depth;
        LocalMetadata local_metadata;
        if (LocalMetadata* md = sd.metadata_for(module_prefix(prefix))) local_metadata = *md;
        if (assign) local_metadata["assign_to_params_buffers"] = Value(true);
        // strict is always passed as true, as PyTorch does: the check comes at the end.
        module._load_from_state_dict(local_sd, prefix, local_metadata, true, keys.missing_keys,
                                     keys.unexpected_keys, error_msgs);
        for (const auto& [name, child] : module.children_) {
          if (!child) continue;
          StateDict child_sd = local_sd.with_prefix(prefix + name + ".");
          load(*child, child_sd, prefix + name + ".");
        }
        const auto post = module.load_post_hooks_;
        for (const auto& [id, hook] : post) hook(module, keys);
      };
  load(*this, sd, "");

  if (strict) {
    auto quoted = [](const std::vector<std::string>& ks) {
      std::string s;
      for (size_t i = 0; i < ks.size(); ++i) s += (i ? ", \"" : "\"") + ks[i] + "\"";
      return s;
    };
    if (!keys.unexpected_keys.empty()) {
      error_msgs.insert(error_msgs.begin(),
                        "Unexpected key(s) in state_dict: " + quoted(keys.unexpected_keys) + ". ");
    }
    if (!keys.missing_keys.empty()) {
      error_msgs.insert(error_msgs.begin(),
                        "Missing key(s) in state_dict: " + quoted(keys.missing_keys) + ". ");
    }
  }
  if (!error_msgs.empty()) {
    std::string msg = "Error(s) in loading state_dict for " + type_name() + ":";
    for (const auto& e : error_msgs) msg += "\n\t" + e;
    EMBER_FAIL(msg);
  }
  ModuleLoader::current() = scope.prev;  // the writes themselves load nothing further
  for (auto& write : loader.writes) write();
  return keys;
}

}  // namespace nn
}  // namespace ember
