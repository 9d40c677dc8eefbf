// Hooks for saved tensors (torch.autograd.graph.saved_tensors_hooks): what the graph keeps of a
// tensor an op saves for its backward, and how it gets the tensor back.
//
// Note [Saved tensor hooks]
// While a pair of hooks is pushed on a thread, every tensor an op (or a custom Function's
// save_for_backward) saves on that thread is handed to `pack`, and the graph keeps only what pack
// returned; the backward (and every read of a saved tensor, such as grad_fn._saved_self) calls
// `unpack` on it for a tensor with the same contents. This trades memory for work: keep a
// compressed or offloaded copy, or nothing at all and recompute. As in PyTorch:
// - the innermost pair applies; pairs are per thread;
// - pack runs without grad recording and must not modify its input in place (checked);
// - pack sees the saved tensor itself (an output with its grad_fn); unpack's tensor comes back
//   with that history re-attached, so double backward still works;
// - a packed tensor is not checked for in-place changes made after it was saved (what pack
//   returned is what counts);
// - wrapped Python scalars are not packed;
// - while DisableSavedTensorsHooksGuard is alive, pushing a pair raises its message, and making
//   one while a pair is pushed raises it too (PyTorch's invariant: disabled means none pushed).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "ember/tensor.h"

namespace ember::autograd {

/// One pack / unpack pair. `pack` returns whatever stands in for the tensor (shared, type-erased;
/// its deleter runs when the graph is freed), `unpack` turns it back into a tensor.
class SavedTensorHooks {
 public:
  virtual ~SavedTensorHooks() = default;
  virtual std::shared_ptr<void> pack(const Tensor& t) = 0;
  virtual Tensor unpack(const std::shared_ptr<void>& packed) = 0;
};

/// The innermost pair of the calling thread, or null.
std::shared_ptr<SavedTensorHooks> current_saved_tensor_hooks();
/// Pushes / pops a pair on the calling thread. Pushing raises the DisableSavedTensorsHooksGuard
/// message while one is alive.
void push_saved_tensor_hooks(std::shared_ptr<SavedTensorHooks> hooks);
void pop_saved_tensor_hooks();

namespace detail {
template <class Pack, class Unpack>
class CallableSavedTensorHooks final : public SavedTensorHooks {
 public:
  using Packed = std::decay_t<std::invoke_result_t<Pack&, const Tensor&>>;
  CallableSavedTensorHooks(Pack pack, Unpack unpack) : pack_(std::move(pack)), unpack_(std::move(unpack)) {}
  std::shared_ptr<void> pack(const Tensor& t) override { return std::make_shared<Packed>(pack_(t)); }
  Tensor unpack(const std::shared_ptr<void>& packed) override {
    return unpack_(*static_cast<Packed*>(packed.get()));
  }

 private:
  Pack pack_;
  Unpack unpack_;
};
}  // namespace detail

/// Pushes a pair for its lifetime (C++'s `with saved_tensors_hooks(pack, unpack):`). `pack` maps
/// `const Tensor&` to any copyable value; `unpack` maps that value (as `const P&` or `P&`) to a
/// Tensor:
///
///   ember::autograd::SavedTensorsHooksGuard offload(
///       [](const ember::Tensor& t) { return t.to(ember::kBFloat16); },     // keep half the bytes
///       [](const ember::Tensor& packed) { return packed.to(ember::kFloat32); });
class SavedTensorsHooksGuard {
 public:
  explicit SavedTensorsHooksGuard(std::shared_ptr<SavedTensorHooks> hooks) {
    push_saved_tensor_hooks(std::move(hooks));
  }
  template <class Pack, class Unpack>
  SavedTensorsHooksGuard(Pack pack, Unpack unpack)
      : SavedTensorsHooksGuard(std::make_shared<detail::CallableSavedTensorHooks<Pack, Unpack>>(
            std::move(pack), std::move(unpack))) {}
  ~SavedTensorsHooksGuard() { pop_saved_tensor_hooks(); }
  SavedTensorsHooksGuard(const SavedTensorsHooksGuard&) = delete;
  SavedTensorsHooksGuard& operator=(const SavedTensorsHooksGuard&) = delete;
};

/// While alive, pushing hooks on this thread raises `message` (torch's
/// disable_saved_tensors_hooks); constructing one while a pair is pushed raises `message` too.
/// Nests: the previous state comes back on destruction.
class DisableSavedTensorsHooksGuard {
 public:
  explicit DisableSavedTensorsHooksGuard(std::string message);
  ~DisableSavedTensorsHooksGuard();
  DisableSavedTensorsHooksGuard(const DisableSavedTensorsHooksGuard&) = delete;
  DisableSavedTensorsHooksGuard& operator=(const DisableSavedTensorsHooksGuard&) = delete;

 private:
  std::optional<std::string> previous_;
};

/// The thread's disabling message, if pushing hooks is disabled.
std::optional<std::string> saved_tensors_hooks_disabled_message();
/// Disables pushing hooks on this thread with `message` (raised now if a pair is pushed), or
/// enables it again; what the guard above does, for callers that restore state themselves.
void disable_saved_tensors_hooks(std::string message);
void enable_saved_tensors_hooks();

}  // namespace ember::autograd
