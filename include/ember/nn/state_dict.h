// StateDict: what Module::state_dict returns and load_state_dict takes — PyTorch's OrderedDict
// of dotted names to tensors, with its `_metadata` (per-module version and load options).
// Values are ember::Value so that a checkpoint may hold what PyTorch's may (extra state,
// and wrong types, which loading reports as PyTorch does).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/value.h"

namespace ember::nn {

/// One module's entry in the metadata: {"version": 1}, plus "assign_to_params_buffers" while
/// loading with assign=true.
using LocalMetadata = std::map<std::string, Value>;

class StateDict {
 public:
  /// Inserts, or replaces the value of an existing key (keeping its position).
  void insert(const std::string& key, Value value);
  bool contains(const std::string& key) const { return index_.count(key) > 0; }
  const Value& at(const std::string& key) const;
  const Value* find(const std::string& key) const;
  bool erase(const std::string& key);
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  std::vector<std::string> keys() const;
  const std::vector<std::pair<std::string, Value>>& items() const& { return items_; }
  /// On a temporary (`for (auto& kv : m.state_dict().items())`): a copy, not a dangling reference.
  std::vector<std::pair<std::string, Value>> items() && { return std::move(items_); }
  /// The entries whose key starts with `prefix` (all of them for "").
  StateDict with_prefix(const std::string& prefix) const;

  /// PyTorch's `_metadata` (absent on a plain dict): module prefix without its trailing dot
  /// ("" for the root, "lin", "a.b") to that module's metadata, in module order.
  std::optional<std::vector<std::pair<std::string, LocalMetadata>>> metadata;
  LocalMetadata* metadata_for(const std::string& module_prefix);
  /// A front end's type names of values it could not box or whose type boxing loses (a real
  /// PyTorch tensor, a tuple), by key: loading names them as the front end spells them
  /// ("<class 'torch.Tensor'>").
  std::map<std::string, std::string> value_types;

 private:
  std::vector<std::pair<std::string, Value>> items_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace ember::nn
