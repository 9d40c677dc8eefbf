// CPU autocast's thread-local switches as ember.* functions (torch.is_autocast_cpu_enabled, ...),
// with PyTorch's argument checks and texts (its versions are C functions: "takes no arguments",
// "enabled must be a bool (got int)"), and the Tensor methods _autocast_to_reduced_precision /
// _autocast_to_full_precision. The context managers are Python, as in PyTorch (ember/amp/).
#include "ember/autocast.h"

#include "tensor_api.h"

namespace ember::python {

namespace {

namespace ac = ember::autocast;

void no_args(const char* name, const py::args& args, const py::kwargs& kwargs) {
  if (!kwargs.empty()) throw py::type_error(std::string("ember.") + name + "() takes no keyword arguments");
  if (!args.empty()) {
    throw py::type_error(std::string("ember.") + name + "() takes no arguments (" +
                         std::to_string(args.size()) + " given)");
  }
}

PyObject* one_arg(const char* name, const py::args& args, const py::kwargs& kwargs) {
  if (!kwargs.empty()) throw py::type_error(std::string("ember.") + name + "() takes no keyword arguments");
  if (args.size() != 1) {
    throw py::type_error(std::string("ember.") + name + "() takes exactly one argument (" +
                         std::to_string(args.size()) + " given)");
  }
  return args[0].ptr();
}

bool bool_arg(const char* name, const py::args& args, const py::kwargs& kwargs) {
  PyObject* o = one_arg(name, args, kwargs);
  if (!PyBool_Check(o)) {
    throw py::type_error(std::string("enabled must be a bool (got ") + Py_TYPE(o)->tp_name + ")");
  }
  return o == Py_True;
}

ScalarType dtype_arg(const char* name, const py::args& args, const py::kwargs& kwargs) {
  PyObject* o = one_arg(name, args, kwargs);
  if (!is_dtype(o)) {
    throw py::type_error(std::string("dtype must be a ember.dtype (got ") + Py_TYPE(o)->tp_name + ")");
  }
  return unpack_dtype(o);
}

using Getter = py::object (*)();
using Setter = void (*)(const char*, const py::args&, const py::kwargs&);

void def_getter(py::module_& m, const char* name, Getter get) {
  m.def(name, [name, get](const py::args& a, const py::kwargs& k) {
    no_args(name, a, k);
    return get();
  });
}

void def_setter(py::module_& m, const char* name, Setter set) {
  m.def(name, [name, set](const py::args& a, const py::kwargs& k) { set(name, a, k); });
}

// Binds `self, <flags...>` of the two Tensor methods, positionally or by name.
struct MethodArgs {
  std::vector<py::object> values;
};
MethodArgs method_args(const char* method, const py::args& args, const py::kwargs& kwargs,
                       std::initializer_list<const char*> names) {
  MethodArgs r;
  const size_t n = names.size();
  if (args.size() > n + 1) {
    throw py::type_error(std::string(method) + "() takes " + std::to_string(n) +
                         " positional arguments but " + std::to_string(args.size() - 1) +
                         " were given");
  }
  size_t i = 0;
  for (const char* name : names) {
    py::object v;
    if (i + 1 < args.size()) v = args[i + 1];
    if (kwargs.contains(name)) {
      if (v) throw py::type_error(std::string(method) + "() got multiple values for argument '" + name + "'");
      v = kwargs[name];
    }
    if (!v) throw py::type_error(std::string(method) + "() missing required argument '" + name + "'");
    r.values.push_back(v);
    ++i;
  }
  for (auto item : kwargs) {
    const std::string key = py::str(item.first);
    bool known = false;
    for (const char* name : names) known |= key == name;
    if (!known) throw py::type_error(std::string(method) + "() got an unexpected keyword argument '" + key + "'");
  }
  return r;
}

bool as_bool(const char* method, const py::object& v, const char* name) {
  if (!PyBool_Check(v.ptr())) {
    throw py::type_error(std::string(method) + "(): argument '" + name + "' must be bool, not " +
                         Py_TYPE(v.ptr())->tp_name);
  }
  return v.ptr() == Py_True;
}

ScalarType as_dtype(const char* method, const py::object& v, const char* name) {
  if (!is_dtype(v.ptr())) {
    throw py::type_error(std::string(method) + "(): argument '" + name + "' must be ember.dtype, not " +
                         Py_TYPE(v.ptr())->tp_name);
  }
  return unpack_dtype(v.ptr());
}

}  // namespace

void init_autocast(py::module_& m) {
  def_getter(m, "is_autocast_enabled", [] { return py::object(py::bool_(ac::is_enabled())); });
  def_setter(m, "set_autocast_enabled", [](const char* n, const py::args& a, const py::kwargs& k) {
    ac::set_enabled(bool_arg(n, a, k));
  });
  def_getter(m, "is_autocast_cpu_enabled", [] { return py::object(py::bool_(ac::is_cpu_enabled())); });
  def_setter(m, "set_autocast_cpu_enabled", [](const char* n, const py::args& a, const py::kwargs& k) {
    ac::set_cpu_enabled(bool_arg(n, a, k));
  });
  def_getter(m, "get_autocast_cpu_dtype", [] { return py::cast(ac::get_autocast_cpu_dtype()); });
  def_setter(m, "set_autocast_cpu_dtype", [](const char* n, const py::args& a, const py::kwargs& k) {
    ac::set_autocast_cpu_dtype(dtype_arg(n, a, k));
  });
  def_getter(m, "get_autocast_gpu_dtype", [] { return py::cast(ac::get_autocast_gpu_dtype()); });
  def_setter(m, "set_autocast_gpu_dtype", [](const char* n, const py::args& a, const py::kwargs& k) {
    ac::set_autocast_gpu_dtype(dtype_arg(n, a, k));
  });
  def_getter(m, "is_autocast_cache_enabled", [] { return py::object(py::bool_(ac::is_autocast_cache_enabled())); });
  def_setter(m, "set_autocast_cache_enabled", [](const char* n, const py::args& a, const py::kwargs& k) {
    ac::set_autocast_cache_enabled(bool_arg(n, a, k));
  });
  def_getter(m, "clear_autocast_cache", [] {
    ac::clear_cache();
    return py::object(py::none());
  });
  def_getter(m, "autocast_increment_nesting", [] { return py::object(py::int_(ac::increment_nesting())); });
  def_getter(m, "autocast_decrement_nesting", [] { return py::object(py::int_(ac::decrement_nesting())); });
  // The lists, for ember.amp's docs and tests: [(aten name, policy name)].
  m.def("_autocast_cpu_ops", [] {
    py::list out;
    for (const auto& [name, policy] : ac::cpu_ops()) out.append(py::make_tuple(name, ac::policy_name(policy)));
    return out;
  });

  def_overridable_method("_autocast_to_reduced_precision", [](const py::args& a, const py::kwargs& k) -> py::object {
    constexpr const char* name = "_autocast_to_reduced_precision";
    auto v = method_args(name, a, k, {"cuda_enabled", "cpu_enabled", "cuda_dtype", "cpu_dtype"});
    const Tensor& self = unpack(a[0].ptr());
    Tensor out = ac::to_reduced_precision(self, as_bool(name, v.values[0], "cuda_enabled"),
                                          as_bool(name, v.values[1], "cpu_enabled"),
                                          as_dtype(name, v.values[2], "cuda_dtype"),
                                          as_dtype(name, v.values[3], "cpu_dtype"));
    return py::reinterpret_steal<py::object>(wrap(std::move(out)));
  });
  def_overridable_method("_autocast_to_full_precision", [](const py::args& a, const py::kwargs& k) -> py::object {
    constexpr const char* name = "_autocast_to_full_precision";
    auto v = method_args(name, a, k, {"cuda_enabled", "cpu_enabled"});
    const Tensor& self = unpack(a[0].ptr());
    Tensor out = ac::to_full_precision(self, as_bool(name, v.values[0], "cuda_enabled"),
                                       as_bool(name, v.values[1], "cpu_enabled"));
    return py::reinterpret_steal<py::object>(wrap(std::move(out)));
  });
}

}  // namespace ember::python
