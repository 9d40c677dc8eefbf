// OrderedDict<Key, Value>: items in insertion order with lookup by key, as libtorch's
// torch::OrderedDict. What Module::named_parameters / named_buffers / named_children /
// named_modules return.
//
//   auto params = net->named_parameters();
//   ember::Tensor& w = params["fc.weight"];                  // KeyError naming the key if absent
//   if (params.contains("fc.bias")) { ... }
//   for (const auto& item : params) std::cout << item.key() << " " << item.value().sizes() << "\n";
//   for (const auto& [name, t] : params) { ... }             // structured bindings work too
//   std::vector<std::string> names = params.keys();
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/error.h"

namespace ember {

/// One entry of an OrderedDict: `key()` and `value()` (libtorch's OrderedDict::Item); `*item` and `item->` reach
/// the value, and `auto& [key, value] = item` binds both.
template <class Key, class Value>
class OrderedDictItem {
 public:
  OrderedDictItem(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
  const Key& key() const { return pair_.first; }
  Value& value() { return pair_.second; }
  const Value& value() const { return pair_.second; }
  Value& operator*() { return pair_.second; }
  const Value& operator*() const { return pair_.second; }
  Value* operator->() { return &pair_.second; }
  const Value* operator->() const { return &pair_.second; }
  const std::pair<Key, Value>& pair() const { return pair_; }

  // The tuple protocol, for structured bindings. The key is const: changing it would break the
  // dict's index.
  template <size_t I>
  decltype(auto) get() & {
    if constexpr (I == 0) return key();
    else return value();
  }
  template <size_t I>
  decltype(auto) get() const& {
    if constexpr (I == 0) return key();
    else return value();
  }
  template <size_t I>
  decltype(auto) get() && {
    if constexpr (I == 0) return static_cast<const Key&&>(pair_.first);
    else return static_cast<Value&&>(pair_.second);
  }

 private:
  std::pair<Key, Value> pair_;
};

template <class Key, class Value>
class OrderedDict {
 public:
  using Item = OrderedDictItem<Key, Value>;
  using iterator = typename std::vector<Item>::iterator;
  using const_iterator = typename std::vector<Item>::const_iterator;

  /// `key_description` names the keys in errors ("Parameter 'fc.w' is not defined").
  explicit OrderedDict(std::string key_description = "Key")
      : key_description_(std::move(key_description)) {}
  OrderedDict(std::initializer_list<Item> items) {
    for (const auto& item : items) insert(item.key(), item.value());
  }

  /// Adds `key` last (an error naming it when it is already there).
  Value& insert(Key key, Value value) {
    EMBER_CHECK_KIND(ErrorKind::Key, index_.find(key) == index_.end(), key_description_, " '",
                     key, "' already defined");
    index_.emplace(key, items_.size());
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().value();
  }
  /// Sets the value under `key`, adding it last when new.
  Value& insert_or_assign(const Key& key, Value value) {
    if (Value* v = find(key)) return *v = std::move(value);
    return insert(key, std::move(value));
  }

  /// The value under `key`; KeyError "<description> 'key' is not defined" when absent.
  Value& operator[](const Key& key) {
    Value* v = find(key);
    if (!v) missing(key);
    return *v;
  }
  const Value& operator[](const Key& key) const { return const_cast<OrderedDict&>(*this)[key]; }
  /// The item at position `index` (IndexError past the end).
  Item& operator[](size_t index) {
    EMBER_CHECK_INDEX(index < items_.size(), "Index ", index, " is out of bounds (size ",
                      items_.size(), ")");
    return items_[index];
  }
  const Item& operator[](size_t index) const { return const_cast<OrderedDict&>(*this)[index]; }
  /// A pointer to the value under `key`, or nullptr.
  Value* find(const Key& key) {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const { return const_cast<OrderedDict&>(*this).find(key); }
  bool contains(const Key& key) const { return index_.find(key) != index_.end(); }

  size_t size() const { return items_.size(); }
  bool is_empty() const { return items_.empty(); }
  bool empty() const { return items_.empty(); }
  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  Item& front() { return (*this)[size_t{0}]; }
  const Item& front() const { return (*this)[size_t{0}]; }
  Item& back() { return (*this)[items_.size() - 1]; }
  const Item& back() const { return (*this)[items_.size() - 1]; }

  std::vector<Key> keys() const {
    std::vector<Key> out;
    out.reserve(items_.size());
    for (const auto& item : items_) out.push_back(item.key());
    return out;
  }
  std::vector<Value> values() const {
    std::vector<Value> out;
    out.reserve(items_.size());
    for (const auto& item : items_) out.push_back(item.value());
    return out;
  }
  const std::vector<Item>& items() const { return items_; }
  /// The (key, value) pairs, in order.
  std::vector<std::pair<Key, Value>> pairs() const {
    std::vector<std::pair<Key, Value>> out;
    out.reserve(items_.size());
    for (const auto& item : items_) out.push_back(item.pair());
    return out;
  }
  const std::string& key_description() const { return key_description_; }

  void reserve(size_t n) {
    items_.reserve(n);
    index_.reserve(n);
  }
  void clear() {
    items_.clear();
    index_.clear();
  }

 private:
  [[noreturn]] void missing(const Key& key) const {
    EMBER_FAIL_KIND(ErrorKind::Key, key_description_, " '", key, "' is not defined");
  }

  std::string key_description_ = "Key";
  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
};

}  // namespace ember

template <class Key, class Value>
struct std::tuple_size<ember::OrderedDictItem<Key, Value>> : std::integral_constant<size_t, 2> {};
template <class Key, class Value>
struct std::tuple_element<0, ember::OrderedDictItem<Key, Value>> {
  using type = const Key;
};
template <class Key, class Value>
struct std::tuple_element<1, ember::OrderedDictItem<Key, Value>> {
  using type = Value;
};
