// How an op family records its backward rule (internal; see docs/adding-an-op.md).
//
// Each differentiable op has an autograd kernel next to its forward, registered in the op's
// Autograd slot. It runs the forward below autograd and, when the call must be recorded, saves
// what the rule needs and attaches an OpNode to the outputs:
//
//   // d(self * other) = grad * other, grad * self
//   Tensor mul_autograd(const Tensor& self, const Tensor& other) {
//     autograd::Recorder r("MulBackward0", self, other);
//     Tensor out = r.forward([&] { return mul(self, other); });
//     if (!r) return out;
//     auto other_ = r.save_if(r.needs(0), other, "other"), self_ = r.save_if(r.needs(1), self, "self");
//     return r.finish(out, [=](autograd::OpNode& n, const autograd::tensor_list& g) {
//       return autograd::tensor_list{n.needs(0) ? g[0] * n.saved(other_) : Tensor(),
//                                    n.needs(1) ? g[0] * n.saved(self_) : Tensor()};
//     });
//   }
//   EMBER_REGISTER_AUTOGRAD(mul_Tensor, &mul_autograd);
//
// What a node saves carries PyTorch's names (grad_fn._saved_other in Python): tensors by the
// name given to save / save_if / save_output, non-tensor values through r.values("dim", dim, ...)
// and read back in the rule with n.value(i) (Note [Saved values of built-in nodes]).
//
// Rules are written with Tensor ops, so with create_graph they are recorded too (double
// backward). A rule may return gradients of a broadcast shape or another floating dtype: the
// engine reduces and casts them to the input's (Note [Validating gradients] in engine.cpp).
#pragma once

#include <algorithm>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../dispatch/dispatcher.h"
#include "autograd_meta.h"
#include "ember/grad_mode.h"
#include "ember/autograd/saved_variable.h"
#include "ember/value.h"

namespace ember::autograd {

/// Note [Saved values of built-in nodes]
/// What a node saved is visible from Python as PyTorch shows it: `grad_fn._saved_self` (a saved
/// tensor), `_saved_result` (a saved output), `_saved_exponent` (a non-tensor value), and
/// `_raw_saved_self` (the SavedVariable itself, for per-tensor saved-tensor hooks). The names
/// are those of PyTorch's derivatives.yaml (its argument names, `result` / `result0`... for
/// outputs, `<arg>_sym_sizes` etc. where it saves geometry) and are static strings: naming costs
/// nothing per call. A node keeps each value once: a rule reads its non-tensor values from the
/// node (`n.value(i)`) instead of capturing copies: the node's one vector of values stands in
/// for the closure's copies (bench_autograd unchanged). An unnamed saved tensor is not shown.
class OpNode final : public Node {
 public:
  using Formula = std::function<tensor_list(OpNode& node, const tensor_list& grads)>;
  /// A saved tensor and its attribute name (`_saved_<name>`; null: not shown). Consecutive
  /// slots flagged `in_list` with one name form a tuple (PyTorch's saved tensor lists).
  struct SavedSlot {
    SavedVariable var;
    const char* name = nullptr;
    bool in_list = false;
  };
  /// A non-tensor value PyTorch's node saves. `scalar`: a Scalar (Python ints come back signed;
  /// other int64 values come back as torch 1.13 prints them, as unsigned 64-bit numbers).
  struct NamedValue {
    const char* name;
    Value value;
    bool scalar = false;
  };
  explicit OpNode(const char* name) : name_(name) {}

  std::string name() const override { return name_; }
  tensor_list apply(tensor_list&& grads) override;
  void release_variables() override;

  /// Whether gradient `i` (of forward input i) is wanted by the running backward.
  bool needs(size_t i) const { return should_compute_output(i); }
  /// A saved tensor, checked against in-place modification since it was saved.
  Tensor saved(size_t slot) { return saved_[slot].var.unpack(shared_from_this()); }
  /// Non-tensor value `i`, in the order recorded (Recorder::values).
  const Value& value(size_t i) const { return values_[i].value; }

  size_t add_saved(SavedVariable v, const char* name = nullptr, bool in_list = false) {
    saved_.push_back(SavedSlot{std::move(v), name, in_list});
    return saved_.size() - 1;
  }
  void reserve_values(size_t n) { values_.reserve(values_.size() + n); }
  size_t add_value(const char* name, Value v, bool scalar) {
    values_.push_back(NamedValue{name, std::move(v), scalar});
    return values_.size() - 1;
  }
  std::vector<SavedSlot>& saved_slots() { return saved_; }
  const std::vector<NamedValue>& values() const { return values_; }

