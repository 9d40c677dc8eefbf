// Module::clone and deep_copy (Note [Cloning modules] in ember/nn/module_clone.h).
#include "ember/nn/module_clone.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <typeindex>
#include <unordered_map>

#include <cxxabi.h>

#include "ember/dispatch.h"
#include "ember/grad_mode.h"
#include "ember/nn.h"
#include "ember/ops/factory.h"

namespace ember::nn {

namespace detail {
void set_module_copy(const Module* source, Module* target);  // module.cpp, Note [Slot handles]
}

namespace {

struct Entry {
  detail::ShallowCopyFn copy = nullptr;
  std::type_index fixups_of = typeid(void);
};

struct Registry {
  std::mutex mu;
  std::unordered_map<std::type_index, Entry> copies;
  std::unordered_multimap<std::type_index, detail::FixupFn> fixups;
};

void reset_fold_cache(Module& m, CloneMemo&) {
  // The eval-mode conv-bn fold belongs to the original's tensors: the copy folds its own.
  static_cast<ConvNd&>(m)._bn_fold_cache.reset();
}

// A copy of a plain nn::Module (Module's copy constructor is protected: reachable from here).
struct PlainModule final : Module {
  explicit PlainModule(const Module& m) : Module(m) {}
};

std::shared_ptr<Module> copy_plain(const Module& m) { return std::make_shared<PlainModule>(m); }

template <class... T>
void register_all(Registry& r) {
  (r.copies.emplace(typeid(T), Entry{[](const Module& m) -> std::shared_ptr<Module> {
                                       return std::make_shared<T>(static_cast<const T&>(m));
                                     },
                                     typeid(T)}),
   ...);
}

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry;  // never destroyed: trampolines may register during static teardown
    reg->copies.emplace(typeid(Module), Entry{copy_plain, typeid(Module)});
    reg->copies.emplace(typeid(PlainModule), Entry{copy_plain, typeid(Module)});
    register_all<Identity, Linear, Bilinear, ReLU, Hardtanh, ReLU6, Hardswish, Sigmoid,
                 Tanh, GELU, SiLU, Softmax, LogSoftmax, BatchNorm1d, BatchNorm2d, BatchNorm3d,
                 MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, AdaptiveMaxPool2d, Dropout, Dropout2d,
                 Flatten, LayerNorm, GroupNorm, MSELoss, L1Loss, NLLLoss, CrossEntropyLoss,
                 BCEWithLogitsLoss, Embedding, Sequential, ModuleList, ModuleDict, Upsample,
                 Conv1d, Conv2d, ConvTranspose2d, Conv3d, ConvTranspose1d, ConvTranspose3d>(*reg);
    for (std::type_index t : {std::type_index(typeid(Conv1d)), std::type_index(typeid(Conv2d)),
                              std::type_index(typeid(ConvTranspose2d))}) {
      reg->fixups.emplace(t, reset_fold_cache);
    }
    return reg;
  }();
  return *r;
}

std::string demangle(const char* name) {
  int status = 0;
  char* s = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && s ? s : name;
  std::free(s);
  return out;
}

}  // namespace

namespace detail {

void register_cloneable(std::type_index type, ShallowCopyFn copy, std::type_index fixups_of) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.copies[type] = Entry{copy, fixups_of};
}

void register_fixup(std::type_index type, FixupFn fixup) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.fixups.emplace(type, fixup);
}

}  // namespace detail

std::shared_ptr<Module> shallow_copy(const Module& m) {
  Registry& r = registry();
  detail::ShallowCopyFn fn = nullptr;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.copies.find(typeid(m));
    if (it != r.copies.end()) fn = it->second.copy;
  }
  EMBER_CHECK_TYPE(fn != nullptr, "cannot copy module ", m.type_name(), ": its C++ type ",
                   demangle(typeid(m).name()),
                   " is not registered (call ember::nn::register_cloneable<T>() for it)");
  std::shared_ptr<Module> copy = fn(m);
  detail::set_module_copy(nullptr, nullptr);  // the copy is complete
  return copy;
}

