// The autograd graph: Nodes (one per recorded op call, plus AccumulateGrad per leaf) joined by
// Edges. Edges point backwards, from a node to the nodes that produced its forward inputs.
//
// Naming follows PyTorch: a node's *inputs* are the gradients of its forward outputs (it has one
// input per forward output: num_inputs()), its *outputs* are the gradients of its forward inputs
// (one per next edge: num_outputs()).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember::autograd {

class Node;
using tensor_list = std::vector<Tensor>;

/// Where a gradient goes: input `input_nr` of `function`. An invalid edge (no function) means
/// the corresponding forward input needs no gradient.
struct Edge {
  Edge() = default;
  Edge(std::shared_ptr<Node> fn, uint32_t nr) : function(std::move(fn)), input_nr(nr) {}
  bool is_valid() const { return function != nullptr; }
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
};
using edge_list = std::vector<Edge>;

/// What a gradient flowing into a node's input must look like (the forward output's shape,
/// dtype and device). The engine reduces broadcast gradients to this shape and casts dtypes.
struct InputMetadata {
  DimVector shape;
  ScalarType dtype = ScalarType::Float32;
  Device device = kCPU;
};

/// Hook types. A tensor pre-hook sees the gradient of one forward output and may replace it
/// (return an undefined Tensor to keep it). A pre-hook sees all of a node's incoming gradients;
/// a post-hook sees (grad_inputs, grad_outputs) — in PyTorch's hook terms — after the node ran.
/// Pre- and post-hooks may return a replacement list (empty: keep).
using TensorPreHook = std::function<Tensor(const Tensor& grad)>;
using NodePreHook = std::function<tensor_list(const tensor_list& grad_outputs)>;
using NodePostHook =
    std::function<tensor_list(const tensor_list& grad_inputs, const tensor_list& grad_outputs)>;

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  explicit Node(edge_list next_edges);
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// The gradient formula: gradients of the forward outputs in, of the forward inputs out.
  virtual tensor_list apply(tensor_list&& grads) = 0;
  /// PyTorch's name for the node's class: "MulBackward0", "AccumulateGrad", "<Fn>Backward".
  virtual std::string name() const = 0;
  /// Frees saved tensors (after a backward without retain_graph).
  virtual void release_variables() {}

  // ---- edges and metadata ----
  const edge_list& next_edges() const { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  void set_next_edges(edge_list edges) { next_edges_ = std::move(edges); }
  void add_next_edge(Edge e) { next_edges_.push_back(std::move(e)); }
  uint32_t num_outputs() const { return static_cast<uint32_t>(next_edges_.size()); }
  uint32_t num_inputs() const { return static_cast<uint32_t>(input_metadata_.size()); }
  /// Records a forward output; returns its input_nr.
  uint32_t add_input_metadata(const Tensor& t);
  uint32_t add_input_metadata(InputMetadata m);
  const InputMetadata& input_metadata(size_t i) const { return input_metadata_[i]; }
  /// Creation order; the engine runs later nodes first among those that are ready.
  uint64_t sequence_nr() const { return sequence_nr_; }
  /// Where the forward that made this node ran, recorded in anomaly mode (Note [Anomaly mode]);
  /// null when the node was made with anomaly mode off, empty when no trace was available.
  const std::shared_ptr<const std::string>& forward_trace() const { return forward_trace_; }

  /// Whether output `i` (the gradient of forward input i) is wanted by the running backward:
  /// its edge is valid and, for autograd::grad / backward(inputs=...), leads to a requested input.
  bool should_compute_output(size_t i) const;

  // ---- hooks ----
  void add_tensor_pre_hook(uint32_t input_nr, TensorPreHook hook, unsigned id);
  bool remove_tensor_pre_hook(unsigned id);
  /// The retain_grad hook of input `input_nr` (at most one; runs after the other tensor hooks).
  void set_retains_grad_hook(uint32_t input_nr, std::function<void(const Tensor&)> hook);
  unsigned register_prehook(NodePreHook hook);
  unsigned register_hook(NodePostHook hook);
  bool remove_hook(unsigned id);

  struct TensorHookEntry {
    uint32_t input_nr;
    unsigned id;
    TensorPreHook fn;
  };
  const std::vector<TensorHookEntry>& tensor_pre_hooks() const { return tensor_pre_hooks_; }
  const std::vector<std::pair<uint32_t, std::function<void(const Tensor&)>>>& retains_grad_hooks()
      const {
    return retains_grad_hooks_;
  }
  const std::vector<std::pair<unsigned, NodePreHook>>& pre_hooks() const { return pre_hooks_; }
  const std::vector<std::pair<unsigned, NodePostHook>>& post_hooks() const { return post_hooks_; }

 protected:
  edge_list next_edges_;
  std::vector<InputMetadata> input_metadata_;

 private:
  uint64_t sequence_nr_;
  std::shared_ptr<const std::string> forward_trace_;
  std::vector<TensorHookEntry> tensor_pre_hooks_;
  std::vector<std::pair<uint32_t, std::function<void(const Tensor&)>>> retains_grad_hooks_;
  std::vector<std::pair<unsigned, NodePreHook>> pre_hooks_;
  std::vector<std::pair<unsigned, NodePostHook>> post_hooks_;
};

/// A fresh id for a hook (unique in the process; used to remove it).
unsigned next_hook_id();

/// The gradient edge of `t`: (grad_fn, output_nr) for a tensor with history, (its
/// AccumulateGrad, 0) for a leaf that requires grad, invalid otherwise.
Edge gradient_edge(const Tensor& t);
/// gradient_edge of each tensor (undefined tensors give invalid edges).
edge_list collect_next_edges(ArrayRef<Tensor> ts);

}  // namespace ember::autograd
