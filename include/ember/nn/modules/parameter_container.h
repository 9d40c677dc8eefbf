// torch.nn.ParameterList and ParameterDict (issue 16): modules whose own parameters are the
// elements, named "0", "1", ... or by key, so that state_dict / named_parameters show them as
// PyTorch's do ("params.0", "params.bias"). A tensor that is not a Parameter is made one.
// reprs as PyTorch 1.13 prints them ("(0): Parameter containing: [ember.float32 of size 2x3]").
//
//   auto plist = std::make_shared<ember::nn::ParameterList>(std::vector<ember::Tensor>{w1, w2});
//   plist->append(w3);
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

class ParameterList : public Module {
 public:
  explicit ParameterList(const std::vector<Tensor>& values = {});
  void append(const Tensor& value);
  void extend(const std::vector<Tensor>& values);
  size_t size() const { return count_; }
  /// Python's indexing: negative counts from the end; IndexError out of range.
  Tensor& at(int64_t index);
  void set(int64_t index, const Tensor& value);
  std::string extra_repr() const override;

 private:
  int64_t wrap(int64_t index) const;
  size_t count_ = 0;
};

class ParameterDict : public Module {
 public:
  explicit ParameterDict(const std::vector<std::pair<std::string, Tensor>>& values = {});
  /// Adds or replaces (keeping the key's position).
  void set(const std::string& key, const Tensor& value);
  /// KeyError when absent.
  Tensor& get(const std::string& key);
  bool contains(const std::string& key) const { return has_parameter(key); }
  /// Removes the key and returns its parameter (KeyError when absent).
  Tensor pop(const std::string& key);
  void clear();
  std::vector<std::string> keys() const;
  size_t size() const { return keys().size(); }
  std::string extra_repr() const override;
};

}  // namespace ember::nn
