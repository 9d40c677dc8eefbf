// ember.utils.swap_tensors's C++ part and the ember.__future__ flags.
//
// A swap exchanges what two Python tensor objects hold while each keeps its identity. The impl
// part (storage, geometry, autograd state, subclass hooks) is C++'s utils::swap_tensors, which
// Module._apply and load_state_dict also call on parameters they convert; the Python part
// (__class__, __dict__, slots: a wrapper subclass's `elem` lives there) must move with it on
// every such path, so it is the hook utils::swap_tensors calls before the contents move, not a
// step of the Python function. The Python function (ember/utils/__init__.py) adds Python's own
// checks (weakrefs, slots) before calling in.
#include "torch_function.h"

#include "ember/nn/module.h"
#include "ember/swap_tensors.h"

namespace ember::python {

namespace {

py::object slot_names(py::handle cls) {
  return py::module_::import("copyreg").attr("_slotnames")(cls);
}

// Swaps the Python-level state of the two tensors' objects (the impls' contents follow in C++).
// An impl without a Python object has no Python state to exchange.
void swap_python_objects(const Tensor& t1, const Tensor& t2) {
  if (!t1.impl()->pyobj() || !t2.impl()->pyobj()) return;
  py::gil_scoped_acquire gil;
  py::handle o1(static_cast<PyObject*>(t1.impl()->pyobj()));
  py::handle o2(static_cast<PyObject*>(t2.impl()->pyobj()));
  py::object c1 = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(Py_TYPE(o1.ptr())));
  py::object c2 = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(Py_TYPE(o2.ptr())));
  // Slot values are read through each object's own class, before the classes change.
  py::list names = slot_names(c1);
  std::vector<std::pair<py::object, py::object>> values;  // (o1's, o2's); null = unset
  for (auto name : names) {
    py::str n = py::reinterpret_borrow<py::str>(name);
    py::object v1 = py::hasattr(o1, n) ? o1.attr(n) : py::object();
    py::object v2 = py::hasattr(o2, n) ? o2.attr(n) : py::object();
    values.emplace_back(v1, v2);
  }
  if (c1.ptr() != c2.ptr()) {
    o1.attr("__class__") = c2;
    try {
      o2.attr("__class__") = c1;
    } catch (...) {
      o1.attr("__class__") = c1;
      throw;
    }
  }
  py::object d1 = o1.attr("__dict__");
  py::object d2 = o2.attr("__dict__");
  o1.attr("__dict__") = d2;
  o2.attr("__dict__") = d1;
  size_t i = 0;
  for (auto name : names) {
    py::str n = py::reinterpret_borrow<py::str>(name);
    auto& [v1, v2] = values[i++];
    if (v2) o1.attr(n) = v2;
    else if (py::hasattr(o1, n)) py::delattr(o1, n);
    if (v1) o2.attr(n) = v1;
    else if (py::hasattr(o2, n)) py::delattr(o2, n);
  }
}

}  // namespace

void init_swap(py::module_& m) {
  utils::python_swap_hook = swap_python_objects;
  m.def("_swap_tensors", [](py::handle t1, py::handle t2) {
    EMBER_CHECK_TYPE(is_tensor(t1.ptr()) && is_tensor(t2.ptr()),
                     "swap_tensors: both arguments must be Tensors, got ",
                     Py_TYPE(t1.ptr())->tp_name, " and ", Py_TYPE(t2.ptr())->tp_name);
    utils::swap_tensors(unpack(t1.ptr()), unpack(t2.ptr()));
  });
  m.def("_set_overwrite_module_params_on_conversion",
        [](bool v) { nn::set_overwrite_module_params_on_conversion(v); });
  m.def("_get_overwrite_module_params_on_conversion",
        [] { return nn::get_overwrite_module_params_on_conversion(); });
  m.def("_set_swap_module_params_on_conversion",
        [](bool v) { nn::set_swap_module_params_on_conversion(v); });
  m.def("_get_swap_module_params_on_conversion",
        [] { return nn::get_swap_module_params_on_conversion(); });
}

}  // namespace ember::python
