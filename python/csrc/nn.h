// What the ember.nn / ember.optim bindings share (nn_module.cpp, nn_layers.cpp, optim.cpp):
// modules crossing between Python and C++, and Python values as boxed ember::Values.
//
//   std::shared_ptr<nn::Module> child = module_from_py(obj);   // keeps obj alive for C++
//   py::object back = module_to_py(child);                      // the same Python object
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common.h"
#include "ember/nn/module.h"
#include "ember/tensor_options.h"

namespace ember::python {

/// The deleter of module_from_py's shared_ptr: it owns one reference to the module's Python
/// object (named, so that the GC support finds the object: std::get_deleter<PyObjectRef>).
struct PyObjectRef {
  PyObject* obj;
  void operator()(nn::Module*) const;
};

/// The C++ module of a Python module object, as a shared_ptr that C++ may keep: it also owns a
/// reference to the Python object (Note [Python modules under C++ parents]). None → null.
/// TypeError for anything else.
std::shared_ptr<nn::Module> module_from_py(py::handle obj);
/// The Python object of a C++ module (its existing one when it has one). Null → None.
py::object module_to_py(const std::shared_ptr<nn::Module>& m);

/// A Python argument or result as a Value: tensors, None, bool, int, float, str, dtype, device,
/// and lists/tuples of tensors or of numbers. TypeError naming `what` for anything else.
Value py_to_value(py::handle obj, const char* what = "argument");
/// py_to_value that reports failure instead of raising.
bool try_py_to_value(py::handle obj, Value& out);

/// torch.nn._reduction.legacy_get_string: the reduction the deprecated size_average / reduce
/// arguments mean (warning that they are deprecated), or `reduction` when both are None.
std::string reduction_arg(const py::object& size_average, const py::object& reduce,
                          const std::string& reduction);
/// None -> nullopt, else the tensor.
std::optional<Tensor> opt_tensor(const py::object& o);

/// TensorOptions from PyTorch's `device=None, dtype=None` keyword arguments.
TensorOptions tensor_options(const py::object& device, const py::object& dtype);

/// Creates _C._nn and fills it (the four below but init_optim).
/// Runs a Python override of _save_to_state_dict / _load_from_state_dict on C++ state (Note
/// [Python overrides of the state_dict steps], nn_module.cpp).
void call_save_override(const py::function& f, nn::StateDict& destination, const std::string& prefix,
                        bool keep_vars);
void call_load_override(const py::function& f, nn::StateDict& state_dict, const std::string& prefix,
                        nn::LocalMetadata& local_metadata, bool strict,
                        std::vector<std::string>& missing_keys,
                        std::vector<std::string>& unexpected_keys,
                        std::vector<std::string>& error_msgs);

/// A state_dict as Python (an OrderedDict with _metadata) and back; values that are not
/// tensors or plain values travel as the Python objects themselves (Note [Python objects in
/// Values], values.cpp).
py::object ordered_dict();
py::object state_dict_to_py(const nn::StateDict& sd);
nn::StateDict state_dict_from_py(py::handle obj);
nn::LocalMetadata metadata_from_py(py::handle d);

/// A Python class's get_extra_state / set_extra_state / _version, for the trampolines (Note
/// [Python extra state and versions], nn_module_state_hooks.cpp). `self` is the trampoline as
/// its bound C++ type `type`; each takes the GIL.
bool py_has_extra_state(const void* self, const std::type_info& type);
Value py_get_extra_state(const void* self, const std::type_info& type);
void py_set_extra_state(const void* self, const std::type_info& type, const Value& state);
std::optional<int64_t> py_version(const void* self, const std::type_info& type);

/// Marks the module whose state_dict Python asked for, for the hooks' rules (Note [Python
/// state_dict hooks], nn_module_state_hooks.cpp).
class StateDictRoot {
 public:
  explicit StateDictRoot(const nn::Module* root);
  ~StateDictRoot();
  StateDictRoot(const StateDictRoot&) = delete;
  StateDictRoot& operator=(const StateDictRoot&) = delete;

 private:
  const nn::Module* previous_;
};

void init_nn(py::module_& parent);
void init_nn_module(py::module_& m);
/// Module.__call__, the front-end call of C++ parents and the GC support (nn_module_hooks.cpp).
void init_nn_module_hooks(py::module_& m, py::handle module_class);
void init_nn_module_state_hooks(py::module_& m);
void init_nn_layers(py::module_& m);
void init_nn_functional(py::module_& m);
void init_optim(py::module_& m);

}  // namespace ember::python
