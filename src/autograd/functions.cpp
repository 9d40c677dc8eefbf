#include "functions.h"

#include "ember/autograd/autograd.h"
#include "ember/grad_mode.h"
#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/view.h"
#include "../ops/elementwise.h"
#include "engine.h"
#include "record.h"

namespace ember::autograd {

// ---- OpNode ----

tensor_list OpNode::apply(tensor_list&& grads) {
  bool any_defined = false;
  for (const auto& g : grads) any_defined |= g.defined();
  if (!any_defined) return tensor_list(num_outputs());
  // Rules of multi-output ops read every output's gradient; absent ones count as zeros.
  if (grads.size() > 1) {
    for (size_t i = 0; i < grads.size(); ++i) {
      const InputMetadata& md = input_metadata(i);
      if (!grads[i].defined() && (is_floating(md.dtype) || is_complex(md.dtype)) && !nondifferentiable(i)) {
        grads[i] = zeros(md.shape, TensorOptions(md.dtype).device(md.device));
      }
    }
  }
  EMBER_CHECK(formula, name(), ": the graph was freed");
  return formula(*this, grads);
}

void OpNode::release_variables() {
  for (auto& s : saved_) s.var.release();
}

// ---- un-broadcasting ----

Tensor sum_to(const Tensor& grad, IntArrayRef shape) {
  if (grad.sizes() == shape) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  DimVector dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1 && grad.size(lead + static_cast<int64_t>(i)) != 1) {
      dims.push_back(lead + static_cast<int64_t>(i));
    }
  }
  Tensor r = dims.empty() ? grad : grad.sum(dims, /*keepdim=*/true);
  return lead > 0 || r.sizes() != shape ? r.view(shape) : r;
}

// ---- AccumulateGrad ----

AccumulateGrad::AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {}

namespace {
// Whether `g` may become .grad as it is: nobody else holds it or its memory, and its layout is
// the variable's (PyTorch's "layout contract"; an expanded gradient would break `grad += ...`).
// A view (e.g. the transpose a matmul rule returns) qualifies when its base is held by nothing
// but the view itself.
bool can_steal(const Tensor& g, const Tensor& variable) {
  if (g.use_count() != 1 || g.requires_grad() || g.strides() != variable.strides()) return false;
  const auto& base = g.impl()->view_base();
  const size_t owners = base ? (base.use_count() == 1 ? 2 : 0) : 1;
  return owners != 0 && g.impl()->storage().use_count() <= owners;
}
}  // namespace

namespace {
// PyTorch's clone_obey_contract: a copy with the variable's strides when they are dense and
// non-overlapping (so that `grad += ...` and optimizers run on matching layouts), else a
// contiguous one: new_empty_strided and copy_, the ops a dispatch handler sees in PyTorch.
Tensor clone_obey_contract(const Tensor& new_grad, const Tensor& variable) {
  if (!ops::dense_strides_or_empty(variable).empty()) {
    return new_empty_strided(new_grad, variable.sizes(), variable.strides(),
                             TensorOptions(new_grad.dtype()).device(new_grad.device()))
        .copy_(new_grad);
  }
  return new_grad.clone(MemoryFormat::Contiguous);
}
}  // namespace

tensor_list AccumulateGrad::apply(tensor_list&& grads) {
  EMBER_CHECK(!poisoned_,
              "Trying to execute AccumulateGrad node that was poisoned by swap_tensors this can "
              "happen when you try to run backward on a tensor that was swapped. For a module m "
              "with `ember.__future__.set_swap_module_params_on_conversion(True)` you should not "
              "change the device or dtype of the module (e.g. `m.cpu()` or `m.half()`) between "
              "running forward and backward. To resolve this, please only change the device/dtype "
              "before running forward (or after both forward and backward).");
  Tensor new_grad = std::move(grads[0]);
  if (!new_grad.defined() || !variable_.requires_grad()) return {};
  AutogradMeta& m = materialize_meta(variable_);
  if (!m.grad_.defined()) {
    if (!GradMode::is_enabled() && can_steal(new_grad, variable_)) {
      // Stolen as PyTorch does, through a detach that dispatch handlers see.
      m.grad_ = new_grad.detach();
    } else {
      m.grad_ = clone_obey_contract(new_grad, variable_);
    }
  } else if (!GradMode::is_enabled()) {
    m.grad_.add_(new_grad);
  } else {
    m.grad_ = m.grad_ + new_grad;
  }
  const auto hooks = m.post_acc_hooks_;
  UserCodeScope user;
  for (const auto& [id, hook] : hooks) hook(variable_);
  return {};
}

