// Python tensor subclasses in the C++ dispatcher: the hooks object every Python subclass instance
// with __torch_function__ / __torch_dispatch__ carries, wrapper and plain subclass constructors,
// TorchDispatchMode's C++ side, and the op table for ember.ops.aten.
//
// Note [Python subclasses in C++ calls]
// The Python boundary (ops.cpp, tensor_methods.cpp) routes a Python call on a subclass instance
// to __torch_function__ before C++ sees it. Ops that C++ code calls (a C++ layer's forward calling
// linear, load_state_dict calling module_load, Module._apply calling _to_copy) never pass that
// boundary, so each Python subclass instance also carries a PyHooks object (a C++
// TensorSubclass) on its impl, attached when its Python object is created (wrap_as). Its
// torch_function turns the boxed call into Python arguments and calls the same Python dispatcher
// with the public API object of the op; its torch_dispatch calls the Python __torch_dispatch__
// dispatcher with the ember.ops.aten OpOverload. Every PyHooks has one type key, so the C++ layer
// asks only the first Python subclass argument, and the Python dispatcher orders all of them by
// NEP-18 (C++ knows no class hierarchy). Nothing is handled twice: a call that came through the
// Python boundary runs its handler's func under DisableTorchFunctionSubclass, which the C++
// function layer reads too (Note [Function overrides at the Python boundary]).
//
// Arguments reach handlers as PyTorch's parseIValuesToPyArgsKwargs gives them: positionals up to
// the last one that differs from its default, keyword-only parameters as kwargs when they differ
// from their defaults, wrapped numbers (the 2 of `t * 2`) as Python numbers.
#include <memory>

#include "dispatch/layers.h"
#include "dispatch/runtime_ops.h"
#include "dispatch/schema.h"
#include "ember/autograd/autograd.h"
#include "ember/dispatch.h"
#include "torch_function.h"

