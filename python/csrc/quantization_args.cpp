// quantization_args.h's helpers.
#include "quantization_args.h"

namespace ember::python {

std::vector<py::object> bind_args(const std::string& qualname, const py::args& args,
                                  const py::kwargs& kwargs, const std::vector<Param>& params,
                                  py::dict* extra) {
  const size_t n = params.size();
  if (args.size() > n) {
    size_t required = 0;
    for (const auto& p : params) required += p.default_value ? 0 : 1;
    const std::string takes = required == n ? std::to_string(n + 1)
                                            : "from " + std::to_string(required + 1) + " to " + std::to_string(n + 1);
    throw py::type_error(qualname + "() takes " + takes + " positional arguments but " +
                         std::to_string(args.size() + 1) + " were given");
  }
  std::vector<py::object> out(n);
  for (size_t i = 0; i < args.size(); ++i) out[i] = py::reinterpret_borrow<py::object>(args[i]);
  for (auto item : kwargs) {
    const auto key = item.first.cast<std::string>();
    size_t i = 0;
    while (i < n && key != params[i].name) ++i;
    if (i == n) {
      if (!extra) throw py::type_error(qualname + "() got an unexpected keyword argument '" + key + "'");
      (*extra)[item.first] = item.second;
      continue;
    }
    if (out[i]) throw py::type_error(qualname + "() got multiple values for argument '" + key + "'");
    out[i] = py::reinterpret_borrow<py::object>(item.second);
  }
  std::vector<std::string> missing;
  for (size_t i = 0; i < n; ++i) {
    if (out[i]) continue;
    if (params[i].default_value) {
      out[i] = params[i].default_value;
    } else {
      missing.emplace_back(params[i].name);
    }
  }
  if (!missing.empty()) {
    std::string list;
    for (size_t i = 0; i < missing.size(); ++i) {
      if (i > 0) list += missing.size() == 2 ? " and " : (i + 1 == missing.size() ? ", and " : ", ");
      list += "'" + missing[i] + "'";
    }
    throw py::type_error(qualname + "() missing " + std::to_string(missing.size()) + " required positional argument" +
                         (missing.size() == 1 ? "" : "s") + ": " + list);
  }
  return out;
}

bool truthy(py::handle o) {
  const int r = PyObject_IsTrue(o.ptr());
  if (r < 0) throw py::error_already_set();
  return r == 1;
}

std::optional<int64_t> opt_int(py::handle o) {
  if (o.is_none()) return std::nullopt;
  return o.cast<int64_t>();
}

QScheme to_qscheme(py::handle o) {
  EMBER_CHECK_TYPE(is_qscheme(o.ptr()), "expected an ember.qscheme, got ", Py_TYPE(o.ptr())->tp_name);
  return static_cast<QScheme>(unpack_qscheme(o.ptr()));
}

py::object qscheme_to_py(QScheme q) {
  return py::reinterpret_steal<py::object>(qscheme_object(static_cast<int64_t>(q)));
}

double to_double(py::handle o) {
  if (is_tensor(o.ptr())) return unpack(o.ptr()).item<double>();
  return o.cast<double>();
}

void raise_assertion(const std::string& msg) {
  PyErr_SetString(PyExc_AssertionError, msg.c_str());
  throw py::error_already_set();
}

}  // namespace ember::python