Tensor deep_copy(const Tensor& t, CloneMemo& memo) {
  if (!t.defined()) return t;
  auto found = memo.tensors.find(t.impl());
  if (found != memo.tensors.end()) return found->second;
  EMBER_CHECK(t.is_leaf(), "Only Tensors created explicitly by the user (graph leaves) support "
              "the deepcopy protocol at the moment");
  AutoGradMode no_grad(false);
  Tensor out;
  if (t.is_parameter()) {
    // Parameter.__deepcopy__: a new Parameter over a clone of the data (its grad is not kept).
    out = Parameter(t.detach().clone(), t.requires_grad());
  } else {
    TensorImpl* impl = t.impl();
    const auto* subclass = impl->subclass();
    if (t.is_meta() || (subclass && subclass->is_wrapper())) {
      out = t.detach().clone();  // no data to share, as PyTorch's path for meta tensors
    } else {
      const Storage* key = impl->storage().get();
      auto it = memo.storages.find(key);
      if (it == memo.storages.end()) {
        auto s = Storage::allocate(key->nbytes(), key->device());
        if (key->data() && key->nbytes()) std::memcpy(s->data(), key->data(), key->nbytes());
        it = memo.storages.emplace(key, std::move(s)).first;
      }
      auto copy = make_intrusive<TensorImpl>(it->second, impl->dtype(), impl->sizes(),
                                             impl->strides(), impl->storage_offset());
      copy->set_quantizer(impl->quantizer());  // quantized tensors: same quantizer parameters
      out = Tensor(std::move(copy));
    }
    if (t.requires_grad()) out.requires_grad_(true);
    if (t.grad().defined()) out.set_grad(deep_copy(t.grad(), memo));
  }
  memo.tensors.emplace(t.impl(), out);
  return out;
}

// Member by member, not defaulted: what a front end keeps with a module (its Python object)
// belongs to the original alone, so members not named here start empty in the copy.
Module::Module(const Module& other)
    : std::enable_shared_from_this<Module>(),
      type_name_(other.type_name_),
      training_(other.training_),
      qconfig_(other.qconfig_),  // shared: a QConfig is immutable (factories only)
      has_qconfig_(other.has_qconfig_),
      parameters_(other.parameters_),
      buffers_(other.buffers_),
      children_(other.children_),
      forward_pre_hooks_(other.forward_pre_hooks_),
      forward_hooks_(other.forward_hooks_),
      state_dict_pre_hooks_(other.state_dict_pre_hooks_),
      state_dict_post_hooks_(other.state_dict_post_hooks_),
      load_pre_hooks_(other.load_pre_hooks_),
      load_post_hooks_(other.load_post_hooks_),
      tensor_attributes_(other.tensor_attributes_) {
  // The derived class's members are copied next: its SlotRefs rebind to this copy.
  detail::set_module_copy(&other, this);
}

std::shared_ptr<Module> Module::clone() const {
  CloneMemo memo;
  return clone(memo);
}

std::shared_ptr<Module> Module::clone(CloneMemo& memo) const {
  auto found = memo.modules.find(this);
  if (found != memo.modules.end()) return found->second;
  std::shared_ptr<Module> copy = shallow_copy(*this);
  std::shared_ptr<Module>& handle = memo.modules.emplace(this, copy).first->second;
  if (memo.on_module) {
    if (auto h = memo.on_module(*this, copy)) handle = std::move(h);
  }
  std::shared_ptr<Module> result = handle;
  auto copy_tensor = [&memo](const Tensor& t) {
    if (!t.defined()) return t;
    return memo.copy_tensor ? memo.copy_tensor(t, memo) : deep_copy(t, memo);
  };
  for (Slot& s : copy->parameters_) s.value = copy_tensor(s.value);
  for (Slot& s : copy->buffers_) s.value = copy_tensor(s.value);
  for (auto& [name, child] : copy->children_) {
    if (child) child = child->clone(memo);
  }
  Registry& r = registry();
  std::vector<detail::FixupFn> fixups;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    auto entry = r.copies.find(typeid(*this));
    auto range = r.fixups.equal_range(entry->second.fixups_of);
    for (auto it = range.first; it != range.second; ++it) fixups.push_back(it->second);
  }
  for (detail::FixupFn f : fixups) f(*copy, memo);
  return result;
}

}  // namespace ember::nn