namespace ember::python {

namespace {

PyObject* g_dispatch_handler = nullptr;  // ember.utils._python_dispatch._dispatch_torch_dispatch
PyObject* g_disabled_dispatch_impl = nullptr;

bool same_default(const Value& v, const Value& d) {
  if (v.is_none() || d.is_none()) return v.is_none() && d.is_none();
  if (v.is_tensor() || d.is_tensor()) return false;
  if (v.storage().index() != d.storage().index()) {
    // An int default for a float parameter ("1" for alpha) compares by value.
    if (v.is_scalar() && d.is_scalar() && !v.is_bool() && !d.is_bool())
      return v.to_double() == d.to_double();
    return false;
  }
  if (v.is_int()) return v.to_int() == d.to_int();
  if (v.is_double()) return v.to_double() == d.to_double();
  if (v.is_bool()) return v.to_bool() == d.to_bool();
  if (v.is_int_list()) return v.to_int_list() == d.to_int_list();
  if (v.is_double_list()) return v.to_double_list() == d.to_double_list();
  if (v.is_dtype()) return v.to_dtype() == d.to_dtype();
  if (v.is_device()) return v.to_device() == d.to_device();
  if (v.is_string()) return v.to_string_value() == d.to_string_value();
  return false;
}

bool is_default(const SchemaArg& a, const Value& v) {
  if (!a.default_value) return false;
  return same_default(v, dispatch::default_value(a.type, *a.default_value));
}

// Note [Enum arguments across the boundary]
// ember boxes MemoryFormat and Layout arguments as int64 in c10's numbering (contiguous_format =
// 0, preserve_format = 1, channels_last = 2, channels_last_3d = 3; strided = 0), dtypes and
// devices as their own Values. Handlers see what PyTorch hands them: the ember.memory_format and
// ember.layout objects (`ember.preserve_format`, `ember.strided`), ember.float32,
// ember.device('cpu'), picked by the schema's argument type; py_to_value turns the same objects
// back into the boxed forms, so `func(*args, **kwargs)` round-trips. (`int reduction` is an int
// in PyTorch's schemas too; a Generator does not cross the box: Value has no generator.)
PyObject* c_attr(const char* name) {
  return py::module_::import("ember._C").attr(name).ptr();  // borrowed: the module keeps it
}
PyObject* memory_format_object(int64_t v) {
  static PyObject* const formats[] = {c_attr("contiguous_format"), c_attr("preserve_format"),
                                      c_attr("channels_last"), c_attr("channels_last_3d")};
  EMBER_CHECK(v >= 0 && v < 4, "invalid memory format ", v);
  return formats[v];
}
PyObject* layout_object() {
  static PyObject* const strided = c_attr("strided");
  return strided;
}
bool is_layout(PyObject* p) { return Py_TYPE(p) == Py_TYPE(layout_object()); }

bool type_is(const std::string& type, std::string_view name) {
  return type.starts_with(name) && (type.size() == name.size() || type[name.size()] == '?');
}

// "int[2]" / "SymInt[2]?" -> 2; 0 for other types and unsized lists.
size_t fixed_int_list_size(const std::string& type) {
  if (!type.starts_with("int[") && !type.starts_with("SymInt[")) return 0;
  return static_cast<size_t>(std::strtoul(type.c_str() + type.find('[') + 1, nullptr, 10));
}

// A boxed argument as the schema spells it: an `int[2]` given as one number ([2], as C++
// callers may pass kernel sizes) is that number repeated, as PyTorch's IntArrayRef parsing
// makes it; so handlers see [2, 2] and defaults ([0, 0]) compare equal.
Value normalized(const Value& v, const SchemaArg& a) {
  if (!v.is_int_list() || v.to_int_list().size() != 1) return v;
  const size_t n = fixed_int_list_size(a.type);
  if (n <= 1) return v;
  return Value(std::vector<int64_t>(n, v.to_int_list()[0]));
}

py::object arg_to_py(const Value& v, const SchemaArg& a) {
  if (v.is_int() && type_is(a.type, "MemoryFormat")) {
    return py::reinterpret_borrow<py::object>(memory_format_object(v.to_int()));
  }
  if (v.is_int() && type_is(a.type, "Layout")) {
    EMBER_CHECK(v.to_int() == 0, "invalid layout ", v.to_int(), " (ember has only strided)");
    return py::reinterpret_borrow<py::object>(layout_object());
  }
  if (v.is_tensor()) {
    const Tensor& t = v.to_tensor();
    if (t.defined() && t.impl()->is_wrapped_number()) {
      Scalar s = t.item();
      if (s.is_bool()) return py::bool_(s.to_bool());
      if (s.is_integral()) return py::int_(s.to_int());
      return py::float_(s.to_double());
    }
  }
  if (v.is_int_list() && type_is(a.type.substr(0, a.type.find('[')), "bool")) {
    // bool[3] output masks (boxed as 0/1 ints) reach handlers as PyTorch's list of bools.
    py::list l;
    for (int64_t b : v.to_int_list()) l.append(py::bool_(b != 0));
    return l;
  }
  if (v.is_tensor_list()) {  // PyTorch hands Tensor[] arguments to handlers as lists
    py::list l;
    for (const auto& t : v.to_tensor_list()) l.append(py::reinterpret_steal<py::object>(wrap(t)));
    return l;
  }
  return value_to_py(v);
}

Value py_to_value(py::handle o, const OpHandle& op) {
  PyObject* p = o.ptr();
  if (p == Py_None) return Value();
  if (is_tensor(p)) return Value(unpack(p));
  if (is_script_object(p)) return Value(unpack_object(p));
  if (PyBool_Check(p)) return Value(p == Py_True);
  if (PyLong_Check(p)) return Value(static_cast<int64_t>(PyLong_AsLongLong(p)));
  if (PyFloat_Check(p)) return Value(PyFloat_AS_DOUBLE(p));
  if (PyComplex_Check(p)) return Value(std::complex<double>(PyComplex_RealAsDouble(p), PyComplex_ImagAsDouble(p)));
  if (is_dtype(p)) return Value(unpack_dtype(p));
  if (is_device(p)) return Value(parse_device(p));
  if (is_memory_format(p)) return Value(unpack_memory_format(p));  // Note [Enum arguments ...]
  if (is_layout(p)) return Value(int64_t{0});
  if (is_qscheme(p)) return Value(unpack_qscheme(p));  // QScheme results box as their number
  if (PyUnicode_Check(p)) return Value(o.cast<std::string>());
  if (PyTuple_Check(p) || PyList_Check(p)) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(o);
    bool tensors = true, ints = true;
    for (auto item : seq) {
      tensors = tensors && is_tensor(item.ptr());
      ints = ints && PyLong_Check(item.ptr()) && !PyBool_Check(item.ptr());
    }
    if (tensors) {
      std::vector<Tensor> list;
      for (auto item : seq) list.push_back(unpack(item.ptr()));
      return Value(std::move(list));
    }
    if (ints) return Value(seq.cast<std::vector<int64_t>>());
  }
  EMBER_FAIL_KIND(ErrorKind::Type, op.full_name(), ": an override returned an object of type ",
                  Py_TYPE(p)->tp_name, ", which ember cannot hand back to C++");
}

}  // namespace

