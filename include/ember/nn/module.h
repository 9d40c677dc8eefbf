// nn::Module: the one module tree (../shared/DESIGN.md § Modules). Parameters, buffers and
// children in insertion order; traversal, train/eval, hooks, repr, state_dict /
// load_state_dict and conversion (`to`, `float`, `bfloat16`, `to_empty`, ...) are implemented
// here once, for C++ layers and (through the Python front end) for Python subclasses.
//
//   struct Net : ember::nn::ModuleBase<Net> {           // ember/nn/module_base.h: typed forward
//     Net() {                                             // prints as "Net(...)" (its C++ name)
//       fc = register_module("fc", std::make_shared<ember::nn::Linear>(4, 2));
//       register_buffer("steps", ember::zeros({}, ember::kInt64));
//       scale = register_parameter_ref("scale", ember::ones({2}));  // re-reads its slot
//     }
//     ember::Tensor forward(const ember::Tensor& x) { return (*fc)(x).relu() * scale; }
//     std::shared_ptr<ember::nn::Linear> fc;
//     ember::nn::ParameterRef scale;
//   };
//
// A plain subclass of Module overrides the boxed `Value forward(const std::vector<Value>&)`.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ember/nn/state_dict.h"
#include "ember/ordered_dict.h"
#include "ember/tensor.h"
#include "ember/value.h"

namespace ember::quantization {
struct QConfig;  // ember/quantization/qconfig.h
}

namespace ember::nn {

/// torch.nn.Parameter: `data` detached (sharing its storage), a leaf with `requires_grad`,
/// marked as a parameter (printed "Parameter containing:").
Tensor Parameter(const Tensor& data, bool requires_grad = true);
bool is_parameter(const Tensor& t);

/// Tensor.module_load: what load_state_dict's swap path stores for `self` given the checkpoint's
/// `other` (default: `other.detach()` with assign, else `self.copy_(other).detach()`). A
/// composite op, so a subclass's torch_function can transform values as they load.
Tensor module_load(const Tensor& self, const Tensor& other, bool assign = false);

/// The `torch.__future__` flags (process-wide, default false). Swap wins over overwrite.
void set_overwrite_module_params_on_conversion(bool value);
bool get_overwrite_module_params_on_conversion();
void set_swap_module_params_on_conversion(bool value);
bool get_swap_module_params_on_conversion();

/// What load_state_dict returns: the keys it did not find and those it did not use.
struct IncompatibleKeys {
  std::vector<std::string> missing_keys;
  std::vector<std::string> unexpected_keys;
  /// "<All keys matched successfully>" or "_IncompatibleKeys(missing_keys=[...], ...)".
  std::string to_string() const;
};

struct CloneMemo;
class Module;
template <bool Buffer>
class SlotRef;
/// A handle on a registered parameter (buffer) that reads the module's slot on every use, so it
/// sees what load_state_dict(assign=true) and conversions put there (Note [Slot handles]).
using ParameterRef = SlotRef<false>;
using BufferRef = SlotRef<true>;

namespace detail {
struct TypeNameEntry;
/// The module copy this thread is constructing (Module's copy constructor): the SlotRef members
/// copied with it rebind to it (Note [Slot handles]).
Module* rebind_slot_owner(Module* owner, const void* copy, const void* original);
}  // namespace detail

class Module : public std::enable_shared_from_this<Module> {
 public:
  /// `type_name` is the class name shown by repr and in messages ("Linear"); empty (the default)
  /// means the C++ class name of the module, namespaces dropped (Note [Module type names]).
  explicit Module(std::string type_name = {});
  virtual ~Module();
  Module& operator=(const Module&) = delete;

  const std::string& type_name() const {
    return type_name_.empty() ? class_type_name() : type_name_;
  }
  /// Renames the class repr and messages show (a front end's subclass of a C++ layer).
  void set_type_name(std::string name) { type_name_ = std::move(name); }

