// ember.<op> functions and Tensor.<op> methods, one callable per aten name, made from the op
// table (every overload of the name, in table order; Note [Binding Python arguments]).
//
// An _OpFunction is a vectorcall object: no pybind11 overload resolution and no bound-method
// objects on the way (Py_TPFLAGS_METHOD_DESCRIPTOR lets `t.add(1)` call it with t first). Its
// __name__/__qualname__/__module__/__doc__ are set, so functools.wraps works on it and
// `func is ember.add` / `func is ember.Tensor.add` identify it in __torch_function__ handlers.
#include <algorithm>
#include <map>
#include <memory>

#include "arg_parser.h"
#include "dispatch/runtime_ops.h"

#include <structmember.h>

#include "ember/grad_mode.h"
#include "ember/ops/out.h"
#include "torch_function.h"

namespace ember::python {

namespace {

struct PyOpFunction {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  OpSignatures* sigs;
  bool method;
  bool nonzero;  // takes as_tuple=
  bool list_results;  // "-> Tensor[]" as a list (ember.ops.aten, as torch.ops), else a tuple
  PyObject* name;
  PyObject* qualname;
  PyObject* module;
  PyObject* doc;
  PyObject* dict;
};

PyTypeObject OpFunctionType = static_type_init();

// ---- named results: ember.return_types ----
// Note [Named results]: an op whose schema names its results ("-> (Tensor values, Tensor
// indices)") returns them as a structseq `ember.return_types.<name>` (and `<name>_out` from an
// out= call), as PyTorch's torch.return_types: a tuple subclass with named fields, PyTorch's
// multi-line repr, and pickling by its qualified name (ember/return_types.py re-exports them).
std::map<std::string, PyTypeObject*>& return_types() {
  static std::map<std::string, PyTypeObject*> types;
  return types;
}
std::vector<PyTypeObject*>& return_type_by_op() {  // indexed by OpHandle::id
  static std::vector<PyTypeObject*> by_op;
  return by_op;
}

PyObject* structseq_repr(PyObject* self) {
  return guarded(
      [&]() -> PyObject* {
        PyTypeObject* type = Py_TYPE(self);
        std::string r = std::string(type->tp_name) + "(";
        const Py_ssize_t n = PyTuple_GET_SIZE(self);
        for (Py_ssize_t i = 0; i < n; ++i) {  // tp_members: the fields, in order
          r += "\n" + std::string(type->tp_members[i].name) + "=" +
               py::repr(PyTuple_GET_ITEM(self, i)).cast<std::string>();
          if (i + 1 < n) r += ",";
        }
        return PyUnicode_FromString((r + ")").c_str());
      },
      static_cast<PyObject*>(nullptr));
}

PyTypeObject* make_return_type(const std::string& name, const std::vector<std::string>& fields) {
  auto& types = return_types();
  if (auto it = types.find(name); it != types.end()) return it->second;
  // The names and the descriptor live as long as the type (the process).
  auto* names = new std::vector<std::string>(fields);
  auto* members = new std::vector<PyStructSequence_Field>();
  for (const auto& f : *names) members->push_back({f.c_str(), nullptr});
  members->push_back({nullptr, nullptr});
  auto* full = new std::string("ember.return_types." + name);
  auto* desc = new PyStructSequence_Desc{full->c_str(), nullptr, members->data(),
                                          static_cast<int>(names->size())};
  PyTypeObject* type = PyStructSequence_NewType(desc);
  if (!type) throw py::error_already_set();
  type->tp_repr = structseq_repr;
  PyType_Modified(type);
  types[name] = type;
  return type;
}

PyObject* make_structseq(PyTypeObject* type, std::vector<py::object> items) {
  PyObject* r = PyStructSequence_New(type);
  if (!r) throw py::error_already_set();
  for (size_t i = 0; i < items.size(); ++i)
    PyStructSequence_SetItem(r, static_cast<Py_ssize_t>(i), items[i].release().ptr());
  return r;
}

PyObject* results_to_py(const OpHandle& op, const Stack& out, bool list_results = false) {
  // QScheme results box as ints (src/quant/quantize.cpp): back to the ember.qscheme object.
  if (out.size() == 1 && out[0].is_int() && op.returns().size() == 1 && op.returns()[0].type == "QScheme")
    return qscheme_object(out[0].to_int());
  if (out.size() == 1 && out[0].is_tensor_list() && (list_results || dispatch::is_runtime_op(op.id()))) {
    // "-> Tensor[]" through torch.ops (and any run-time op's) is a list; torch.split & co. at
    // the top level give tuples.
    py::list l;
    for (const Tensor& t : out[0].to_tensor_list()) l.append(py::reinterpret_steal<py::object>(wrap(t)));
    return l.release().ptr();
  }
  if (out.size() == 1) return value_to_py(out[0]).release().ptr();
  if (out.empty() && op.returns().empty()) Py_RETURN_NONE;  // "-> ()" (run-time ops)
  const auto& by_op = return_type_by_op();
  // Named results (ember.return_types) for ember.max & co.; torch.ops gives plain tuples.
  if (!list_results && static_cast<size_t>(op.id()) < by_op.size() && by_op[op.id()]) {
    std::vector<py::object> items;
    for (const Value& v : out) items.push_back(value_to_py(v));
    return make_structseq(by_op[op.id()], std::move(items));
  }
  py::tuple t(out.size());
  for (size_t i = 0; i < out.size(); ++i) t[i] = value_to_py(out[i]);
  return t.release().ptr();
}

bool requires_grad_anywhere(const Stack& stack) {
  for (const Value& v : stack) {
    if (v.is_tensor() && v.to_tensor().defined() && v.to_tensor().requires_grad()) return true;
    if (v.is_tensor_list())
      for (const Tensor& t : v.to_tensor_list())
        if (t.defined() && t.requires_grad()) return true;
  }
  return false;
}

// Note [out= arguments] (arg_parser.cpp): the functional op, then its results written into out.
PyObject* call_with_out(const std::string& name, const ParsedCall& call) {
  const Signature& sig = *call.sig;
  std::vector<PyObject*> outs;
  if (sig.n_returns == 1) {
    outs.push_back(call.out);
  } else {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(call.out);
    EMBER_CHECK_TYPE(seq.size() == sig.n_returns, name, "(): argument 'out' must be tuple of ",
                     sig.n_returns, " Tensors, not tuple of ", seq.size());
    for (size_t i = 0; i < seq.size(); ++i) {
      PyObject* o = PySequence_Fast_GET_ITEM(call.out, static_cast<Py_ssize_t>(i));
      EMBER_CHECK_TYPE(is_tensor(o), name, "(): argument 'out' must be tuple of Tensors, not ",
                       Py_TYPE(o)->tp_name);
      outs.push_back(o);
    }
  }
  bool grad = false;
  for (PyObject* o : outs) grad = grad || unpack(o).requires_grad();
  EMBER_CHECK(!GradMode::is_enabled() || !(grad || requires_grad_anywhere(call.stack)), name,
              "(): functions with out=... arguments don't support automatic differentiation, but "
              "one of the arguments requires grad.");
  Stack res = sig.op->call(call.stack);
  for (size_t i = 0; i < outs.size() && i < res.size(); ++i) write_out(res[i].to_tensor(), unpack(outs[i]));
  if (outs.size() == 1) return Py_NewRef(outs[0]);
  std::vector<py::object> items;
  for (PyObject* o : outs) items.push_back(py::reinterpret_borrow<py::object>(o));
  const auto& by_op = return_type_by_op();
  if (static_cast<size_t>(sig.op->id()) < by_op.size() && by_op[sig.op->id()]) {
    std::string type_name = by_op[sig.op->id()]->tp_name;
    type_name = type_name.substr(type_name.rfind('.') + 1) + "_out";
    return make_structseq(return_types().at(type_name), std::move(items));
  }
  py::tuple t(items.size());
  for (size_t i = 0; i < items.size(); ++i) t[i] = items[i];
  return t.release().ptr();
}

// torch.nonzero / Tensor.nonzero take `as_tuple=` (a Python-level argument in PyTorch too):
// as_tuple=True is aten::nonzero_numpy. Returns nullptr when the call has no as_tuple.
PyObject* nonzero_as_tuple(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                           PyObject* kwnames, const OpSignatures& plain) {
  if (!kwnames) return nullptr;
  const Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
  Py_ssize_t at = -1;
  for (Py_ssize_t k = 0; k < nkw; ++k)
    if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), "as_tuple") == 0) at = k;
  if (at < 0) return nullptr;
  PyObject* flag = args[nargs + at];
  EMBER_CHECK_TYPE(PyBool_Check(flag), "nonzero(): argument 'as_tuple' must be bool, not ",
                   Py_TYPE(flag)->tp_name);
  std::vector<PyObject*> rest(args, args + nargs);
  py::tuple names(nkw - 1);
  for (Py_ssize_t k = 0, j = 0; k < nkw; ++k) {
    if (k == at) continue;
    names[j++] = py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(kwnames, k));
    rest.push_back(args[nargs + k]);
  }
  static const OpSignatures numpy_form({&find_op("aten::nonzero_numpy")}, "nonzero");
  const OpSignatures& sigs = flag == Py_True ? numpy_form : plain;
  ParsedCall call = sigs.parse(self, rest.data(), nargs, nkw > 1 ? names.ptr() : nullptr);
  if (call.out) return call_with_out("nonzero", call);
  return results_to_py(*call.sig->op, call.sig->op->call(call.stack));
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
        if (f->nonzero)
          if (PyObject* r = nonzero_as_tuple(self, args, nargs, kwnames, *f->sigs)) return r;
        ParsedCall call = f->sigs->parse(self, args, nargs, kwnames);
        if (call.out) return call_with_out(f->sigs->python_name(), call);
        Stack out = call.sig->op->call(call.stack);
        if (call.requires_grad) out[0].to_tensor().requires_grad_(true);
        return results_to_py(*call.sig->op, out, f->list_results);
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

