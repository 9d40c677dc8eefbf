// Note [Function overrides at the Python boundary]
// Every Python entry point (ember.* functions, Tensor methods, operators, properties) checks its
// arguments for overloaded objects before parsing them: Python subclasses of Tensor with a
// __torch_function__, and tensor-likes that are not tensors at all (which C++ could never hold).
// If any is found, or a TorchFunctionMode is active, the call goes to the Python-level
// dispatcher with the arguments exactly as the user passed them (func, types, args, kwargs as in
// PyTorch), instead of to C++. The check for plain tensors is one type comparison per argument.
// The default Tensor.__torch_function__ runs func under DisableTorchFunctionSubclass, which is
// the same thread state the C++ function-override layer reads, so neither layer sees the call
// twice.
//
// Note [TorchFunctionMode across C++]
// A TorchFunctionMode is a C++ FunctionMode (PyFunctionMode) on the dispatcher's thread-local
// mode stack, which is the one stack Python's _push_on_torch_function_stack / _pop / _len /
// _get_function_stack_at read and write. Calls made from Python reach the mode at the Python
// boundary, as before. Ops that C++ code calls on plain tensors (a C++ layer's forward calling
// linear, a C++ Sequential, an optimizer's step) reach it through the dispatcher's function
// layer, which hands them to PyFunctionMode with the public API object of the op; the
// dispatcher pops the mode while its handler runs, for Python too. Only the public op is seen:
// a composite's body and the backward engine's formulas stay below the function layer, as
// PyTorch's C++ is. With no mode set, the mode costs nothing: the dispatcher's fast-path test
// reads the thread's included keys, which hold FunctionOverride only while the stack is not
// empty.
#include "torch_function.h"

#include "dispatch/layers.h"

namespace ember::python {

namespace {

PyObject* g_handler = nullptr;           // ember.overrides._dispatch_torch_function
PyObject* g_disabled_impl = nullptr;     // _C._disabled_torch_function_impl

// A Python TorchFunctionMode on the dispatcher's stack (Note [TorchFunctionMode across C++]).
class PyFunctionMode : public FunctionMode {
 public:
  explicit PyFunctionMode(py::object mode) : mode_(std::move(mode)) {}
  ~PyFunctionMode() override {
    if (!Py_IsInitialized()) {
      mode_.release();
      return;
    }
    py::gil_scoped_acquire gil;
    mode_ = py::object();
  }
  std::optional<Stack> torch_function(const OpHandle& op, const Stack& args) override {
    return call_function_mode(op, args, mode_);
  }
  const py::object& mode() const { return mode_; }

 private:
  py::object mode_;
};

py::object python_mode(FunctionMode* m) {
  auto* pm = dynamic_cast<PyFunctionMode*>(m);
  EMBER_CHECK(pm, "the torch function mode stack holds a C++ FunctionMode, which has no Python "
                  "object");
  return pm->mode();
}

PyObject* disabled_torch_function_impl(PyObject*, PyObject* const* args, Py_ssize_t nargs,
                                       PyObject* kwnames) {
  // (func, types, args=(), kwargs=None): run func with subclass overrides off; no re-wrapping.
  if (nargs < 2) {
    PyErr_SetString(PyExc_TypeError, "_disabled_torch_function_impl(func, types, args, kwargs)");
    return nullptr;
  }
  (void)kwnames;
  PyObject* func = args[0];
  PyObject* fargs = nargs > 2 ? args[2] : nullptr;
  PyObject* fkwargs = nargs > 3 && args[3] != Py_None ? args[3] : nullptr;
  DisableTorchFunctionSubclass guard;
  py::tuple empty;
  return PyObject_Call(func, fargs ? fargs : empty.ptr(), fkwargs);
}

PyMethodDef g_disabled_def = {"_disabled_torch_function_impl",
                              reinterpret_cast<PyCFunction>(
                                  reinterpret_cast<void (*)()>(disabled_torch_function_impl)),
                              METH_FASTCALL | METH_KEYWORDS, nullptr};

bool is_basic_type(PyObject* obj) {
  PyTypeObject* t = Py_TYPE(obj);
  return t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type || obj == Py_None ||
         t == &PyUnicode_Type || t == &PyTuple_Type || t == &PyList_Type || t == &PySlice_Type ||
         t == &PyDict_Type || obj == Py_Ellipsis || is_dtype(obj) || is_device(obj);
}

}  // namespace

bool torch_function_enabled() {
  return !dispatch::local_state().excluded.has(DispatchKey::FunctionOverride);
}
// The dispatcher keeps FunctionOverride among the thread's included keys exactly while its
// function-mode stack is not empty: an inline read on every Python call.
bool torch_function_mode_active() {
  return dispatch::local_state().included.has(DispatchKey::FunctionOverride);
}

bool is_overloaded(PyObject* obj) {
  PyTypeObject* t = Py_TYPE(obj);
  if (is_tensor(obj)) {
    if (reinterpret_cast<PyObject*>(t) == tensor_class()) return false;
    if (dispatch::local_state().skip_subclass_function) return false;
  } else if (is_basic_type(obj)) {
    return false;
  }
  static PyObject* name = PyUnicode_InternFromString("__torch_function__");
  PyObject* tf = _PyType_Lookup(t, name);  // borrowed; no descriptor call
  return tf && tf != g_disabled_impl;
}

void collect_overloaded(PyObject* obj, std::vector<PyObject*>& out) {
  if (PyTuple_Check(obj) || PyList_Check(obj)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    PyObject** items = PySequence_Fast_ITEMS(obj);
    for (Py_ssize_t i = 0; i < n; ++i)
      if (is_tensor(items[i]) || !is_basic_type(items[i])) collect_overloaded(items[i], out);
    return;
  }
  if (!is_overloaded(obj)) return;
  PyTypeObject* t = Py_TYPE(obj);
  for (PyObject* o : out)
    if (Py_TYPE(o) == t) return;  // one argument per type
  for (size_t i = 0; i < out.size(); ++i) {
    if (PyType_IsSubtype(t, Py_TYPE(out[i]))) {  // subclasses before superclasses
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(i), obj);
      return;
    }
  }
  out.push_back(obj);
}

