// Autograd helpers for views and in-place writes through them (internal; used by the autograd
// kernels of view.cpp, copy.cpp, indexing.cpp and index_ops.cpp).
#pragma once

#include <string>

#include "../autograd/autograd_meta.h"
#include "../autograd/record.h"

namespace ember::ops {

/// A view of a view inherits how the view it was taken from was made (PyTorch's
/// propagate_creation_meta): a view of an output of split / unbind refuses in-place writes
/// too, its message naming the op that made it (`name`, its grad_fn's).
inline void propagate_view_creation(const Tensor& self, const Tensor& out, const std::string& name) {
  const autograd::AutogradMeta* m = autograd::get_meta(self);
  if (m && m->view_meta_set_ && m->creation_meta_ != autograd::CreationMeta::Default) {
    autograd::set_view_creation(out, m->creation_meta_, name);
  }
}

/// Whether an in-place op's rule should compute self's gradient. Not `n.needs(0)`: when self
/// was a view, the node runs inside CopySlices, and the engine's CopySlices::apply does not
/// enter the node's edge 0 (the view's old history) into a grad()/inputs= task's exec_info
/// (PyTorch does: Note [View + Inplace update for view tensor]), so needs(0) reads false there
/// and the view's old elements would get a zero gradient. Computing it whenever the edge
/// exists is always correct; at worst it computes a gradient nobody reads.
inline bool self_grad_wanted(const autograd::OpNode& n) { return n.next_edge(0).is_valid(); }

}  // namespace ember::ops
