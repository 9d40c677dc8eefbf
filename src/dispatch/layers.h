// Reaching one dispatch layer directly, and the thread's function-mode stack (internal).
// What PyTorch does outside its op calls but its override layers still see: the detach of
// shallow_copy_and_detach (Note [Detach through the dispatch layer] in dispatcher.cpp), and
// Python's TorchFunctionMode stack, which is the dispatcher's (Note [TorchFunctionMode across
// C++] in python/csrc/torch_function.cpp).
#pragma once

#include <optional>

#include "dispatcher.h"

namespace ember::dispatch {

/// Calls `f` on each defined tensor of boxed arguments (also inside Tensor[] and Tensor?[]
/// lists), in argument order.
template <class F>
void for_each_tensor(const Stack& args, F&& f) {
  for (const auto& v : args) {
    if (v.is_tensor()) {
      if (v.to_tensor().defined()) f(v.to_tensor());
    } else if (v.is_tensor_list()) {
      for (const auto& t : v.to_tensor_list())
        if (t.defined()) f(t);
    } else if (v.is_optional_tensor_list()) {
      for (const auto& t : v.to_optional_tensor_list())
        if (t && t->defined()) f(*t);
    }
  }
}

/// Hands the call of `op` (boxed, defaults filled) to the torch_dispatch layer alone, as
/// PyTorch's Python key does for calls it makes below autograd: the innermost dispatch mode,
/// else the subclasses with torch_dispatch among the arguments. nullopt when that layer does
/// not apply to the arguments on this thread (no handler, or it is excluded) or all declined.
std::optional<Stack> call_dispatch_layer(OpId op, const Stack& args);

/// `t` detached as PyTorch's shallow_copy_and_detach does for a tensor with the Python key or
/// under a dispatch mode: aten::detach handed to the dispatch layer (call_dispatch_layer).
/// Undefined when that layer does not apply: the caller then detaches in C++ without a trace.
Tensor detach_through_dispatch_layer(const Tensor& t);

// ---- the thread's function-mode stack (innermost last) ----
// FunctionModeGuard pushes and pops it in scope order; the dispatcher pops the innermost mode
// while its handler runs.
size_t function_mode_count();
FunctionMode* function_mode_at(size_t i);
void push_function_mode(intrusive_ptr<FunctionMode> mode);
intrusive_ptr<FunctionMode> pop_function_mode();

/// The thread's dispatch-mode stack, as the dispatcher sees it now (the running handler's mode
/// is off it), for Python's _len_torch_dispatch_stack / _get_dispatch_stack_at.
size_t dispatch_mode_count();
DispatchMode* dispatch_mode_at(size_t i);

}  // namespace ember::dispatch
