// torch.nn.Sequential, ModuleList and ModuleDict: modules registered under "0", "1", ... (or
// the given names), so that parameters, state_dict keys ("0.weight") and repr are PyTorch's.
//
//   auto net = std::make_shared<ember::nn::Sequential>(
//       std::make_shared<ember::nn::Linear>(4, 8), std::make_shared<ember::nn::ReLU>());
//   net->append(std::make_shared<ember::nn::Linear>(8, 2));
//   ember::Tensor y = (*net)(x);                        // each module in turn
//   auto fc = net->at<ember::nn::Linear>(0);            // typed access; (*net)[-1] counts back
//   for (const auto& m : *net) std::cout << m->repr() << "\n";
//
// The container's children are the Module's own child list (Note [One list of children]):
// Module::register_module, a Python `seq.add_module("sm", m)` or `seq.sm = m` add to what
// len(), indexing, iteration and forward read.
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

using NamedModule = std::pair<std::string, std::shared_ptr<Module>>;

/// What the three containers share: their children in order (duplicates kept: one module may
/// sit at two indices), and PyTorch's add_module (a name already there is replaced in place).
class ModuleContainer : public Module {
 public:
  /// Iterates the children (Named: as (name, module) pairs), in order.
  template <bool Named>
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::conditional_t<Named, NamedModule, std::shared_ptr<Module>>;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = value_type;
    Iterator() = default;
    Iterator(const ModuleContainer* owner, size_t i) : owner_(owner), i_(i) {}
    value_type operator*() const {
      const NamedModule& slot = owner_->child_slots()[i_];
      if constexpr (Named) {
        return slot;
      } else {
        return slot.second;
      }
    }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++i_;
      return old;
    }
    bool operator==(const Iterator& o) const { return owner_ == o.owner_ && i_ == o.i_; }

   private:
    const ModuleContainer* owner_ = nullptr;
    size_t i_ = 0;
  };

  size_t size() const { return child_slots().size(); }
  bool empty() const { return child_slots().empty(); }
  /// The children's names, in order.
  std::vector<std::string> keys() const;
  /// The children (a null pointer where one was registered as None).
  std::vector<std::shared_ptr<Module>> values() const;
  std::vector<NamedModule> items() const;

  /// Registers under `name`, or replaces the module already there (keeping its place), as
  /// PyTorch's add_module. Also reachable as register_module on the container's own type.
  void add_module(const std::string& name, std::shared_ptr<Module> module);
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    add_module(name, module);
    return module;
  }
  void unregister_module(const std::string& name);

 protected:
  explicit ModuleContainer(std::string type_name) : Module(std::move(type_name)) {}
  /// Re-registers `modules` as "0", "1", ... (PyTorch's renumbering after a deletion).
  void renumber(const std::vector<std::shared_ptr<Module>>& modules);
  /// Python's list index: -size <= idx < size, else IndexError "index 5 is out of range".
  size_t checked_index(int64_t idx) const;
  /// The positions a Python slice [start:stop:step] selects.
  std::vector<size_t> slice_positions(std::optional<int64_t> start, std::optional<int64_t> stop,
                                      int64_t step) const;
  // "[1]" and "['key']", for cast's message (out of line: GCC 12 warns wrongly about
  // inlined string concatenation at -O3).
  static std::string index_label(int64_t idx);
  static std::string key_label(const std::string& key);
  template <class T>
  std::shared_ptr<T> cast(const std::shared_ptr<Module>& m, const std::string& where) const {
    auto t = std::dynamic_pointer_cast<T>(m);
    EMBER_CHECK_TYPE(t || !m, type_name(), where, " holds a ", m->type_name(),
                     ", which is not of the requested C++ type");
    return t;
  }
  /// The name at position `i` (0 <= i < size()).
  const std::string& key_at(size_t i) const { return child_slots()[i].first; }
};

/// The index-based containers: Sequential and ModuleList.
class ModuleSequence : public ModuleContainer {
 public:
  /// The module at `idx` (negative counts from the end).
  std::shared_ptr<Module> operator[](int64_t idx) const;
  /// operator[] as a T (TypeError when the module is of another type).
  template <class T>
  std::shared_ptr<T> at(int64_t idx) const {
    return cast<T>((*this)[idx], index_label(idx));
  }
  Iterator<false> begin() const { return {this, 0}; }
  Iterator<false> end() const { return {this, size()}; }