  // ---- forward ----
  /// The computation, boxed: what `call`, Sequential, hooks and Python use. Layers also offer a
  /// typed `forward(const Tensor&)`; a ModuleBase<Derived> derives this one from its typed
  /// forward. The default raises NotImplementedError naming the module.
  virtual Value forward(const std::vector<Value>& inputs);
  /// Runs forward pre-hooks, forward and forward hooks (Module.__call__). `m->forward(x)` is a
  /// plain call of the computation; `(*m)(x)` and `call` run the hooks.
  Value call(std::vector<Value> inputs);
  Tensor operator()(const Tensor& input) { return call({input}).to_tensor(); }

  // ---- registration (null/undefined tensors and modules register as absent: None) ----
  /// Registers `t` as a parameter (made a Parameter that requires grad unless `requires_grad`
  /// is false), and returns the stored handle.
  Tensor& register_parameter(const std::string& name, const Tensor& t, bool requires_grad = true);
  Tensor& register_buffer(const std::string& name, const Tensor& t, bool persistent = true);
  /// register_parameter / register_buffer, returning a handle that re-reads the slot (keep this
  /// rather than a Tensor copy: Note [Slot handles]).
  ParameterRef register_parameter_ref(const std::string& name, const Tensor& t,
                                      bool requires_grad = true);
  BufferRef register_buffer_ref(const std::string& name, const Tensor& t, bool persistent = true);
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    register_module_impl(name, module);
    return module;
  }
  /// Replaces a registered child (same name).
  void replace_module(const std::string& name, std::shared_ptr<Module> module);
  void unregister_module(const std::string& name);

  // ---- direct access ----
  bool has_parameter(const std::string& name) const;
  bool has_buffer(const std::string& name) const;
  Tensor& parameter(const std::string& name);  // errors if absent
  Tensor& buffer(const std::string& name);
  /// Handles on registered members (AttributeError if absent), reading the slot on each use.
  ParameterRef parameter_ref(const std::string& name);
  BufferRef buffer_ref(const std::string& name);
  std::shared_ptr<Module> child(const std::string& name) const;
  bool is_buffer_persistent(const std::string& name) const;