// A handler's result as the op's boxed results.
Stack result_to_stack(py::handle r, const OpHandle& op) {
  const auto& rets = op.returns();
  Stack out;
  if (rets.empty()) return out;  // "-> ()": the handler's None is no result
  if (rets.size() > 1) {
    EMBER_CHECK_TYPE(PyTuple_Check(r.ptr()) || PyList_Check(r.ptr()), op.full_name(),
                     ": an override must return a tuple of ", rets.size(), " values, got ",
                     Py_TYPE(r.ptr())->tp_name);
    for (auto item : py::reinterpret_borrow<py::sequence>(r)) {
      // An undefined Tensor result (convolution_backward's unwanted gradients) comes back None.
      const bool tensor = out.size() < rets.size() && type_is(rets[out.size()].type, "Tensor");
      out.push_back(tensor && item.is_none() ? Value(Tensor()) : py_to_value(item, op));
    }
    return out;
  }
  out.push_back(py_to_value(r, op));
  return out;
}

namespace {

// The public API object of an op for __torch_function__ handlers (the OpOverload for the few
// rows with no ember.<name> function).
py::object public_api(const OpHandle& op) {
  if (dispatch::is_runtime_op(op.id()))  // an op of ember.library: its OpOverload
    return py::module_::import("ember._ops").attr("ops").attr("_lookup")(op.full_name());
  std::string name = op.name().substr(op.name().find("::") + 2);
  if (op.name() == "ember::module_load") {
    return py::reinterpret_borrow<py::object>(tensor_class()).attr("module_load");
  }
  py::dict functions = py::module_::import("ember._C").attr("_op_functions");
  if (functions.contains(py::str(name))) return functions[py::str(name)];
  return py::module_::import("ember._ops").attr("ops").attr("_lookup")(op.full_name());
}

// A Python subclass instance's hooks (Note [Python subclasses in C++ calls]).
class PyHooks : public TensorSubclass {
 public:
  explicit PyHooks(PyObject* cls, bool tf, bool td) : cls_(cls), tf_(tf), td_(td) {
    Py_INCREF(cls_);
  }
  PyHooks(const PyHooks& o) : TensorSubclass(o), cls_(o.cls_), tf_(o.tf_), td_(o.td_) {
    py::gil_scoped_acquire gil;
    Py_INCREF(cls_);
  }
  ~PyHooks() override {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    Py_DECREF(cls_);
  }
  std::string name() const override {
    py::gil_scoped_acquire gil;
    return reinterpret_cast<PyTypeObject*>(cls_)->tp_name;
  }
  bool has_torch_function() const override { return tf_; }
  bool has_torch_dispatch() const override { return td_; }
  const void* type_key() const override {
    static const char key = 0;
    return &key;
  }

  std::optional<Stack> torch_function(const OpHandle& op, const Stack& args) override {
    py::gil_scoped_acquire gil;
    auto [pargs, pkwargs] = stack_to_py(op, args);
    std::vector<PyObject*> overloaded;
    collect_overloaded(pargs.ptr(), overloaded);
    for (auto item : pkwargs) collect_overloaded(item.second.ptr(), overloaded);
    // Every class opted out since (DisableTorchFunctionSubclass is read before the call): run
    // the op below the function layer.
    if (overloaded.empty()) return op.redispatch(args);
    py::object api = public_api(op);
    PyObject* r = dispatch_torch_function(api.ptr(), overloaded, pargs.ptr(),
                                          PyDict_GET_SIZE(pkwargs.ptr()) ? pkwargs.ptr() : nullptr);
    if (!r) throw py::error_already_set();
    py::object result = py::reinterpret_steal<py::object>(r);
    return result_to_stack(result, op);
  }

  std::optional<Stack> torch_dispatch(const OpHandle& op, const Stack& args) override {
    return call_dispatch_handler(op, args, py::none());
  }

