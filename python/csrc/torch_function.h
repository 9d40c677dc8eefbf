// The __torch_function__ protocol at the Python boundary (extension-spec § 4): which arguments
// are overloaded, in which order, and handing a call to the Python-level dispatcher
// (ember.overrides installs it with _C._set_torch_function_handler).
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "common.h"
#include "ember/dispatch.h"

namespace ember::python {

/// Whether the thread's state lets any __torch_function__ run (not under DisableTorchFunction).
bool torch_function_enabled();
/// Whether a TorchFunctionMode is on this thread's stack.
bool torch_function_mode_active();
/// Whether `obj` qualifies as an overloaded argument: a tensor subclass whose
/// __torch_function__ is not _disabled_torch_function_impl (and subclasses are not disabled), or
/// a non-tensor whose type has __torch_function__. Exact ember.Tensor / Parameter: false, fast.
bool is_overloaded(PyObject* obj);
/// Adds `obj` (and, for a list or tuple, its elements) to `out` in NEP-18 order: one argument
/// per type, subclasses before their superclasses, else left to right.
void collect_overloaded(PyObject* obj, std::vector<PyObject*>& out);
/// Calls the Python dispatcher: handler(public_api, overloaded, args, kwargs) -> result.
/// Returns a new reference, or nullptr with a Python error set.
PyObject* dispatch_torch_function(PyObject* public_api, const std::vector<PyObject*>& overloaded,
                                  PyObject* args, PyObject* kwargs);

/// ember.overrides._run_mode_from_cpp(mode, public_api, overloaded, args, kwargs), installed at
/// import (Note [TorchFunctionMode across C++]).
extern PyObject* g_mode_handler;
/// Hands a call that C++ code made to the Python TorchFunctionMode `mode` (already popped by the
/// dispatcher); nullopt when its handler returned NotImplemented.
std::optional<Stack> call_function_mode(const OpHandle& op, const Stack& args,
                                        const py::object& mode);

void init_torch_function(py::module_& m);

// ---- Python subclasses in C++ calls (torch_dispatch.cpp) ----
/// Gives the impl of a new Python object of class `cls` the C++ hooks that route C++ calls on it
/// to the class's __torch_function__ / __torch_dispatch__ (Note [Python subclasses in C++ calls]).
void attach_python_subclass(PyTypeObject* cls, const Tensor& t);
/// A boxed call as handlers see it: (args, kwargs) with defaults left out.
std::pair<py::tuple, py::dict> stack_to_py(const OpHandle& op, const Stack& args);
/// A handler's (or Python kernel's) return value as the op's boxed results.
Stack result_to_stack(py::handle r, const OpHandle& op);
/// Calls the Python __torch_dispatch__ dispatcher for `op` (with `mode`, or None for the
/// subclasses); nullopt when it returned NotImplemented.
std::optional<Stack> call_dispatch_handler(const OpHandle& op, const Stack& args,
                                           const py::object& mode);
void init_torch_dispatch(py::module_& m);

// ---- swap_tensors and the __future__ flags (swap.cpp) ----
void init_swap(py::module_& m);

}  // namespace ember::python