  // ---- traversal (pre-order, dotted names; duplicates removed unless asked) ----
  // The named_* views are OrderedDicts (libtorch's): dict["fc.weight"], contains, keys(),
  // values(), and in-order iteration over items (item.key(), item.value(), or
  // `for (const auto& [name, t] : m.named_parameters())`).
  using NamedTensors = OrderedDict<std::string, Tensor>;
  using NamedModules = OrderedDict<std::string, std::shared_ptr<Module>>;
  NamedTensors named_parameters(const std::string& prefix = "", bool recurse = true,
                                bool remove_duplicate = true) const;
  std::vector<Tensor> parameters(bool recurse = true) const;
  NamedTensors named_buffers(const std::string& prefix = "", bool recurse = true,
                             bool remove_duplicate = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  NamedModules named_children() const;
  std::vector<std::shared_ptr<Module>> children() const;
  /// Includes this module (named "" or `prefix`).
  NamedModules named_modules(const std::string& prefix = "", bool remove_duplicate = true);
  std::vector<std::shared_ptr<Module>> modules();

  /// Calls fn on every child (recursively, children first) and then on this module.
  Module& apply(const std::function<void(Module&)>& fn);
  /// Virtual: a module may keep some children in their mode (a QAT ConvBn2d with frozen
  /// BatchNorm statistics keeps its bn in eval, as PyTorch's _ConvBnNd.train).
  virtual Module& train(bool mode = true);
  Module& eval() { return train(false); }
  bool is_training() const { return training_; }
  void zero_grad(bool set_to_none = true);
  Module& requires_grad_(bool requires_grad = true);

  // ---- hooks (each returns an id for remove_hook) ----
  using ForwardPreHook = std::function<std::optional<std::vector<Value>>(Module&, const std::vector<Value>&)>;
  using ForwardHook = std::function<std::optional<Value>(Module&, const std::vector<Value>&, const Value&)>;
  using StateDictPreHook = std::function<void(Module&, const std::string& prefix, bool keep_vars)>;
  /// local_metadata is this module's entry of the destination's metadata ({"version": N}):
  /// what the hook leaves there is saved.
  using StateDictPostHook = std::function<void(Module&, StateDict&, const std::string& prefix,
                                               LocalMetadata& local_metadata)>;
  using LoadPreHook = std::function<void(Module&, StateDict&, const std::string& prefix,
                                         LocalMetadata& local_metadata, bool strict,
                                         std::vector<std::string>& missing,
                                         std::vector<std::string>& unexpected,
                                         std::vector<std::string>& error_msgs)>;
  using LoadPostHook = std::function<void(Module&, IncompatibleKeys&)>;
  unsigned register_forward_pre_hook(ForwardPreHook hook);
  unsigned register_forward_hook(ForwardHook hook);
  unsigned register_state_dict_pre_hook(StateDictPreHook hook);
  unsigned register_state_dict_post_hook(StateDictPostHook hook);
  unsigned register_load_state_dict_pre_hook(LoadPreHook hook);
  unsigned register_load_state_dict_post_hook(LoadPostHook hook);
  void remove_hook(unsigned id);
  /// Whether the plain function `fn` is among the state_dict pre-hooks (a front end installs
  /// its bridge hooks once: Note [Python state_dict hooks]).
  bool has_state_dict_pre_hook(void (*fn)(Module&, const std::string&, bool)) const;
  /// Removes the C++ forward pre-hooks (forward hooks) and returns them in order, for moving
  /// them to another module (fuse_modules moves them to the fused module).
  std::vector<ForwardPreHook> take_forward_pre_hooks() { return take_hooks(forward_pre_hooks_); }
  std::vector<ForwardHook> take_forward_hooks() { return take_hooks(forward_hooks_); }
  /// Whether a call of this module may run hooks: a forward pre-hook or forward hook registered
  /// in C++, or a front end's hooks (set_front_end_hooks). Fast paths that skip `call` (fused
  /// conv-bn) check this.
  bool has_forward_hooks() const {
    return front_end_hooks_ || front_end_global_hooks() || !forward_pre_hooks_.empty() ||
           !forward_hooks_.empty();
  }

  // ---- front-end hooks (Note [Module hooks across the boundary]) ----
  /// Runs a whole call of `m` (its hooks and forward) in a front end, for modules whose hooks
  /// live there (Python's). Installed once by the front end.
  using FrontEndCall = Value (*)(Module& m, std::vector<Value>& inputs);
  // (Defined in libember, not inline: a front end built with hidden visibility would otherwise
  // set a copy of its own.)
  static void set_front_end_call(FrontEndCall fn);
  /// Marks this module as having (had) front-end hooks: `call` then hands the call to the
  /// front end, which also runs the C++ hooks (call_native). Sticky: cleared only explicitly.
  void set_front_end_hooks(bool on) { front_end_hooks_ = on; }
  bool front_end_hooks() const { return front_end_hooks_; }
  /// Front-end hooks that apply to every module (Python's register_module_forward_hook).
  static void set_front_end_global_hooks(bool on);
  static bool front_end_global_hooks();
  /// `call` without the front end: C++ pre-hooks, forward, C++ hooks.
  Value call_native(std::vector<Value> inputs);
  /// The C++ hooks alone, for a front end running a call itself. Pre-hooks return the inputs
  /// they replaced (nullopt: unchanged); hooks the replaced output.
  std::optional<std::vector<Value>> run_forward_pre_hooks(const std::vector<Value>& inputs);
  std::optional<Value> run_forward_hooks(const std::vector<Value>& inputs, const Value& output);
  /// An object a front end keeps with this module while C++ shares it (Python: the module's
  /// own Python object once it has Python state, Note [Python state of C++-held modules]).
  std::shared_ptr<void>& front_end_object() { return front_end_object_; }
  bool has_native_forward_hooks() const {
    return !forward_pre_hooks_.empty() || !forward_hooks_.empty();
  }

  // ---- tensor attributes (Note [Tensor attributes], module.cpp) ----
  /// A tensor attribute that is neither a parameter nor a buffer: torch's plain
  /// `module.weight = w` once weight_norm / spectral_norm moved the parameter away, or the
  /// property parametrize puts on the class. `parameter(name)` falls back to it, so a layer's
  /// accessor (`weight()`) reads it. With a getter, each read computes the value.
  using TensorGetter = std::function<Tensor(Module&)>;
  void set_tensor_attribute(const std::string& name, const Tensor& value);
  void set_tensor_attribute_getter(const std::string& name, TensorGetter getter);
  bool has_tensor_attribute(const std::string& name) const;
  bool tensor_attribute_is_computed(const std::string& name) const;
  /// The value (computed now for a getter); errors if absent.
  Tensor& tensor_attribute(const std::string& name);
  /// Returns whether there was one.
  bool remove_tensor_attribute(const std::string& name);

  // ---- quantization (Note [The qconfig slot]) ----
  /// The module's qconfig (torch's `module.qconfig` attribute); nullptr when unset or None.
  const std::shared_ptr<const quantization::QConfig>& qconfig() const { return qconfig_; }
  /// Sets the qconfig; nullptr sets it to None (the attribute then exists, as after torch's
  /// `m.qconfig = None`, which propagate_qconfig_ does for modules it leaves unquantized).
  void set_qconfig(std::shared_ptr<const quantization::QConfig> qconfig) {
    qconfig_ = std::move(qconfig);
    has_qconfig_ = true;
  }
  /// Whether the attribute exists (set, possibly to None): torch's `hasattr(m, "qconfig")`.
  bool has_qconfig() const { return has_qconfig_; }
  /// Removes the attribute (torch's `del m.qconfig`).
  void clear_qconfig() {
    qconfig_.reset();
    has_qconfig_ = false;
  }

  // ---- state_dict (module_state.cpp) ----
  StateDict state_dict(const std::string& prefix = "", bool keep_vars = false);
  void state_dict_into(StateDict& destination, const std::string& prefix, bool keep_vars);
  /// PyTorch's algorithm (extension-spec § 3). Beyond PyTorch: every check runs before anything
  /// changes, so a load that fails leaves the module exactly as it was.
  IncompatibleKeys load_state_dict(const StateDict& state_dict, bool strict = true,
                                   bool assign = false);
  /// The per-module steps, overridable (a module may save a derived key and read it back).
  virtual void _save_to_state_dict(StateDict& destination, const std::string& prefix,
                                   bool keep_vars);
  virtual void _load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                                     LocalMetadata& local_metadata, bool strict,
                                     std::vector<std::string>& missing_keys,
                                     std::vector<std::string>& unexpected_keys,
                                     std::vector<std::string>& error_msgs);
  /// Extra state (PyTorch's get_extra_state / set_extra_state): a module that overrides
  /// has_extra_state to return true is saved and loaded with a "<prefix>_extra_state" entry.
  virtual bool has_extra_state() const { return false; }
  virtual Value get_extra_state() const { return Value(); }
  virtual void set_extra_state(const Value& /*state*/) {}
  /// For a _load_from_state_dict override that changes more than parameters and buffers
  /// (packed weights, plain attributes): queues `write` until the whole tree was checked
  /// (Note [All-or-nothing loading]); runs it at once outside a load_state_dict.
  static void schedule_load_write(std::function<void()> write);
  /// `type(self)._version` in the state_dict metadata.
  virtual int64_t version() const { return 1; }