 private:
  PyObject* cls_;
  bool tf_, td_;
};

// A TorchDispatchMode on the C++ stack.
class PyDispatchMode : public DispatchMode {
 public:
  explicit PyDispatchMode(py::object mode) : mode_(std::move(mode)) {}
  ~PyDispatchMode() override {
    if (!Py_IsInitialized()) {
      mode_.release();
      return;
    }
    py::gil_scoped_acquire gil;
    mode_ = py::object();
  }
  std::optional<Stack> torch_dispatch(const OpHandle& op, const Stack& args) override {
    py::gil_scoped_acquire gil;
    return call_dispatch_handler(op, args, mode_);
  }
  const py::object& mode() const { return mode_; }

 private:
  py::object mode_;
};

struct DispatchModeEntry {
  intrusive_ptr<PyDispatchMode> mode;
  std::unique_ptr<DispatchModeGuard> guard;
};
thread_local std::vector<DispatchModeEntry> t_dispatch_modes;

bool has_real_attr(PyObject* cls, const char* attr, PyObject* disabled) {
  py::object name = py::str(attr);
  PyObject* found = _PyType_Lookup(reinterpret_cast<PyTypeObject*>(cls), name.ptr());
  return found && found != disabled;
}

PyObject* disabled_dispatch_impl(PyObject*, PyObject* const*, Py_ssize_t, PyObject*) {
  Py_RETURN_NOTIMPLEMENTED;
}
PyMethodDef g_disabled_dispatch_def = {
    "_disabled_torch_dispatch_impl",
    reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(disabled_dispatch_impl)),
    METH_FASTCALL | METH_KEYWORDS, nullptr};

void check_tensor_class(py::handle cls) {
  EMBER_CHECK(PyType_Check(cls.ptr()) &&
                  PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()), tensor_base_type()),
              "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
              "possible. Make sure your class inherits from Tensor.");
}

}  // namespace

std::pair<py::tuple, py::dict> stack_to_py(const OpHandle& op, const Stack& boxed) {
  const auto& schema = op.arguments();
  const size_t n = std::min(schema.size(), boxed.size());
  Stack args;
  args.reserve(n);
  for (size_t i = 0; i < n; ++i) args.push_back(normalized(boxed[i], schema[i]));
  size_t kwarg_start = n;
  while (kwarg_start > 0 && schema[kwarg_start - 1].kwarg_only) --kwarg_start;
  size_t positional_end = kwarg_start;
  while (positional_end > 0 && is_default(schema[positional_end - 1], args[positional_end - 1]))
    --positional_end;
  py::tuple pargs(positional_end);
  for (size_t i = 0; i < positional_end; ++i) pargs[i] = arg_to_py(args[i], schema[i]);
  py::dict kwargs;
  for (size_t i = kwarg_start; i < n; ++i) {
    if (is_default(schema[i], args[i])) continue;
    kwargs[py::str(schema[i].name)] = arg_to_py(args[i], schema[i]);
  }
  return {pargs, kwargs};
}

std::optional<Stack> call_function_mode(const OpHandle& op, const Stack& args,
                                        const py::object& mode) {
  py::gil_scoped_acquire gil;
  EMBER_CHECK(g_mode_handler, "ember.overrides is not initialised");
  auto [pargs, pkwargs] = stack_to_py(op, args);
  std::vector<PyObject*> overloaded;
  collect_overloaded(pargs.ptr(), overloaded);
  for (auto item : pkwargs) collect_overloaded(item.second.ptr(), overloaded);
  py::list types_of;
  for (PyObject* o : overloaded) types_of.append(py::reinterpret_borrow<py::object>(o));
  py::object r = py::reinterpret_borrow<py::object>(g_mode_handler)(mode, public_api(op),
                                                                    types_of, pargs, pkwargs);
  if (r.ptr() == Py_NotImplemented) return std::nullopt;
  return result_to_stack(r, op);
}

std::optional<Stack> call_dispatch_handler(const OpHandle& op, const Stack& args,
                                           const py::object& mode) {
  py::gil_scoped_acquire gil;
  EMBER_CHECK(g_dispatch_handler, "ember.utils._python_dispatch is not initialised");
  auto [pargs, kwargs] = stack_to_py(op, args);
  py::object r = py::reinterpret_borrow<py::object>(g_dispatch_handler)(
      op.full_name(), pargs, kwargs, mode);
  if (r.ptr() == Py_NotImplemented) return std::nullopt;
  return result_to_stack(r, op);
}

