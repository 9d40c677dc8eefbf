// Deep copies of module trees and tensors: what copy.deepcopy of a module runs, and what
// quantization's prepare(inplace=false) / fuse_modules(inplace=false) start from.
//
//   std::shared_ptr<ember::nn::Module> copy = model->clone();   // fully independent
//   ember::nn::CloneMemo memo;                                   // one memo, several objects:
//   auto a = m1->clone(memo), b = m2->clone(memo);               // what m1 and m2 share, a and b share
//
//   struct MyLayer : ember::nn::Module { ... };                  // a C++ module of one's own:
//   ember::nn::register_cloneable<MyLayer>();                    // once, before cloning it
//
// Note [Cloning modules]
// clone() copies the tree through each module's copy constructor (Module's is protected and
// shallow: the copy's slots alias the original's tensors and children), then replaces every
// parameter, buffer and child by its deep copy through one CloneMemo, so anything reached twice
// (a weight tied between two layers, a module registered twice) is copied once and stays shared
// in the copy. The copy constructor of a module's dynamic type is found in a registry keyed by
// its typeid: every layer, container and model of ember registers itself (module_clone.cpp), the
// Python front end registers its trampolines, and a C++ module of one's own calls
// register_cloneable<T>() (clone() names the type when it finds none). A class whose members
// point at its children (ResNet's `fc`, MobileNetV2's `features`) registers a fixup that points
// them at the copies. Tensors are copied as PyTorch's __deepcopy__ does: a leaf only (the
// message is PyTorch's), views of one storage stay views of one new storage, requires_grad and
// the gradient are kept; a Parameter becomes a new Parameter over a clone of its data, as
// Parameter.__deepcopy__. The front end hooks copy_tensor (Tensor.__deepcopy__, so subclasses
// keep their class and __dict__) and on_module (a new Python object per copied module).
#pragma once

#include <functional>
#include <memory>
#include <typeindex>
#include <unordered_map>

#include "ember/nn/module.h"
#include "ember/storage.h"

namespace ember::nn {

/// What one deep copy has copied so far, by original: modules, tensors and storages.
struct CloneMemo {
  std::unordered_map<const Module*, std::shared_ptr<Module>> modules;
  std::unordered_map<const TensorImpl*, Tensor> tensors;
  std::unordered_map<const Storage*, intrusive_ptr<Storage>> storages;
  /// Replaces deep_copy for the tensors of modules (the Python front end's Tensor.__deepcopy__).
  std::function<Tensor(const Tensor&, CloneMemo&)> copy_tensor;
  /// Called with each new module copy, before its members are copied; returns the handle the
  /// copied tree holds it by (the Python front end's keeps its Python object alive: Note
  /// [Python modules under C++ parents]), or null to hold `copy` itself.
  std::function<std::shared_ptr<Module>(const Module& original,
                                        const std::shared_ptr<Module>& copy)>
      on_module;
};

/// copy.deepcopy of a tensor (see the Note): undefined stays undefined.
Tensor deep_copy(const Tensor& t, CloneMemo& memo);

/// The shallow copy (copy constructor) of `m`'s dynamic type, from the registry.
std::shared_ptr<Module> shallow_copy(const Module& m);

namespace detail {
using ShallowCopyFn = std::shared_ptr<Module> (*)(const Module&);
using FixupFn = void (*)(Module& copy, CloneMemo& memo);
void register_cloneable(std::type_index type, ShallowCopyFn copy, std::type_index fixups_of);
void register_fixup(std::type_index type, FixupFn fixup);
}  // namespace detail

/// Lets clone() copy modules of dynamic type T (copy-constructible), applying the fixups
/// registered for `Like` (a trampoline registers as its C++ layer: register_cloneable<PyX, X>).
template <class T, class Like = T>
void register_cloneable() {
  detail::register_cloneable(
      typeid(T),
      [](const Module& m) -> std::shared_ptr<Module> {
        return std::make_shared<T>(static_cast<const T&>(m));
      },
      typeid(Like));
}

/// Points a member that holds one of the module's children at that child's copy.
template <class M>
void remap_child(std::shared_ptr<M>& member, CloneMemo& memo) {
  if (!member) return;
  auto it = memo.modules.find(member.get());
  std::shared_ptr<Module> copy = it != memo.modules.end() ? it->second : member->clone(memo);
  member = std::dynamic_pointer_cast<M>(copy);
}

}  // namespace ember::nn