  // ---- conversion (module_apply.cpp): PyTorch's _apply and its routes ----
  using TensorFn = std::function<Tensor(const Tensor&)>;
  Module& _apply(const TensorFn& fn, bool recurse = true);
  /// Floating-point tensors only; `dtype` must be floating ("nn.Module.to only accepts floating
  /// point or complex dtypes, but got desired dtype=torch.int32").
  Module& to(ScalarType dtype);
  Module& to(Device device);
  Module& to(Device device, ScalarType dtype);
  Module& to(const Tensor& other);  // other's device and dtype
  /// PyTorch's full form: each of device, dtype (floating tensors only) and memory_format
  /// optional; memory_format applies to 4-d and 5-d tensors, as PyTorch's (so
  /// to(MemoryFormat::ChannelsLast) on a module with 5-d weights raises "required rank 4 tensor
  /// to use channels_last format").
  Module& to(std::optional<Device> device, std::optional<ScalarType> dtype,
             std::optional<MemoryFormat> memory_format);
  Module& to(MemoryFormat memory_format) { return to(std::nullopt, std::nullopt, memory_format); }
  Module& cpu() { return to(kCPU); }
  Module& float_() { return to_floating(kFloat32); }
  Module& double_() { return to_floating(kFloat64); }
  Module& half() { return to_floating(kFloat16); }
  Module& bfloat16() { return to_floating(kBFloat16); }
  /// New uninitialised tensors on `device` (meta skeletons become real ones).
  Module& to_empty(Device device, bool recurse = true);

