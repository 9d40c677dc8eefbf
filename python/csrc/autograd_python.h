// What the autograd files of ember._C share (autograd.cpp, python_node.cpp,
// python_function.cpp): Python objects for graph nodes, Python callables held by C++ autograd
// state (hooks, nodes), and hook handles.
#pragma once

#include <functional>
#include <memory>

#include "common.h"
#include "ember/autograd/node.h"
#include "ember/autograd/saved_tensor_hooks.h"

namespace ember::python {

/// A Python object owned by C++ autograd state (a hook inside a node, a node's ctx). Nodes and
/// hooks may be destroyed wherever the last tensor of a graph dies, so the reference is dropped
/// under the GIL, whoever drops it.
class GilRef {
 public:
  GilRef() = default;
  explicit GilRef(py::object obj);
  const py::object& get() const { return *ref_; }
  /// The object, or null (for GC traversal).
  PyObject* ptr() const { return ref_ ? ref_->ptr() : nullptr; }
  explicit operator bool() const { return ref_ != nullptr; }

 private:
  std::shared_ptr<py::object> ref_;
};

/// The Python object of a graph node (Tensor.grad_fn, next_functions): the ctx object for a
/// Python Function's node; for any other node one object of the class named after it
/// (MulBackward0, AccumulateGrad), the same object while it lives. None for null.
py::object node_to_py(const std::shared_ptr<autograd::Node>& node);

/// The ctx object of a Python Function's node, or null for any other node (python_function.cpp).
PyObject* function_node_object(const autograd::Node* node);

/// The node protocol shared by both kinds of node objects (python_node.cpp).
py::tuple next_functions_of(const autograd::Node& node);
py::object register_node_hook(const std::shared_ptr<autograd::Node>& node, py::object fn);
py::object register_node_prehook(const std::shared_ptr<autograd::Node>& node, py::object fn);

/// A RemovableHandle: `.remove()` (idempotent), `.id`, and use as a context manager.
py::object make_handle(unsigned id, std::function<void()> remove);

/// "hook 'name' has changed the size of value" etc.: what a hook may return in place of `grad`.
/// Returns the replacement (undefined: keep `grad`).
Tensor check_hook_result(const py::object& hook, const Tensor& grad, const py::object& result);

// ---- Python hooks held by C++ autograd state, and the cyclic GC ----
// Note [Reference cycles through autograd]
// A Python hook held by C++ (a tensor hook, a node hook) or a Python Function's ctx owned by its
// node can reference the tensor whose impl owns it: `t.register_hook(lambda g: g * t)`,
// `y.grad_fn.register_hook(lambda *a: y)`, `ctx.out = y`. The Python object owns the impl, the
// impl's autograd state owns the hook, the hook references the object: a cycle through C++.
// As PyTorch's THPVariable_subclass_traverse, a tensor object that is the only owner of its impl
// reports to the cyclic GC the Python objects that the impl's autograd state owns: its leaf
// hooks and post-accumulate hooks, and, when its grad_fn is owned by nothing else, that node's
// hooks, metadata dict and ctx. The hooks are named functors (PyTensorHook, ...) so the
// traversal can find the Python callable inside a std::function. The GC then breaks the cycle
// by clearing the Python side (the closure, the ctx's __dict__), and the impl is freed by
// reference counting. A tensor shared with C++ (a parameter, a saved tensor) reports nothing:
// C++ is an external root, as before.

/// A tensor hook (Tensor.register_hook) calling a Python callable.
struct PyTensorHook {
  GilRef hook;
  Tensor operator()(const Tensor& grad) const;
};
/// A tensor's Python hooks in one dict (Tensor._backward_hooks), run in order as one hook
/// (names8.cpp, Note [Tensor._backward_hooks]).
struct PyTensorHookDict {
  GilRef dict;
  Tensor operator()(const Tensor& grad) const;
};
/// A post-accumulate-grad hook calling a Python callable.
struct PyPostAccumulateHook {
  GilRef hook;
  void operator()(const Tensor& leaf) const;
};
/// Visits the Python objects `t`'s autograd state owns (see the Note); call only for a tensor
/// whose Python object is the sole owner of its impl. Returns the first nonzero visit result.
int traverse_autograd_state(const Tensor& t, visitproc visit, void* arg);

/// A pack / unpack pair of Python callables as saved-tensor hooks (saved_tensor_hooks.cpp): what
/// `saved_tensors_hooks` pushes and `_raw_saved_*.register_hooks` gives one saved tensor.
std::shared_ptr<autograd::SavedTensorHooks> make_python_saved_tensor_hooks(py::object pack,
                                                                           py::object unpack);

void init_python_node(py::module_& m);
void init_python_function(py::module_& m);

}  // namespace ember::python
