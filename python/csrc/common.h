// What every file of ember._C shares: the Python tensor object, the pybind11 casters for
// ember::Tensor / dtypes / devices, and the error bridge.
//
//   m.def("twice", [](const ember::Tensor& t) { return t * 2; });   // Python tensors in and out
//
// A C++ tensor crosses into Python through wrap() (the same Python object every time: Note
// [Python object preservation] in tensor_object.cpp) and back through unpack().
#pragma once

#include <Python.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "ember/custom_class.h"
#include "ember/dtype.h"
#include "ember/device.h"
#include "ember/tensor.h"
#include "ember/value.h"

namespace ember::python {

namespace py = pybind11;

// ---- the tensor object (tensor_object.cpp) ----

/// The C layout of every Python tensor: `ember._C.TensorBase` and its subclasses.
struct PyTensor {
  PyObject_HEAD
  /// The tensor this object owns; undefined while the impl owns this object instead
  /// (Note [Python object preservation]).
  Tensor cdata;
};

/// `ember._C.TensorBase` (its metaclass installs the preserving dealloc on every subclass).
PyTypeObject* tensor_base_type();
inline bool is_tensor(PyObject* obj) { return PyObject_TypeCheck(obj, tensor_base_type()); }
/// The tensor inside a Python tensor object (the object must be a tensor).
inline const Tensor& unpack(PyObject* obj) { return reinterpret_cast<PyTensor*>(obj)->cdata; }
/// A new reference to the Python object of `t`: its existing one if it has one, else a new
/// instance of ember.Tensor (ember.nn.Parameter for parameters). Undefined → None.
PyObject* wrap(Tensor t);
/// A new instance of `cls` (a subclass of TensorBase) owning `t`, which must have no Python
/// object yet (Tensor._make_subclass, as_subclass).
PyObject* wrap_as(PyTypeObject* cls, Tensor t);
/// Registers the Python classes wrap() instantiates (ember.Tensor, ember.nn.Parameter).
void set_tensor_classes(PyObject* tensor_cls, PyObject* parameter_cls);
/// The Python class ember.Tensor (set at import by ember/_tensor.py).
PyObject* tensor_class();

// ---- dtypes, devices, sizes (types.cpp) ----
/// The `ember.float32`-style object of a dtype (one object per dtype: `is` works).
PyObject* dtype_object(ScalarType t);
bool is_dtype(PyObject* obj);
ScalarType unpack_dtype(PyObject* obj);
/// An `ember.device` object; devices also accept "cpu" / "meta" strings where parsed.
/// The ember.qscheme singleton for a QScheme's number (quantized_tensor.cpp), a new reference.
PyObject* qscheme_object(int64_t scheme);
bool is_qscheme(PyObject* obj);
int64_t unpack_qscheme(PyObject* obj);
PyObject* device_object(Device d);
bool is_device(PyObject* obj);
/// A device from an ember.device or a string ("cpu", "cpu:0", "meta"); TypeError otherwise.
/// A CUDA device raises PyTorch's AssertionError (raise_no_cuda).
Device parse_device(PyObject* obj);
/// AssertionError "ember not compiled with CUDA enabled", as a CPU-only PyTorch raises.
[[noreturn]] void raise_no_cuda();
/// `ember.Size(sizes)`.
PyObject* size_object(IntArrayRef sizes);
/// The memory_format objects (ember.contiguous_format = 0, preserve_format = 1,
/// channels_last = 2, as c10 numbers them in boxed calls).
bool is_memory_format(PyObject* obj);
int64_t unpack_memory_format(PyObject* obj);

// ---- generators (generator.cpp) ----
/// The ember::Generator of an `ember.Generator` object; nullptr when obj is not one.
Generator* unpack_generator(PyObject* obj);
/// The `ember.Generator` object of g (ember.default_generator for the default one); None for
/// nullptr.
py::object generator_object(Generator* g);

// ---- values (values.cpp) ----
/// A boxed op result as Python: tensors wrapped, lists as lists, None as None, objects as their
/// ember.ScriptObject.
py::object value_to_py(const Value& v);

// ---- objects of C++ classes (values.cpp; Note [Objects across the boundary]) ----
/// Whether obj is an ember.ScriptObject (a packed-params object ...).
bool is_script_object(PyObject* obj);
/// The C++ object inside an ember.ScriptObject (which obj must be).
intrusive_ptr<CustomClassHolder> unpack_object(PyObject* obj);
/// The Python object of `obj`: the one that exists while one does, else a new one.
py::object object_to_py(const intrusive_ptr<CustomClassHolder>& obj);
/// Any Python object carried through C++ as a Value (a module's extra state, a value a
/// state_dict hook put in): value_to_py gives back the very object.
Value opaque_py_value(py::handle obj);

// ---- errors (errors.cpp) ----
/// Sets the Python error for the C++ exception being handled (ember::Error → its kind's Python
/// type with the same message; a Python error already set is kept). Use inside catch (...).
void set_python_error_from_current_exception();

/// Runs `f` and converts C++ exceptions into a set Python error, returning `fail` then.
template <class F, class R>
R guarded(F&& f, R fail) {
  try {
    return f();
  } catch (...) {
    set_python_error_from_current_exception();
    return fail;
  }
}

/// A zeroed static type object with its header set (what PyVarObject_HEAD_INIT does), to fill
/// field by field before PyType_Ready.
inline PyTypeObject static_type_init() {
  PyTypeObject t{};
  Py_SET_REFCNT(reinterpret_cast<PyObject*>(&t), 1);
  return t;
}

// ---- adding to TensorBase (ops.cpp) ----
/// Sets `TensorBase.<name>` (a static type: its dict is written directly).
void add_tensor_attr(const char* name, PyObject* obj);
/// A method: `fn` gets the tensor object first.
inline void add_tensor_method(const char* name, const py::cpp_function& fn) {
  py::object m = py::reinterpret_steal<py::object>(PyInstanceMethod_New(fn.ptr()));
  add_tensor_attr(name, m.ptr());
}
/// A property from a getter (and optionally a setter), each taking the tensor object first.
inline void add_tensor_property(const char* name, const py::cpp_function& get,
                                const py::object& set = py::none()) {
  py::object prop = py::module_::import("builtins").attr("property")(get, set);
  add_tensor_attr(name, prop.ptr());
}

void init_tensor_object(py::module_& m);
void init_types(py::module_& m);
void init_errors(py::module_& m);
void init_ops(py::module_& m);

}  // namespace ember::python