  /// Output `i` is not differentiable (it never gets a gradient): apply leaves its gradient
  /// undefined instead of zeros, so backward allocates nothing for it (a dispatch mode sees
  /// no zeros PyTorch does not make).
  void set_nondifferentiable(size_t i) {
    nondiff_.resize(std::max(nondiff_.size(), i + 1));
    nondiff_[i] = true;
  }
  bool nondifferentiable(size_t i) const { return i < nondiff_.size() && nondiff_[i]; }
  Formula formula;

 private:
  const char* name_;
  std::vector<SavedSlot> saved_;
  std::vector<NamedValue> values_;
  std::vector<bool> nondiff_;
};

inline bool requires_grad_of(const Tensor& t) { return t.defined() && t.requires_grad(); }
inline bool requires_grad_of(const std::optional<Tensor>& t) { return t && requires_grad_of(*t); }
inline bool requires_grad_of(ArrayRef<Tensor> ts) {
  for (const auto& t : ts)
    if (requires_grad_of(t)) return true;
  return false;
}
inline bool requires_grad_of(const std::vector<Tensor>& ts) {
  return requires_grad_of(ArrayRef<Tensor>(ts));
}

inline void append_edges(edge_list& out, const Tensor& t) {
  out.push_back(t.defined() ? gradient_edge(t) : Edge());
}
inline void append_edges(edge_list& out, const std::optional<Tensor>& t) {
  out.push_back(t ? gradient_edge(*t) : Edge());
}
inline void append_edges(edge_list& out, ArrayRef<Tensor> ts) {
  for (const auto& t : ts) append_edges(out, t);
}
inline void append_edges(edge_list& out, const std::vector<Tensor>& ts) {
  append_edges(out, ArrayRef<Tensor>(ts));
}

/// Records one call of a built-in op (see the comment at the top of this file). The node's
/// outputs (gradients) are the Tensor inputs in the order given, a list counting one per element.
class Recorder {
 public:
  template <class... Ts>
  explicit Recorder(const char* name, const Ts&... inputs) {
    if (!GradMode::is_enabled() || !(requires_grad_of(inputs) || ...)) return;
    node_ = std::make_shared<OpNode>(name);
    edge_list edges;
    (append_edges(edges, inputs), ...);
    node_->set_next_edges(std::move(edges));
  }

  explicit operator bool() const { return node_ != nullptr; }
  /// Whether forward input `i` requires grad (its gradient edge is valid).
  bool needs(size_t i) const { return node_->next_edge(i).is_valid(); }
  bool needs_any() const {
    for (const auto& e : node_->next_edges())
      if (e.is_valid()) return true;
    return false;
  }

  /// Runs the forward below autograd.
  template <class F>
  auto forward(F&& f) {
    dispatch::AutoDispatchBelowAutograd below;
    return f();
  }

  /// Saves an input (or any tensor that is not an output of this node), as `_saved_<name>`
  /// (Note [Saved values of built-in nodes]; no name: not shown).
  size_t save(const Tensor& t, const char* name = nullptr) {
    return node_->add_saved(SavedVariable(t, false), name);
  }
  size_t save_if(bool cond, const Tensor& t, const char* name = nullptr) {
    return node_->add_saved(cond ? SavedVariable(t, false) : SavedVariable(), name);
  }
  size_t save_if(bool cond, const std::optional<Tensor>& t, const char* name = nullptr) {
    return node_->add_saved(cond && t ? SavedVariable(*t, false) : SavedVariable(), name);
  }
  /// Saves a list of tensors as one tuple attribute; returns the first slot (one per element,
  /// undefined ones as None).
  size_t save_list(bool cond, ArrayRef<Tensor> ts, const char* name) {
    const size_t first = node_->saved_slots().size();
    for (const auto& t : ts) node_->add_saved(cond ? SavedVariable(t, false) : SavedVariable(), name, true);
    return first;
  }
  size_t save_list(bool cond, const std::vector<std::optional<Tensor>>& ts, const char* name) {
    const size_t first = node_->saved_slots().size();
    for (const auto& t : ts)
      node_->add_saved(cond && t ? SavedVariable(*t, false) : SavedVariable(), name, true);
    return first;
  }
  /// Saves an output of this node; call after finish.
  size_t save_output(const Tensor& t, const char* name = nullptr) {
    return node_->add_saved(SavedVariable(t, true), name);
  }