PyObject* dispatch_torch_function(PyObject* public_api, const std::vector<PyObject*>& overloaded,
                                  PyObject* args, PyObject* kwargs) {
  if (!g_handler) {
    PyErr_SetString(PyExc_RuntimeError, "ember.overrides is not initialised");
    return nullptr;
  }
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(overloaded.size()));
  if (!list) return nullptr;
  for (size_t i = 0; i < overloaded.size(); ++i) {
    Py_INCREF(overloaded[i]);
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), overloaded[i]);
  }
  PyObject* result = PyObject_CallFunctionObjArgs(g_handler, public_api, list, args,
                                                  kwargs ? kwargs : Py_None, nullptr);
  Py_DECREF(list);
  return result;
}

PyObject* g_mode_handler = nullptr;  // ember.overrides._run_mode_from_cpp

void init_torch_function(py::module_& m) {
  g_disabled_impl = PyCFunction_New(&g_disabled_def, nullptr);
  m.add_object("_disabled_torch_function_impl", g_disabled_impl);
  Py_INCREF(g_disabled_impl);
  m.def("_set_torch_function_handler", [](py::object fn) {
    Py_XDECREF(g_handler);
    g_handler = fn.inc_ref().ptr();
  });
  m.def("_is_torch_function_enabled", [] { return torch_function_enabled(); });
  m.def("_is_torch_function_subclass_disabled",
        [] { return dispatch::local_state().skip_subclass_function; });
  m.def("_is_torch_function_mode_enabled", [] { return torch_function_mode_active(); });
  m.def("_set_torch_function_mode_handler", [](py::object fn) {
    Py_XDECREF(g_mode_handler);
    g_mode_handler = fn.inc_ref().ptr();
  });
  m.def("_push_on_torch_function_stack", [](py::object mode) {
    dispatch::push_function_mode(make_intrusive<PyFunctionMode>(std::move(mode)));
  });
  m.def("_pop_torch_function_stack", []() -> py::object {
    EMBER_CHECK(dispatch::function_mode_count() != 0,
                "trying to pop from an empty torch function mode stack");
    intrusive_ptr<FunctionMode> top = dispatch::pop_function_mode();
    return python_mode(top.get());
  });
  m.def("_len_torch_function_stack", [] { return dispatch::function_mode_count(); });
  m.def("_get_function_stack_at", [](size_t i) {
    return python_mode(dispatch::function_mode_at(i));
  });

  // Guards (context managers), as torch._C.DisableTorchFunctionSubclass / DisableTorchFunction.
  struct SubclassGuard {
    std::vector<bool> prev;
  };
  py::class_<SubclassGuard>(m, "DisableTorchFunctionSubclass")
      .def(py::init<>())
      .def("__enter__", [](SubclassGuard& g) {
        g.prev.push_back(dispatch::local_state().skip_subclass_function);
        dispatch::local_state().skip_subclass_function = true;
      })
      .def("__exit__", [](SubclassGuard& g, py::args) {
        dispatch::local_state().skip_subclass_function = g.prev.back();
        g.prev.pop_back();
        return false;
      });
  struct AllGuard {
    std::vector<uint16_t> prev;
  };
  py::class_<AllGuard>(m, "DisableTorchFunction")
      .def(py::init<>())
      .def("__enter__", [](AllGuard& g) {
        g.prev.push_back(dispatch::local_state().excluded.raw());
        dispatch::local_state().excluded |= DispatchKey::FunctionOverride;
      })
      .def("__exit__", [](AllGuard& g, py::args) {
        dispatch::local_state().excluded = KeySet::from_bits(g.prev.back());
        g.prev.pop_back();
        return false;
      });
}

}  // namespace ember::python