  // ---- deep copy (module_clone.h, Note [Cloning modules]) ----
  /// An independent copy of this tree (copy.deepcopy): own parameters, buffers and children,
  /// with sharing inside the tree kept (a tied weight stays tied in the copy).
  std::shared_ptr<Module> clone() const;
  /// clone() within `memo`: modules and tensors already in it are reused, new ones recorded.
  std::shared_ptr<Module> clone(CloneMemo& memo) const;

  // ---- printing ----
  virtual std::string extra_repr() const { return ""; }
  /// PyTorch's repr: "Name(extra)" or "Name(\n  (child): ChildRepr\n)". Virtual for the
  /// modules whose PyTorch class overrides __repr__ (a quantized Linear hides its packed
  /// parameters child).
  virtual std::string repr() const;

 protected:
  /// Shallow: the copy aliases this module's tensors and children (clone() replaces them) and
  /// shares its mode and C++ hooks; front-end state is not copied (module_clone.cpp).
  /// Subclasses get theirs implicitly; register_cloneable<T>() makes clone() use it.
  Module(const Module& other);
  // A deque: the references register_parameter / parameter() return stay valid as more are added.
  struct Slot {
    std::string name;
    Tensor value;  // undefined: registered as None
    bool persistent = true;
  };
  void register_module_impl(const std::string& name, std::shared_ptr<Module> module);
  /// The children in registration order, None ones (null) included: the one list that every
  /// view reads (Note [One list of children]).
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& child_slots() const {
    return children_;
  }
  Module& to_floating(ScalarType dtype);
  std::deque<Slot>& parameter_slots() { return parameters_; }
  std::deque<Slot>& buffer_slots() { return buffers_; }

