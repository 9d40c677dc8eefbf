// The nodes the engine itself creates (internal): AccumulateGrad for leaves, GraphRoot for the
// starting gradients, CopySlices and AsStridedBackward0 for in-place writes through views, and
// the error node of once_differentiable backwards.
#pragma once

#include <mutex>

#include "autograd_meta.h"

namespace ember::autograd {

/// Accumulates the incoming gradient into a leaf's .grad (PyTorch's rules for stealing,
/// in-place and out-of-place accumulation), then runs its post-accumulate-grad hooks.
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  std::string name() const override { return "AccumulateGrad"; }
  tensor_list apply(tensor_list&& grads) override;
  const Tensor& variable() const { return variable_; }
  /// swap_tensors poisons the node of a swapped leaf (its metadata no longer matches).
  void poison() { poisoned_ = true; }

 private:
  Tensor variable_;
  bool poisoned_ = false;
};

/// The starting point of a backward: hands the root gradients to the roots.
class GraphRoot final : public Node {
 public:
  GraphRoot(edge_list roots, tensor_list grads) : Node(std::move(roots)), grads_(std::move(grads)) {}
  std::string name() const override { return "GraphRoot"; }
  tensor_list apply(tensor_list&&) override { return grads_; }

 private:
  tensor_list grads_;
};

/// Geometry of a tensor (sizes, strides, storage offset), kept without its data.
struct TensorGeometry {
  explicit TensorGeometry(const Tensor& t)
      : sizes(t.sizes().vec()), strides(t.strides().vec()), offset(t.storage_offset()) {}
  DimVector sizes, strides;
  int64_t offset;
};

/// The history a view's base takes when the view is written in place by `fn`: the incoming
/// gradient (of the base after the write) goes to the base's previous history everywhere but
/// the view's elements, where `fn`'s gradient of the view before the write goes instead.
class CopySlices final : public Node {
 public:
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn);
  std::string name() const override { return "CopySlices"; }
  tensor_list apply(tensor_list&& grads) override;
  void release_variables() override { fn_->release_variables(); }

 private:
  TensorGeometry base_, view_;
  ScalarType dtype_;
  std::shared_ptr<Node> fn_;
};

/// The gradient of `as_strided(sizes, strides, offset)` of a tensor with geometry `input`:
/// gradients of elements that share memory add up.
Tensor as_strided_backward(const Tensor& grad, const TensorGeometry& input, IntArrayRef sizes,
                           IntArrayRef strides, int64_t offset);

/// Raised when differentiating the output of a once_differentiable backward.
class DelayedError final : public Node {
 public:
  DelayedError(std::string msg, size_t num_inputs);
  std::string name() const override { return "DelayedError"; }
  tensor_list apply(tensor_list&&) override;

 private:
  std::string msg_;
};

}  // namespace ember::autograd

namespace ember::autograd {
/// A view's history re-derived from its base's (Note [Views and in-place writes]).
class AsStridedBackward0 final : public Node {
 public:
  AsStridedBackward0(TensorGeometry input, TensorGeometry view)
      : input_(std::move(input)), view_(std::move(view)) {}
  std::string name() const override { return "AsStridedBackward0"; }
  tensor_list apply(tensor_list&& grads) override;

 private:
  TensorGeometry input_, view_;
};
}  // namespace ember::autograd
