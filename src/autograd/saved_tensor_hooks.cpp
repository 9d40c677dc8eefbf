// The per-thread stack of saved-tensor hooks (Note [Saved tensor hooks]).
#include "ember/autograd/saved_tensor_hooks.h"

#include <vector>

#include "ember/error.h"

namespace ember::autograd {

namespace {
struct HooksState {
  std::vector<std::shared_ptr<SavedTensorHooks>> stack;
  std::optional<std::string> disabled_message;  // set: pushing raises it (the stack is empty)
};
thread_local HooksState state;
}  // namespace

std::shared_ptr<SavedTensorHooks> current_saved_tensor_hooks() {
  return state.stack.empty() ? nullptr : state.stack.back();
}

void push_saved_tensor_hooks(std::shared_ptr<SavedTensorHooks> hooks) {
  if (state.disabled_message) EMBER_FAIL(*state.disabled_message);
  EMBER_CHECK(hooks != nullptr, "push_saved_tensor_hooks: expected a pair of hooks, got null");
  state.stack.push_back(std::move(hooks));
}

void pop_saved_tensor_hooks() {
  EMBER_CHECK(!state.stack.empty(), "pop_saved_tensor_hooks: no saved tensor hooks are pushed");
  state.stack.pop_back();
}

std::optional<std::string> saved_tensors_hooks_disabled_message() { return state.disabled_message; }

void disable_saved_tensors_hooks(std::string message) {
  // PyTorch's invariant: while disabled, no pair is pushed.
  if (!state.stack.empty()) EMBER_FAIL(message);
  state.disabled_message = std::move(message);
}

void enable_saved_tensors_hooks() { state.disabled_message.reset(); }

DisableSavedTensorsHooksGuard::DisableSavedTensorsHooksGuard(std::string message)
    : previous_(state.disabled_message) {
  disable_saved_tensors_hooks(std::move(message));
}

DisableSavedTensorsHooksGuard::~DisableSavedTensorsHooksGuard() { state.disabled_message = previous_; }

}  // namespace ember::autograd