// ---- views written in place ----

Tensor as_strided_backward(const Tensor& grad, const TensorGeometry& input, IntArrayRef sizes,
                           IntArrayRef strides, int64_t offset) {
  // Scatter-add the gradient into a flat buffer spanning both geometries' memory, then read the
  // input's geometry out of it: elements that alias receive the sum of their gradients.
  auto extent = [](IntArrayRef sz, IntArrayRef st, int64_t off) {
    int64_t last = off;
    for (size_t i = 0; i < sz.size(); ++i) {
      if (sz[i] == 0) return int64_t{0};
      last += (sz[i] - 1) * st[i];
    }
    return last + 1;
  };
  const int64_t n = std::max(extent(input.sizes, input.strides, input.offset),
                             extent(sizes, strides, offset));
  Tensor positions =
      arange(n, kInt64).as_strided(sizes, strides, offset).contiguous().view({-1});
  Tensor flat = zeros({n}, TensorOptions(grad.dtype()).device(grad.device()));
  flat = flat.scatter_add(0, positions, grad.contiguous().view({-1}));
  return flat.as_strided(input.sizes, input.strides, input.offset);
}

tensor_list AsStridedBackward0::apply(tensor_list&& grads) {
  if (!grads[0].defined()) return {Tensor()};
  return {as_strided_backward(grads[0], input_, view_.sizes, view_.strides, view_.offset)};
}

CopySlices::CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn)
    : base_(base), view_(view), dtype_(base.dtype()), fn_(std::move(fn)) {
  add_input_metadata(base);
  add_next_edge(gradient_edge(base));
  for (uint32_t i = 1; i < fn_->num_outputs(); ++i) add_next_edge(fn_->next_edge(i));
}

tensor_list CopySlices::apply(tensor_list&& grads) {
  tensor_list out(num_outputs());
  if (!grads[0].defined()) return out;
  // The base's gradient, with the view's elements replaced by fn's gradient w.r.t. the view
  // before the write.
  Tensor result = new_empty_strided(grads[0], base_.sizes, base_.strides);
  result.copy_(grads[0]);
  Tensor grad_slice = result.as_strided(view_.sizes, view_.strides,
                                        view_.offset - base_.offset + result.storage_offset());
  // As PyTorch: the running backward did not walk into fn_ (it is not an edge of the graph), so
  // fn_'s edge 0 — the view's history before the write, which fn_ asks about through needs(0)
  // — joins the set that runs. Only edge 0: fn_'s other edges are CopySlices' own, already
  // decided; marking them would make a grad() accumulate into leaves it was not asked about.
  if (const Edge& view_edge = fn_->next_edge(0); view_edge.is_valid()) {
    add_to_current_exec_info(view_edge.function.get());
  }
  tensor_list res = (*fn_).apply(tensor_list{grad_slice.clone()});
  for (size_t i = 0; i < res.size() && i < out.size(); ++i) {
    if (!should_compute_output(i)) continue;
    if (i == 0) {
      if (res[0].defined()) {
        grad_slice.copy_(res[0]);
      } else {
        grad_slice.zero_();
      }
      out[0] = result;
    } else {
      out[i] = std::move(res[i]);
    }
  }
  return out;
}

// ---- once_differentiable ----

DelayedError::DelayedError(std::string msg, size_t num_inputs) : msg_(std::move(msg)) {
  for (size_t i = 0; i < num_inputs; ++i) add_input_metadata(InputMetadata{});
}

tensor_list DelayedError::apply(tensor_list&&) { EMBER_FAIL(msg_); }

}  // namespace ember::autograd