PyObject* make_op_function(std::vector<const OpHandle*> ops, const std::string& name, bool method,
                           bool list_results = false) {
  auto* f = PyObject_GC_New(PyOpFunction, &OpFunctionType);
  if (!f) throw py::error_already_set();
  f->vectorcall = op_vectorcall;
  f->sigs = nullptr;
  f->method = method;
  f->nonzero = name == "nonzero";
  f->list_results = list_results;
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

  // Named results (Note [Named results]): one type per Python name, and its `_out` twin.
  auto& by_op = return_type_by_op();
  // The quantized:: ops are reached only as ember.ops.quantized.<op> (as torch.ops.quantized):
  // no ember.<name> function, no Tensor method, plain tuples for their several results.
  auto in_quantized = [](const OpHandle& op) { return op.name().starts_with("quantized::"); };
  for (const OpHandle& op : all_ops()) {
    if (in_quantized(op)) continue;
    std::vector<std::string> fields;
    for (const SchemaArg& r : op.returns()) fields.push_back(r.name);
    if (fields.size() < 2 || std::any_of(fields.begin(), fields.end(), [](auto& f) { return f.empty(); }))
      continue;
    std::string name = op.name().substr(op.name().find("::") + 2);
    if (by_op.size() <= static_cast<size_t>(op.id())) by_op.resize(op.id() + 1, nullptr);
    by_op[op.id()] = make_return_type(name, fields);
    make_return_type(name + "_out", fields);
  }
  py::dict rt;
  for (auto& [name, type] : return_types()) rt[py::str(name)] = py::handle(reinterpret_cast<PyObject*>(type));
  m.attr("_return_types") = rt;

  // Group the table's overloads by their Python name ("aten::add" -> "add").
  std::map<std::string, std::vector<const OpHandle*>> by_name;
  std::vector<std::string> order;
  for (const OpHandle& op : all_ops()) {
    if (in_quantized(op)) continue;
    std::string name = op.name().substr(op.name().find("::") + 2);
    if (unbound_overloads().count(name + "." + op.overload())) continue;
    if (!by_name.count(name)) order.push_back(name);
    by_name[name].push_back(&op);
  }
  py::dict functions, methods;
  for (const std::string& name : order) {
    auto& ops = by_name[name];
    functions[py::str(name)] = py::reinterpret_steal<py::object>(make_op_function(ops, name, false));
    // A method where every overload takes `Tensor self` first (PyTorch's Tensor methods); where
    // some overloads have `self` later (where.self), the method has those overloads only.
    auto is_self = [](const SchemaArg& a) {
      return a.name == "self" && a.type.starts_with("Tensor") && !a.type.starts_with("Tensor[") &&
             !a.type.starts_with("Tensor?");
    };
    // (torch.special's and torch.fft's functions are no Tensor methods)
    bool method = name[0] != '_' && !name.starts_with("special_") && !name.starts_with("fft_");
    std::vector<const OpHandle*> later_self;
    for (const OpHandle* op : ops) {
      const auto& a = op->arguments();
      method = method && !a.empty() && is_self(a[0]);
      if (!a.empty() && !is_self(a[0]) && std::any_of(a.begin(), a.end(), is_self))
        later_self.push_back(op);
    }
    // Overloads whose `self` is a Python number (pow.Scalar, bitwise_and.Scalar_Tensor) are
    // function-only in PyTorch: the method has the others.
    std::vector<const OpHandle*> tensor_self;
    bool rest_number_self = true;
    for (const OpHandle* op : ops) {
      const auto& a = op->arguments();
      if (!a.empty() && is_self(a[0])) tensor_self.push_back(op);
      else if (a.empty() || a[0].name != "self" || a[0].type != "Scalar") rest_number_self = false;
    }
    if (!method && name[0] != '_' && !name.starts_with("special_") && !name.starts_with("fft_") && !tensor_self.empty() &&
        rest_number_self) {
      method = true;
      ops = tensor_self;
    }
    if (!method && name[0] != '_' && !later_self.empty()) {
      method = true;
      ops = later_self;
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
                                bool method, bool list_results) {
    // ember.ops.aten-style names ("aten::add.Tensor") under a Python name of one's choice.
    std::vector<const OpHandle*> ops;
    for (const auto& full : overloads) {
      auto dot = full.find('.', full.find("::"));
      ops.push_back(dot == std::string::npos ? &find_op(full) : &find_op(full.substr(0, dot), full.substr(dot + 1)));
    }
    return py::reinterpret_steal<py::object>(
        make_op_function(std::move(ops), python_name, method, list_results));
  }, py::arg("python_name"), py::arg("overloads"), py::arg("method"), py::arg("list_results") = false);
}

}  // namespace ember::python
