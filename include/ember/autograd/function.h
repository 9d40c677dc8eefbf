// User-defined autograd Functions in C++ (torch::autograd::Function, PyTorch's "Extending
// torch.autograd").
//
//   struct LinearFunction : ember::autograd::Function<LinearFunction> {
//     static Tensor forward(AutogradContext* ctx, Tensor input, Tensor weight, Tensor bias) {
//       ctx->save_for_backward({input, weight, bias});
//       return input.mm(weight.t()) + bias;
//     }
//     static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
//       auto saved = ctx->get_saved_variables();
//       ...
//       return {grad_input, grad_weight, grad_bias};   // one per forward argument
//     }
//   };
//   Tensor y = LinearFunction::apply(x, w, b);          // y.grad_fn()->name() == "LinearFunctionBackward"
//
// The new-style split is also accepted: `static Tensor forward(Args...)` without a context, plus
// `static void setup_context(AutogradContext* ctx, const auto& inputs, const Tensor& output)`,
// where `inputs` is a tuple of references to the arguments (`const auto& [x, w, b] = inputs;`).
//
// A Function may declare `static constexpr bool once_differentiable = true;`: its backward then
// runs without recording, and differentiating its gradients raises an error.
//
// Differences from libtorch, on purpose: needs_input_grad(i) counts every forward argument (as in
// Python), so its index is the same as backward's result index; grad_fn names are
// "<Name>Backward" (as Python names them) rather than "torch::autograd::CppNode<Name>".
#pragma once

#include <cxxabi.h>

#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ember/autograd/node.h"
#include "ember/autograd/saved_variable.h"
#include "ember/grad_mode.h"
#include "ember/value.h"

namespace ember::autograd {

class FunctionNodeBase;

/// The `ctx` of a user Function: what forward keeps for backward.
class AutogradContext {
 public:
  AutogradContext() = default;
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

  /// Non-tensor values for backward (`ctx->saved_data["mul"] = 2.0;`).
  std::unordered_map<std::string, Value> saved_data;

  /// Tensors for backward; checked on use against in-place modification. The last call wins.
  void save_for_backward(tensor_list to_save);
  /// The saved tensors (errors if one was modified in place since, or the graph was freed).
  tensor_list get_saved_variables() const;
  /// Inputs that forward modified in place (their history is rebased on this node).
  void mark_dirty(const tensor_list& inputs);
  /// Outputs that are not differentiable (e.g. indices): they do not require grad, and their
  /// gradient reaches backward as zeros.
  void mark_non_differentiable(const tensor_list& outputs);
  /// false: gradients of outputs that received none reach backward undefined instead of zeros.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  /// Whether forward argument `i` (counting every argument) is a tensor that needs a gradient.
  bool needs_input_grad(size_t i) const;

 private:
  friend class FunctionNodeBase;
  tensor_list to_save_;
  std::vector<SavedVariable> saved_;
  std::unordered_set<const TensorImpl*> dirty_;
  std::unordered_set<const TensorImpl*> non_differentiable_;
  bool materialize_grads_ = true;
  bool saved_released_ = false;
  std::weak_ptr<Node> node_;
  std::vector<int> arg_to_edge_;  // forward argument -> next-edge index (-1: not a tensor)
};

/// The node of one call of a user Function (shared, non-template part).
class FunctionNodeBase : public Node {
 public:
  explicit FunctionNodeBase(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  tensor_list apply(tensor_list&& grads) final;
  void release_variables() override;
  AutogradContext ctx;

  // ---- used by Function<T>::apply ----
  /// Records which arguments are tensors; returns their tensors (undefined for absent optionals).
  void set_inputs(std::vector<bool> is_tensor_arg, const tensor_list& tensors, bool executable);
  /// Wraps forward's outputs: history, dirty inputs, views of inputs, non-differentiable outputs.
  tensor_list wrap_outputs(const tensor_list& inputs, tensor_list outputs, bool executable);
  void save_variables(const tensor_list& outputs);

 protected:
  virtual tensor_list call_backward(tensor_list grads) = 0;
  virtual bool once_differentiable() const = 0;

 private:
  std::string name_;
  std::vector<bool> is_tensor_arg_;
  std::mutex mutex_;
};

namespace detail {
std::string demangled_short_name(const char* mangled);

inline void collect(std::vector<bool>& is_tensor, tensor_list& tensors, const Tensor& t) {
  is_tensor.push_back(true);
  tensors.push_back(t);
}
inline void collect(std::vector<bool>& is_tensor, tensor_list& tensors,
                    const std::optional<Tensor>& t) {
  is_tensor.push_back(t.has_value());
  if (t) tensors.push_back(*t);
}
template <class T>
void collect(std::vector<bool>& is_tensor, tensor_list&, const T&) {
  is_tensor.push_back(false);  // non-tensor arguments (containers are not traversed, as libtorch)
}

inline tensor_list as_list(const Tensor& t) { return {t}; }
inline tensor_list as_list(const tensor_list& ts) { return ts; }
inline void from_list(const tensor_list& ts, Tensor& out) { out = ts[0]; }
inline void from_list(const tensor_list& ts, tensor_list& out) { out = ts; }

template <class T, class... Args>
concept CombinedForward = requires(AutogradContext* ctx, Args&&... args) {
  T::forward(ctx, std::forward<Args>(args)...);
};
template <class T>
concept OnceDifferentiable = requires { requires T::once_differentiable; };
}  // namespace detail

template <class T>
class FunctionNode final : public FunctionNodeBase {
 public:
  FunctionNode() : FunctionNodeBase(detail::demangled_short_name(typeid(T).name()) + "Backward") {}

 protected:
  tensor_list call_backward(tensor_list grads) override { return T::backward(&ctx, std::move(grads)); }
  bool once_differentiable() const override { return detail::OnceDifferentiable<T>; }
};

template <class T>
struct Function {
  /// Runs T's forward without recording and, if grad mode is on and an input requires grad,
  /// makes its outputs' history one FunctionNode<T> whose backward is T::backward.
  template <class... Args>
  static auto apply(Args&&... args) {
    auto node = std::make_shared<FunctionNode<T>>();
    std::vector<bool> is_tensor;
    tensor_list inputs;
    (detail::collect(is_tensor, inputs, args), ...);
    bool any_requires_grad = false;
    for (const auto& t : inputs) any_requires_grad |= t.defined() && t.requires_grad();
    const bool executable = GradMode::is_enabled() && any_requires_grad;
    node->set_inputs(std::move(is_tensor), inputs, executable);

    using Out = decltype(forward_of(node->ctx, std::forward<Args>(args)...));
    Out out;
    {
      AutoGradMode no_grad(false);
      if constexpr (detail::CombinedForward<T, Args...>) {
        out = T::forward(&node->ctx, std::forward<Args>(args)...);
      } else {
        out = T::forward(args...);
        T::setup_context(&node->ctx, std::forward_as_tuple(args...), out);
      }
    }
    tensor_list wrapped = node->wrap_outputs(inputs, detail::as_list(out), executable);
    if (executable) node->save_variables(wrapped);
    Out result;
    detail::from_list(wrapped, result);
    return result;
  }

 private:
  template <class... Args>
  static auto forward_of(AutogradContext& ctx, Args&&... args) {
    if constexpr (detail::CombinedForward<T, Args...>) {
      return T::forward(&ctx, std::forward<Args>(args)...);
    } else {
      return T::forward(std::forward<Args>(args)...);
    }
  }
};

}  // namespace ember::autograd