  /// Registers `module` as str(size()).
  ModuleSequence& append(std::shared_ptr<Module> module);
  ModuleSequence& push_back(std::shared_ptr<Module> module) { return append(std::move(module)); }
  /// Each of `modules`, appended.
  ModuleSequence& extend(const std::vector<std::shared_ptr<Module>>& modules);
  /// Puts `module` before position `index` (-size..size; IndexError "Index out of range: 5"
  /// otherwise) and renumbers.
  ModuleSequence& insert(int64_t index, std::shared_ptr<Module> module);
  /// Replaces the module at `idx` (Python's `seq[idx] = module`), keeping its name.
  void set(int64_t idx, std::shared_ptr<Module> module);
  /// Removes the module at `idx` and renumbers the rest "0", "1", ... (`del seq[idx]`).
  void erase(int64_t idx);
  /// Removes the modules a Python slice selects, then renumbers.
  void erase(std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step = 1);
  /// erase(idx), returning the module.
  std::shared_ptr<Module> pop(int64_t idx);

 protected:
  using ModuleContainer::ModuleContainer;
};

/// Calls its modules in turn, each on the previous one's output.
class Sequential : public ModuleSequence {
 public:
  Sequential() : ModuleSequence("Sequential") {}
  /// Named "0", "1", ...
  explicit Sequential(const std::vector<std::shared_ptr<Module>>& modules);
  /// Named as given (PyTorch's Sequential(OrderedDict(...))).
  explicit Sequential(const std::vector<NamedModule>& named_modules);
  template <class... Ms>
    requires(sizeof...(Ms) > 0 && (std::is_base_of_v<Module, Ms> && ...))
  explicit Sequential(std::shared_ptr<Ms>... modules)
      : Sequential(std::vector<std::shared_ptr<Module>>{std::move(modules)...}) {}

  /// A new Sequential holding the selected modules under their names (PyTorch's seq[a:b]).
  std::shared_ptr<Sequential> slice(std::optional<int64_t> start, std::optional<int64_t> stop,
                                    int64_t step = 1) const;
  Tensor forward(const Tensor& input);
  /// One input, passed through every module's call (hooks included); any Value flows.
  Value forward(const std::vector<Value>& inputs) override;
  Sequential& extend(const Sequential& other);
  using ModuleSequence::extend;

 protected:
  /// For subclasses with their own class name (torchvision's Conv2dNormActivation, the fused
  /// intrinsic modules): `modules` named "0", "1", ...
  Sequential(std::string type_name, const std::vector<std::shared_ptr<Module>>& modules)
      : ModuleSequence(std::move(type_name)) {
    extend(modules);
  }
};

/// A list of modules; it has no forward of its own.
class ModuleList : public ModuleSequence {
 public:
  ModuleList() : ModuleSequence("ModuleList") {}
  explicit ModuleList(const std::vector<std::shared_ptr<Module>>& modules);
  /// A new ModuleList of the selected modules, renumbered (PyTorch's list[a:b]).
  std::shared_ptr<ModuleList> slice(std::optional<int64_t> start, std::optional<int64_t> stop,
                                    int64_t step = 1) const;
  ModuleList& extend(const ModuleList& other);
  using ModuleSequence::extend;
};

/// Modules by name, in insertion order; it has no forward of its own.
class ModuleDict : public ModuleContainer {
 public:
  ModuleDict() : ModuleContainer("ModuleDict") {}
  explicit ModuleDict(const std::vector<NamedModule>& modules);

  bool contains(const std::string& key) const;
  /// The module under `key` (KeyError "'key'" when absent).
  std::shared_ptr<Module> operator[](const std::string& key) const;
  template <class T>
  std::shared_ptr<T> at(const std::string& key) const {
    return cast<T>((*this)[key], key_label(key));
  }
  Iterator<true> begin() const { return {this, 0}; }
  Iterator<true> end() const { return {this, size()}; }

  /// `dict[key] = module`: a new key goes last, an existing one keeps its place.
  void set(const std::string& key, std::shared_ptr<Module> module) { add_module(key, std::move(module)); }
  /// `del dict[key]` (KeyError when absent).
  void erase(const std::string& key);
  std::shared_ptr<Module> pop(const std::string& key);
  void clear();
  /// set() for each pair, in order.
  void update(const std::vector<NamedModule>& modules);
  void update(const ModuleDict& other) { update(other.items()); }
};

}  // namespace ember::nn
