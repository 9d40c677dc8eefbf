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


}  // namespace ember::ops