void attach_python_subclass(PyTypeObject* cls, const Tensor& t) {
  PyObject* c = reinterpret_cast<PyObject*>(cls);
  if (c == tensor_class() || cls == tensor_base_type()) return;
  TensorSubclass* existing = t.impl()->subclass();
  if (existing && !dynamic_cast<PyHooks*>(existing)) return;  // a C++ subclass keeps its hooks
  static PyObject* disabled_tf =
      py::module_::import("ember._C").attr("_disabled_torch_function_impl").ptr();
  const bool tf = has_real_attr(c, "__torch_function__", disabled_tf);
  const bool td = has_real_attr(c, "__torch_dispatch__", g_disabled_dispatch_impl);
  if (existing && existing->is_wrapper() && !td) return;  // a wrapper needs its dispatch hooks
  if (!tf && !td) {
    if (existing) set_subclass(t, nullptr);
    return;
  }
  set_subclass(t, make_intrusive<PyHooks>(c, tf, td));
}

void init_torch_dispatch(py::module_& m) {
  g_disabled_dispatch_impl = PyCFunction_New(&g_disabled_dispatch_def, nullptr);
  m.add_object("_disabled_torch_dispatch_impl", g_disabled_dispatch_impl);
  Py_INCREF(g_disabled_dispatch_impl);
  add_tensor_attr("__torch_dispatch__", g_disabled_dispatch_impl);

  m.def("_set_torch_dispatch_handler", [](py::object fn) {
    Py_XDECREF(g_dispatch_handler);
    g_dispatch_handler = fn.inc_ref().ptr();
  });
  m.def("_push_torch_dispatch_mode", [](py::object mode) {
    auto pm = make_intrusive<PyDispatchMode>(mode);
    DispatchModeEntry e{pm, std::make_unique<DispatchModeGuard>(pm)};
    t_dispatch_modes.push_back(std::move(e));
  });
  m.def("_pop_torch_dispatch_mode", []() -> py::object {
    EMBER_CHECK(!t_dispatch_modes.empty(), "trying to pop from an empty torch dispatch mode stack");
    py::object mode = t_dispatch_modes.back().mode->mode();
    t_dispatch_modes.pop_back();
    return mode;
  });
  // What the dispatcher sees: inside a mode's handler that mode is off the stack, as in PyTorch.
  m.def("_len_torch_dispatch_stack", [] { return dispatch::dispatch_mode_count(); });
  m.def("_get_dispatch_stack_at", [](size_t i) {
    auto* mode = dynamic_cast<PyDispatchMode*>(dispatch::dispatch_mode_at(i));
    EMBER_CHECK(mode, "the torch dispatch mode stack holds a C++ DispatchMode, which has no "
                      "Python object");
    return mode->mode();
  });

  // The op table for ember.ops: (namespace::name, overload, schema) in table order.
  m.def("_op_table", [] {
    py::list out;
    for (const OpHandle& op : all_ops())
      out.append(py::make_tuple(op.name(), op.overload(), op.schema()));
    return out;
  });

  // A boxed call as C++ code makes it (no Python boundary on the way): what load_state_dict's
  // module_load or a C++ layer's linear do. Arguments by schema name or position.
  m.def("_boxed_call", [](const std::string& full_name, py::list args, py::dict kwargs) {
    auto dot = full_name.find('.', full_name.find("::"));
    const OpHandle& op = dot == std::string::npos
                             ? find_op(full_name)
                             : find_op(full_name.substr(0, dot), full_name.substr(dot + 1));
    Stack stack;
    const auto& schema = op.arguments();
    for (size_t i = 0; i < schema.size(); ++i) {
      py::str key(schema[i].name);
      if (i < args.size()) stack.push_back(py_to_value(args[i], op));
      else if (kwargs.contains(key)) stack.push_back(py_to_value(kwargs[key], op));
      else if (schema[i].default_value)
        stack.push_back(dispatch::default_value(schema[i].type, *schema[i].default_value));
      else EMBER_FAIL_KIND(ErrorKind::Type, full_name, ": missing argument '", schema[i].name, "'");
    }
    Stack out = op.call(stack);
    if (out.size() == 1) return value_to_py(out[0]);
    py::tuple t(out.size());
    for (size_t i = 0; i < out.size(); ++i) t[i] = value_to_py(out[i]);
    return py::object(t);
  });

  // Tensor._make_wrapper_subclass / _make_subclass (static methods) and Tensor.as_subclass.
  py::cpp_function make_wrapper(
      [](py::handle cls, std::vector<int64_t> size, std::optional<std::vector<int64_t>> strides,
         std::optional<int64_t> storage_offset, py::object /*memory_format*/,
         std::optional<ScalarType> dtype, py::object /*layout*/, std::optional<Device> device,
         bool /*pin_memory*/, bool requires_grad, py::object /*dispatch_sizes_strides_policy*/,
         bool /*dispatch_device*/, bool /*dispatch_layout*/) {
        // PyTorch checks the handler first: `int must define __torch_dispatch__`.
        PyObject* c = cls.ptr();
        EMBER_CHECK_TYPE(PyType_Check(c) &&
                             has_real_attr(c, "__torch_dispatch__", g_disabled_dispatch_impl),
                         PyType_Check(c) ? reinterpret_cast<PyTypeObject*>(c)->tp_name
                                         : Py_TYPE(c)->tp_name,
                         " must define __torch_dispatch__");
        check_tensor_class(cls);
        EMBER_CHECK(!storage_offset || *storage_offset == 0 || strides,
                    "setting storage offset without stride not supported");
        EMBER_CHECK(!storage_offset || *storage_offset == 0,
                    "_make_wrapper_subclass: ember's wrapper tensors start at storage offset 0");
        static PyObject* disabled_tf =
            py::module_::import("ember._C").attr("_disabled_torch_function_impl").ptr();
        auto hooks = make_intrusive<PyHooks>(c, has_real_attr(c, "__torch_function__", disabled_tf),
                                             true);
        Tensor t = make_wrapper_tensor(size, strides ? IntArrayRef(*strides) : IntArrayRef(),
                                       dtype.value_or(default_dtype()),
                                       device.value_or(Device(DeviceType::CPU)), std::move(hooks));
        if (requires_grad) t.requires_grad_(true);
        return py::reinterpret_steal<py::object>(wrap_as(reinterpret_cast<PyTypeObject*>(c), t));
      },
      py::arg("cls"), py::arg("size"), py::arg("strides") = py::none(),
      py::arg("storage_offset") = py::none(), py::arg("memory_format") = py::none(),
      py::arg("dtype") = py::none(), py::arg("layout") = py::none(),
      py::arg("device") = py::none(), py::arg("pin_memory") = false,
      py::arg("requires_grad") = false, py::arg("dispatch_sizes_strides_policy") = py::none(),
      py::arg("dispatch_device") = false, py::arg("dispatch_layout") = false,
      py::name("_make_wrapper_subclass"));
  add_tensor_attr("_make_wrapper_subclass",
                  py::reinterpret_steal<py::object>(PyStaticMethod_New(make_wrapper.ptr())).ptr());

  py::cpp_function make_subclass(
      [](py::handle cls, py::handle data, bool require_grad) {
        check_tensor_class(cls);
        EMBER_CHECK_TYPE(is_tensor(data.ptr()), "_make_subclass(): argument 'data' must be Tensor, not ",
                         Py_TYPE(data.ptr())->tp_name);
        Tensor t;
        {
          DisableTorchFunction no_function_layer;  // an internal call of the binding
          t = unpack(data.ptr()).detach();
        }
        t.requires_grad_(require_grad);
        return py::reinterpret_steal<py::object>(
            wrap_as(reinterpret_cast<PyTypeObject*>(cls.ptr()), std::move(t)));
      },
      py::arg("cls"), py::arg("data"), py::arg("require_grad") = false,
      py::name("_make_subclass"));
  add_tensor_attr("_make_subclass",
                  py::reinterpret_steal<py::object>(PyStaticMethod_New(make_subclass.ptr())).ptr());

  add_tensor_method("as_subclass", py::cpp_function(
      [](py::handle self, py::handle cls) {
        check_tensor_class(cls);
        Tensor alias;
        {
          // An internal call of the binding: no __torch_function__ for the alias itself.
          DisableTorchFunction no_function_layer;
          alias = find_op("aten::alias").call({Value(unpack(self.ptr()))})[0].to_tensor();
        }
        return py::reinterpret_steal<py::object>(
            wrap_as(reinterpret_cast<PyTypeObject*>(cls.ptr()), std::move(alias)));
      },
      py::arg("self"), py::arg("cls"), py::name("as_subclass")));
}

}  // namespace ember::python
