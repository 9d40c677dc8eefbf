// ember.<op> functions and Tensor.<op> methods, one callable per aten name, made from the op
// table (every overload of the name, in table order; Note [Binding Python arguments]).
//
// An _OpFunction is a vectorcall object: no pybind11 overload resolution and no bound-method
// objects on the way (Py_TPFLAGS_METHOD_DESCRIPTOR lets `t.add(1)` call it with t first). Its
// __name__/__qualname__/__module__/__doc__ are set, so functools.wraps works on it and
// `func is ember.add` / `func is ember.Tensor.add` identify it in __torch_function__ handlers.
#include <map>
#include <memory>

#include "arg_parser.h"

#include <structmember.h>

#include "torch_function.h"

namespace ember::python {

namespace {

struct PyOpFunction {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  OpSignatures* sigs;
  bool method;
  PyObject* name;
  PyObject* qualname;
  PyObject* module;
  PyObject* doc;
  PyObject* dict;
};

PyTypeObject OpFunctionType = static_type_init();

PyObject* results_to_py(const Stack& out) {
  if (out.size() == 1) return value_to_py(out[0]).release().ptr();
  py::tuple t(out.size());
  for (size_t i = 0; i < out.size(); ++i) t[i] = value_to_py(out[i]);
  return t.release().ptr();
}

// Packs a vectorcall's arguments as (args tuple, kwargs dict) for __torch_function__.
std::pair<py::tuple, py::object> pack_args(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                           PyObject* kwnames) {
  const Py_ssize_t off = self ? 1 : 0;
  py::tuple packed(nargs + off);
  if (self) packed[0] = py::reinterpret_borrow<py::object>(self);
  for (Py_ssize_t i = 0; i < nargs; ++i) packed[i + off] = py::reinterpret_borrow<py::object>(args[i]);
  py::object kwargs = py::none();
  if (kwnames && PyTuple_GET_SIZE(kwnames)) {
    py::dict d;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); ++k)
      d[PyTuple_GET_ITEM(kwnames, k)] = py::reinterpret_borrow<py::object>(args[nargs + k]);
    kwargs = d;
  }
  return {packed, kwargs};
}

PyObject* op_vectorcall(PyObject* callable, PyObject* const* args, size_t nargsf,
                        PyObject* kwnames) {
  auto* f = reinterpret_cast<PyOpFunction*>(callable);
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  PyObject* self = nullptr;
  if (f->method) {
    if (nargs < 1 || !is_tensor(args[0])) {
      PyErr_Format(PyExc_TypeError, "descriptor '%U' requires a 'ember.Tensor' object", f->name);
      return nullptr;
    }
    self = args[0];
    ++args;
    --nargs;
  }
  return guarded(
      [&]() -> PyObject* {
        if (torch_function_enabled()) {
          std::vector<PyObject*> overloaded;
          if (self) collect_overloaded(self, overloaded);
          const Py_ssize_t total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
          for (Py_ssize_t i = 0; i < total; ++i) {
            PyObject* a = args[i];
            if (Py_TYPE(a) == reinterpret_cast<PyTypeObject*>(tensor_class())) continue;
            collect_overloaded(a, overloaded);
          }
          if (!overloaded.empty() || torch_function_mode_active()) {
            auto [packed, kwargs] = pack_args(self, args, nargs, kwnames);
            PyObject* r = dispatch_torch_function(callable, overloaded, packed.ptr(), kwargs.ptr());
            if (!r) throw py::error_already_set();
            return r;
          }
        }
        ParsedCall call = f->sigs->parse(self, args, nargs, kwnames);
        Stack out = call.sig->op->call(call.stack);
        if (call.requires_grad) out[0].to_tensor().requires_grad_(true);
        return results_to_py(out);
      },
      static_cast<PyObject*>(nullptr));
}

PyObject* op_descr_get(PyObject* self, PyObject* obj, PyObject*) {
  auto* f = reinterpret_cast<PyOpFunction*>(self);
  if (!obj || !f->method) {
    Py_INCREF(self);
    return self;
  }
  return PyMethod_New(self, obj);
}

PyObject* op_repr(PyObject* self) {
  auto* f = reinterpret_cast<PyOpFunction*>(self);
  return PyUnicode_FromFormat("<built-in %s %U>", f->method ? "method" : "function", f->qualname);
}

void op_dealloc(PyObject* self) {
  auto* f = reinterpret_cast<PyOpFunction*>(self);
  PyObject_GC_UnTrack(self);
  Py_XDECREF(f->name);
  Py_XDECREF(f->qualname);
  Py_XDECREF(f->module);
  Py_XDECREF(f->doc);
  Py_XDECREF(f->dict);
  delete f->sigs;
  Py_TYPE(self)->tp_free(self);
}

