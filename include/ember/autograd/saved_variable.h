// A tensor a node keeps for its backward, with the version it had when saved (internal).
#pragma once

#include <memory>
#include <string>

#include "ember/autograd/node.h"

namespace ember::autograd {

class SavedVariable {
 public:
  SavedVariable() = default;  // saves nothing: unpacks to an undefined Tensor, even after release
  /// `is_output`: `t` is an output of the node that saves it. Such a tensor is kept without its
  /// history (the node would own itself) and gets it back, pointing at the node, when unpacked.
  SavedVariable(const Tensor& t, bool is_output);

  /// The saved tensor. Refuses if it was modified in place since it was saved, or if the graph
  /// was freed (release). `owner` is the node that saved it (needed for saved outputs).
  Tensor unpack(const std::shared_ptr<Node>& owner) const;
  void release();
  bool defined() const { return !default_constructed_; }

 private:
  Tensor data_;
  std::shared_ptr<int> token_;  // the saved tensor's AutogradMeta::saved_token_ (non-outputs)
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool default_constructed_ = true;
  bool is_output_ = false;
  bool requires_grad_ = false;
};

/// "torch.FloatTensor" etc., as PyTorch names tensor types in messages.
std::string legacy_type_name(const Tensor& t);

}  // namespace ember::autograd