// Objects of C++ classes are held by their intrusive count (the Python object owns a reference).
PYBIND11_DECLARE_HOLDER_TYPE(T, ember::intrusive_ptr<T>, true)

// ---- pybind11 casters: ember::Tensor <-> ember.Tensor objects, dtypes, devices ----
namespace pybind11::detail {

template <>
struct type_caster<ember::Tensor> {
  PYBIND11_TYPE_CASTER(ember::Tensor, const_name("ember.Tensor"));
  bool load(handle src, bool /*convert*/) {
    if (src.is_none()) {
      value = ember::Tensor();
      return true;
    }
    if (!ember::python::is_tensor(src.ptr())) return false;
    value = ember::python::unpack(src.ptr());
    return true;
  }
  static handle cast(const ember::Tensor& t, return_value_policy, handle) {
    return ember::python::wrap(t);
  }
};

template <>
struct type_caster<ember::ScalarType> {
  PYBIND11_TYPE_CASTER(ember::ScalarType, const_name("ember.dtype"));
  bool load(handle src, bool) {
    if (!ember::python::is_dtype(src.ptr())) return false;
    value = ember::python::unpack_dtype(src.ptr());
    return true;
  }
  static handle cast(ember::ScalarType t, return_value_policy, handle) {
    PyObject* o = ember::python::dtype_object(t);
    Py_INCREF(o);
    return o;
  }
};

template <>
struct type_caster<ember::Device> {
  PYBIND11_TYPE_CASTER(ember::Device, const_name("ember.device"));
  bool load(handle src, bool) {
    if (!ember::python::is_device(src.ptr()) && !PyUnicode_Check(src.ptr())) return false;
    try {
      value = ember::python::parse_device(src.ptr());
    } catch (const error_already_set&) {
      throw;  // a Python error of its own: a CUDA device's AssertionError (raise_no_cuda)
    } catch (...) {
      return false;
    }
    return true;
  }
  static handle cast(ember::Device d, return_value_policy, handle) {
    return ember::python::device_object(d);
  }
};

}  // namespace pybind11::detail