  /// Records the node's non-tensor values, as pairs: values("dim", dim, "keepdim", keepdim).
  /// Returns the index of the first (the rule reads them with `n.value(i)`).
  template <class... Args>
  size_t values(Args&&... name_value_pairs) {
    static_assert(sizeof...(Args) % 2 == 0, "values() takes name, value pairs");
    const size_t first = node_->values().size();
    node_->reserve_values(sizeof...(Args) / 2);
    add_values(std::forward<Args>(name_value_pairs)...);
    return first;
  }

  OpNode& node() { return *node_; }
  const std::shared_ptr<OpNode>& node_ptr() const { return node_; }

  /// Attaches the node to the outputs (differentiable ones: floating point) and returns them.
  Tensor finish(const Tensor& out, OpNode::Formula f) {
    node_->formula = std::move(f);
    attach(out);
    return out;
  }
  std::tuple<Tensor, Tensor> finish(std::tuple<Tensor, Tensor> outs, OpNode::Formula f) {
    node_->formula = std::move(f);
    attach(std::get<0>(outs));
    attach(std::get<1>(outs));
    return outs;
  }
  std::vector<Tensor> finish(std::vector<Tensor> outs, OpNode::Formula f) {
    node_->formula = std::move(f);
    for (const auto& o : outs) attach(o);
    return outs;
  }
  /// Only the outputs marked differentiable get the node as grad_fn (PyTorch's
  /// output_differentiability: native_batch_norm's saved mean and invstd have none); the others
  /// still count as outputs of the node.
  std::vector<Tensor> finish(std::vector<Tensor> outs, OpNode::Formula f,
                             const std::vector<bool>& differentiable) {
    node_->formula = std::move(f);
    for (size_t i = 0; i < outs.size(); ++i) {
      if (differentiable[i]) {
        attach(outs[i]);
      } else {
        node_->set_nondifferentiable(node_->add_input_metadata(outs[i]));
      }
    }
    return outs;
  }
  /// For in-place ops: `self` (already written) takes the node as its new history
  /// (rebase_history: through CopySlices when self is a view).
  void finish_inplace(const Tensor& self, OpNode::Formula f) {
    node_->formula = std::move(f);
    node_->add_input_metadata(self);
    rebase_history(self, node_);
  }

 private:
  void attach(const Tensor& out) {
    const uint32_t nr = node_->add_input_metadata(out);
    if (out.defined() && (is_floating(out.dtype()) || is_complex(out.dtype()))) set_history(out, node_, nr);
  }
  void add_values() {}
  template <class V, class... Rest>
  void add_values(const char* name, V&& v, Rest&&... rest) {
    using D = std::decay_t<V>;
    constexpr bool scalar = std::is_same_v<D, Scalar> || std::is_same_v<D, std::optional<Scalar>>;
    node_->add_value(name, Value(std::forward<V>(v)), scalar);
    add_values(std::forward<Rest>(rest)...);
  }
  std::shared_ptr<OpNode> node_;
};

/// For the autograd kernels of in-place ops: checks `self` may be written (only when the call
/// records; call after constructing the Recorder).
inline void check_inplace_if(const Recorder& r, const Tensor& self) {
  if (r) check_inplace(self);
}

/// Un-broadcasting: sums `grad` down to `shape` (the one place autograd does it).
Tensor sum_to(const Tensor& grad, IntArrayRef shape);

}  // namespace ember::autograd

/// Registers the autograd kernel of op `id` (in an op family's file, next to its frontend).
#define EMBER_REGISTER_AUTOGRAD(id, fn)                                                     \
  static const bool EMBER_AUTOGRAD_CONCAT(ember_autograd_registered_, __LINE__) = [] {       \
    ::ember::dispatch::register_autograd(::ember::dispatch::OpId::id, fn);                   \
    return true;                                                                             \
  }()
#define EMBER_AUTOGRAD_CONCAT_(a, b) a##b
#define EMBER_AUTOGRAD_CONCAT(a, b) EMBER_AUTOGRAD_CONCAT_(a, b)
