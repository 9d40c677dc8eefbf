// Tensor printing for Python: Tensor.__repr__'s core (the C++ printer, ember/print.h, with the
// object's class name and PyTorch's tensor_contents=) and the print options behind
// ember.set_printoptions / ember._tensor_str.get_printoptions.
#include <cmath>

#include "common.h"
#include "ember/dispatch.h"
#include "ember/print.h"

namespace ember::python {

void init_printing(py::module_& m) {
  m.def("_tensor_repr", [](py::handle self, const std::string& class_name,
                           std::optional<std::string> contents) -> py::object {
    EMBER_CHECK_TYPE(is_tensor(self.ptr()), "expected a Tensor, got ", Py_TYPE(self.ptr())->tp_name);
    const Tensor& t = unpack(self.ptr());
    if (!contents && t.impl()->subclass() && t.impl()->subclass()->is_wrapper()) {
      // A wrapper has no data of its own to print: TensorBase's repr describes it.
      PyObject* r = tensor_base_type()->tp_repr(self.ptr());
      if (!r) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(r);
    }
    if (class_name.empty() && !contents) return py::str(to_string(t));
    return py::str(to_string(t, class_name, contents));
  }, py::arg("self"), py::arg("class_name"), py::arg("tensor_contents") = py::none());

  m.def("_set_printoptions", &set_printoptions, py::arg("precision") = py::none(),
        py::arg("threshold") = py::none(), py::arg("edgeitems") = py::none(),
        py::arg("linewidth") = py::none(), py::arg("profile") = py::none(),
        py::arg("sci_mode") = py::none());
  m.def("_get_printoptions", []() {
    const PrintOptions& o = print_options();
    py::dict d;
    d["precision"] = o.precision;
    // An integral threshold reads back as the int it was set as; infinity as float('inf').
    if (std::isfinite(o.threshold) && o.threshold == std::floor(o.threshold))
      d["threshold"] = static_cast<int64_t>(o.threshold);
    else
      d["threshold"] = o.threshold;
    d["edgeitems"] = o.edgeitems;
    d["linewidth"] = o.linewidth;
    d["sci_mode"] = o.sci_mode ? py::object(py::bool_(*o.sci_mode)) : py::object(py::none());
    return d;
  });
}

}  // namespace ember::python