 private:
  friend class ModuleLoader;
  template <class Hook>
  static std::vector<Hook> take_hooks(std::vector<std::pair<unsigned, Hook>>& hooks) {
    std::vector<Hook> out;
    for (auto& entry : hooks) out.push_back(std::move(entry.second));
    hooks.clear();
    return out;
  }
  Slot* find_slot(std::deque<Slot>& slots, const std::string& name);
  const Slot* find_slot(const std::deque<Slot>& slots, const std::string& name) const;
  void check_new_name(const std::string& kind, const std::string& name) const;
  // named_parameters / named_buffers: the defined tensors of `slots` over the tree, each passed
  // to `out` with its dotted name.
  void named_members(std::deque<Slot> Module::*slots, const std::string& prefix, bool recurse,
                     bool remove_duplicate,
                     const std::function<void(std::string, const Tensor&)>& out) const;
  // The C++ class name of *this, namespaces dropped (type_name() when none was given).
  const std::string& class_type_name() const;
  // Pre-order over this module and (with recurse) its descendants, with their dotted prefixes.
  void visit(const std::string& prefix, bool recurse, bool remove_duplicate,
             std::unordered_set<const Module*>& seen,
             const std::function<void(const Module&, const std::string&)>& fn) const;

  std::string type_name_;
  // class_type_name()'s cache: an interned (dynamic type, name) entry; checked against typeid
  // on use, since a base class's constructor sees its own type.
  mutable std::atomic<const detail::TypeNameEntry*> class_name_{nullptr};
  bool training_ = true;
  bool front_end_hooks_ = false;
  std::shared_ptr<void> front_end_object_;
  std::shared_ptr<const quantization::QConfig> qconfig_;
  bool has_qconfig_ = false;
  std::deque<Slot> parameters_;
  std::deque<Slot> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  std::vector<std::pair<unsigned, ForwardPreHook>> forward_pre_hooks_;
  std::vector<std::pair<unsigned, ForwardHook>> forward_hooks_;
  std::vector<std::pair<unsigned, StateDictPreHook>> state_dict_pre_hooks_;
  std::vector<std::pair<unsigned, StateDictPostHook>> state_dict_post_hooks_;
  std::vector<std::pair<unsigned, LoadPreHook>> load_pre_hooks_;
  std::vector<std::pair<unsigned, LoadPostHook>> load_post_hooks_;
  struct TensorAttribute {
    std::string name;
    Tensor value;
    TensorGetter getter;
  };
  std::deque<TensorAttribute> tensor_attributes_;
};

std::ostream& operator<<(std::ostream& os, const Module& m);

// Note [Slot handles]
// `Tensor w = register_parameter(...)` copies the handle of the tensor registered now; the module
// later holds another tensor after load_state_dict(assign=true), an overwriting conversion
// (set_overwrite_module_params_on_conversion, a move between device kinds) or a Python
// `m.w = Parameter(...)`, and the copy keeps the old one. A SlotRef names the slot instead (its
// module and the member's name) and reads it on every use. A SlotRef copied as a member of a
// module copy (clone(), which goes through copy constructors) belongs to the copy: Module's copy
// constructor records itself per thread, and a SlotRef copy that sits at the same offset from
// that copy as the original sits from its module rebinds to it; any other copy (a local) keeps
// naming the same module.
template <bool Buffer>
class SlotRef {
 public:
  SlotRef() = default;
  SlotRef(const SlotRef& other)
      : owner_(detail::rebind_slot_owner(other.owner_, this, &other)), name_(other.name_) {}
  SlotRef& operator=(const SlotRef& other) = default;

  /// The tensor in the slot now (an undefined tensor when registered as None).
  Tensor& get() const {
    EMBER_CHECK(owner_, Buffer ? "BufferRef" : "ParameterRef", " is not bound to a module");
    return Buffer ? owner_->buffer(name_) : owner_->parameter(name_);
  }
  operator Tensor&() const { return get(); }  // NOLINT: passes as the tensor
  Tensor& operator*() const { return get(); }
  Tensor* operator->() const { return &get(); }
  /// Bound to a module, and the slot holds a tensor (not None).
  bool defined() const { return owner_ && get().defined(); }
  const std::string& name() const { return name_; }
  Module* module() const { return owner_; }

 private:
  friend class Module;
  SlotRef(Module* owner, std::string name) : owner_(owner), name_(std::move(name)) {}
  Module* owner_ = nullptr;
  std::string name_;
};

}  // namespace ember::nn
