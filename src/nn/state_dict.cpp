#include "ember/nn/state_dict.h"

#include "ember/error.h"

namespace ember::nn {

void StateDict::insert(const std::string& key, Value value) {
  auto it = index_.find(key);
  if (it != index_.end()) {
    items_[it->second].second = std::move(value);
    return;
  }
  index_.emplace(key, items_.size());
  items_.emplace_back(key, std::move(value));
}

const Value& StateDict::at(const std::string& key) const {
  const Value* v = find(key);
  EMBER_CHECK_KIND(ErrorKind::Key, v, "'", key, "'");
  return *v;
}

const Value* StateDict::find(const std::string& key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &items_[it->second].second;
}

bool StateDict::erase(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return false;
  items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(it->second));
  index_.clear();
  for (size_t i = 0; i < items_.size(); ++i) index_.emplace(items_[i].first, i);
  return true;
}

std::vector<std::string> StateDict::keys() const {
  std::vector<std::string> k;
  k.reserve(items_.size());
  for (const auto& [key, v] : items_) k.push_back(key);
  return k;
}

StateDict StateDict::with_prefix(const std::string& prefix) const {
  StateDict out;
  for (const auto& [key, v] : items_) {
    if (key.compare(0, prefix.size(), prefix) == 0) out.insert(key, v);
  }
  out.metadata = metadata;
  return out;
}

LocalMetadata* StateDict::metadata_for(const std::string& module_prefix) {
  if (!metadata) return nullptr;
  for (auto& [prefix, local] : *metadata)
    if (prefix == module_prefix) return &local;
  return nullptr;
}

}  // namespace ember::nn