int op_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<PyOpFunction*>(self)->dict);
  return 0;
}

PyMemberDef op_members[] = {
    {"__name__", T_OBJECT, offsetof(PyOpFunction, name), 0, nullptr},
    {"__qualname__", T_OBJECT, offsetof(PyOpFunction, qualname), 0, nullptr},
    {"__module__", T_OBJECT, offsetof(PyOpFunction, module), 0, nullptr},
    {"__doc__", T_OBJECT, offsetof(PyOpFunction, doc), 0, nullptr},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(PyOpFunction, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyGetSetDef op_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyObject* make_op_function(std::vector<const OpHandle*> ops, const std::string& name, bool method) {
  auto* f = PyObject_GC_New(PyOpFunction, &OpFunctionType);
  if (!f) throw py::error_already_set();
  f->vectorcall = op_vectorcall;
  f->sigs = nullptr;
  f->method = method;
  f->name = PyUnicode_FromString(name.c_str());
  f->qualname = PyUnicode_FromString(((method ? "Tensor." : "") + name).c_str());
  f->module = PyUnicode_FromString(method ? "ember._tensor" : "ember");
  std::string doc = name + "(...)\n\nBound to:";
  for (const OpHandle* op : ops) doc += "\n  " + op->schema();
  f->doc = PyUnicode_FromString(doc.c_str());
  f->dict = nullptr;
  f->sigs = new OpSignatures(std::move(ops), name);
  PyObject_GC_Track(reinterpret_cast<PyObject*>(f));
  return reinterpret_cast<PyObject*>(f);
}

}  // namespace

void add_tensor_attr(const char* name, PyObject* obj) {
  PyTypeObject* t = tensor_base_type();
  if (PyDict_SetItemString(t->tp_dict, name, obj) < 0) throw py::error_already_set();
  PyType_Modified(t);
}

void init_ops(py::module_& m) {
  OpFunctionType.tp_name = "ember._C._OpFunction";
  OpFunctionType.tp_basicsize = sizeof(PyOpFunction);
  OpFunctionType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                            Py_TPFLAGS_METHOD_DESCRIPTOR;
  OpFunctionType.tp_call = PyVectorcall_Call;
  OpFunctionType.tp_vectorcall_offset = offsetof(PyOpFunction, vectorcall);
  OpFunctionType.tp_descr_get = op_descr_get;
  OpFunctionType.tp_repr = op_repr;
  OpFunctionType.tp_dealloc = op_dealloc;
  OpFunctionType.tp_traverse = op_traverse;
  OpFunctionType.tp_members = op_members;
  OpFunctionType.tp_getset = op_getset;
  OpFunctionType.tp_dictoffset = offsetof(PyOpFunction, dict);
  if (PyType_Ready(&OpFunctionType) < 0) throw py::error_already_set();

  // Group the table's overloads by their Python name ("aten::add" -> "add").
  std::map<std::string, std::vector<const OpHandle*>> by_name;
  std::vector<std::string> order;
  for (const OpHandle& op : all_ops()) {
    std::string name = op.name().substr(op.name().find("::") + 2);
    if (!by_name.count(name)) order.push_back(name);
    by_name[name].push_back(&op);
  }
  py::dict functions, methods;
  for (const std::string& name : order) {
    auto& ops = by_name[name];
    functions[py::str(name)] = py::reinterpret_steal<py::object>(make_op_function(ops, name, false));
    // A method where every overload takes `Tensor self` first (PyTorch's Tensor methods).
    bool method = name[0] != '_';
    for (const OpHandle* op : ops) {
      const auto& a = op->arguments();
      method = method && !a.empty() && a[0].name == "self" && a[0].type.starts_with("Tensor") &&
               !a[0].type.starts_with("Tensor[") && !a[0].type.starts_with("Tensor?");
    }
    if (method) {
      py::object fn = py::reinterpret_steal<py::object>(make_op_function(ops, name, true));
      methods[py::str(name)] = fn;
      add_tensor_attr(name.c_str(), fn.ptr());
    }
  }
  m.attr("_op_functions") = functions;
  m.attr("_op_methods") = methods;
  m.def("_make_op_function", [](const std::string& python_name, std::vector<std::string> overloads,
                                bool method) {
    // ember.ops.aten-style names ("aten::add.Tensor") under a Python name of one's choice.
    std::vector<const OpHandle*> ops;
    for (const auto& full : overloads) {
      auto dot = full.find('.', full.find("::"));
      ops.push_back(dot == std::string::npos ? &find_op(full) : &find_op(full.substr(0, dot), full.substr(dot + 1)));
    }
    return py::reinterpret_steal<py::object>(make_op_function(std::move(ops), python_name, method));
  });
}

}  // namespace ember::python
