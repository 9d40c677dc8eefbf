// A tensor a node keeps for its backward, with the version it had when saved (internal).
#pragma once

#include <memory>
#include <string>

#include "ember/autograd/node.h"
#include "ember/autograd/saved_tensor_hooks.h"

namespace ember::autograd {

class SavedVariable {
 public:
  SavedVariable() = default;  // saves nothing: unpacks to an undefined Tensor, even after release
  /// `is_output`: `t` is an output of the node that saves it. Such a tensor is kept without its
  /// history (the node would own itself) and gets it back, pointing at the node, when unpacked.
  SavedVariable(const Tensor& t, bool is_output);

  /// The saved tensor. Refuses if it was modified in place since it was saved, or if the graph
  /// was freed (release). `owner` is the node that saved it (needed for saved outputs). With
  /// saved-tensor hooks (Note [Saved tensor hooks]) the tensor comes from the unpack hook.
  Tensor unpack(const std::shared_ptr<Node>& owner) const;
  void release();
  bool defined() const { return !default_constructed_; }
  /// Gives this saved tensor its own pack / unpack pair (PyTorch's
  /// `grad_fn._raw_saved_self.register_hooks(pack, unpack)`): packs the tensor now and keeps
  /// only what pack returned. Refuses a second pair, a freed tensor and a saved None, with
  /// PyTorch's texts.
  void register_hooks(std::shared_ptr<SavedTensorHooks> hooks);

 private:
  Tensor data_;
  std::shared_ptr<int> token_;  // the saved tensor's AutogradMeta::saved_token_ (non-outputs)
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool default_constructed_ = true;
  bool is_output_ = false;
  bool requires_grad_ = false;
  // Note [Saved tensor hooks]: the pair that packed the tensor, what pack returned, and the
  // history to give the unpacked tensor back (the saved tensor itself is not kept).
  std::shared_ptr<SavedTensorHooks> hooks_;
  std::shared_ptr<void> packed_;
  std::shared_ptr<Node> grad_fn_;            // non-leaf, non-output tensors: their grad_fn
  std::weak_ptr<Node> grad_accumulator_;     // leaves that require grad: their AccumulateGrad
  Tensor unpack_hooked(const std::shared_ptr<Node>& owner) const;
  // Keeps the history of `t` for unpack_hooked and packs it with `hooks` (under no grad).
  void pack_with(std::shared_ptr<SavedTensorHooks> hooks, const Tensor& t, const Tensor& packed_arg);
};

/// "torch.FloatTensor" etc., as PyTorch names tensor types in messages.
std::string legacy_type_name(const Tensor& t);

}  // namespace ember::autograd
