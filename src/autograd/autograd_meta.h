// What autograd attaches to a TensorImpl (internal). Created on demand: a tensor that never
// requires grad and was never viewed for autograd has none.
#pragma once

#include <memory>
#include <vector>

#include "ember/autograd/node.h"
#include "ember/tensor_impl.h"

namespace ember::autograd {

/// How a view was made; some kinds refuse in-place writes that autograd would record
/// (handle_view_on_rebase in variable.cpp has the messages).
enum class CreationMeta : uint8_t { Default, NoGradMode, MultiOutputNode, InCustomFunction };

struct AutogradMeta final : AutogradMetaInterface {
  bool requires_grad() const override { return requires_grad_ || grad_fn_ != nullptr; }

  Tensor grad_;
  std::shared_ptr<Node> grad_fn_;
  std::weak_ptr<Node> grad_accumulator_;  // leaves: their AccumulateGrad (weak: no cycle)
  uint32_t output_nr_ = 0;
  bool requires_grad_ = false;  // the leaf flag
  bool retains_grad_ = false;
  bool is_parameter_ = false;  // nn::Parameter (printed "Parameter containing:")

  // Views that autograd saw being made (Note [View tracking] in tensor_impl.cpp).
  bool view_meta_set_ = false;
  CreationMeta creation_meta_ = CreationMeta::Default;
  std::string creator_name_;  // for MultiOutputNode / InCustomFunction messages
  uint32_t attr_version_ = 0;  // version when grad_fn_ was last set (views regenerate on change)

  // Leaves' tensor hooks (non-leaves keep theirs on grad_fn).
  std::vector<Node::TensorHookEntry> leaf_hooks_;
  std::vector<std::pair<unsigned, std::function<void(const Tensor&)>>> post_acc_hooks_;

  // Shared by the SavedVariables holding this tensor (use_count - 1 of them are alive): what
  // swap_tensors checks, since swapping a tensor the graph saved would corrupt its backward.
  std::shared_ptr<int> saved_token_;

  // A token that lets retain_grad hooks (owned by the graph) find this meta only while it lives
  // (made by retain_grad: most tensors never need it).
  std::shared_ptr<int> alive_;
};

/// The meta of `t`, or null.
inline AutogradMeta* get_meta(const Tensor& t) {
  return static_cast<AutogradMeta*>(t.impl()->autograd_meta());
}
/// The meta of `t`, created if absent.
AutogradMeta& materialize_meta(const Tensor& t);

/// The grad_fn of `t`, regenerated for a view whose base was modified in place since
/// (AsStridedBackward0 over the base's current history, as PyTorch).
const std::shared_ptr<Node>& grad_fn_of(const Tensor& t);

/// Gives `t` history: output `output_nr` of `fn`. Refreshes its dispatch keys.
void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, uint32_t output_nr);

/// After an in-place op recorded `fn` on `self`: self's history becomes `fn`, or, when self is a
/// view, its base's history becomes a CopySlices over `fn` and self's is regenerated.
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn);

/// The checks every recorded in-place op makes on its target first (leaf, view of a leaf, views
/// whose creation forbids it).
void check_inplace(const Tensor& self);

/// Marks `view` as a view autograd tracks, with how it was made.
void set_view_creation(const Tensor& view, CreationMeta meta, const std::string& creator = {});

/// The AccumulateGrad node of leaf `t` (created once, shared while alive).
std::shared_ptr<Node> grad_accumulator(const Tensor& t);

}  // namespace ember::autograd
