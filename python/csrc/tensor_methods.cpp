// The Tensor methods and properties that are not ops of the table: metadata (shape, dtype,
// device), the autograd flags and fields, item/tolist, and the private hooks the Python package
// builds on (_use_count, _set_python_class). Ops (add, view, sum, ...) come from ops.cpp.
#include "common.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/node.h"

namespace ember::python {

namespace {

// A handle (aliasing) to the object's tensor: methods that mutate it need a non-const one.
Tensor self_tensor(py::handle self) { return unpack(self.ptr()); }

}  // namespace

void init_tensor_methods(py::module_& m) {
  add_tensor_property("shape", py::cpp_function([](py::handle self) {
    return py::reinterpret_steal<py::object>(size_object(self_tensor(self).sizes()));
  }));
  add_tensor_method("size", py::cpp_function([](py::handle self, std::optional<int64_t> dim) -> py::object {
    const Tensor& t = self_tensor(self);
    if (dim) {
      int64_t n = t.dim();
      EMBER_CHECK_INDEX(n > 0 ? (*dim >= -n && *dim < n) : (*dim >= -1 && *dim <= 0),
                        "Dimension out of range (expected to be in range of [", n > 0 ? -n : -1,
                        ", ", n > 0 ? n - 1 : 0, "], but got ", *dim, ")");
      return py::int_(n == 0 ? 1 : t.size(*dim));
    }
    return py::reinterpret_steal<py::object>(size_object(t.sizes()));
  }, py::arg("self"), py::arg("dim") = py::none()));
  add_tensor_method("stride", py::cpp_function([](py::handle self, std::optional<int64_t> dim) -> py::object {
    const Tensor& t = self_tensor(self);
    if (dim) return py::int_(t.stride(*dim));
    return py::tuple(py::cast(t.strides().vec()));
  }, py::arg("self"), py::arg("dim") = py::none()));
  add_tensor_method("dim", py::cpp_function([](py::handle self) { return self_tensor(self).dim(); }));
  add_tensor_property("ndim", py::cpp_function([](py::handle self) { return self_tensor(self).dim(); }));
  add_tensor_method("numel", py::cpp_function([](py::handle self) { return self_tensor(self).numel(); }));
  add_tensor_method("element_size", py::cpp_function([](py::handle self) { return self_tensor(self).element_size(); }));
  add_tensor_method("storage_offset", py::cpp_function([](py::handle self) { return self_tensor(self).storage_offset(); }));
  add_tensor_method("is_contiguous", py::cpp_function([](py::handle self) { return self_tensor(self).is_contiguous(); }));
  add_tensor_method("is_floating_point", py::cpp_function([](py::handle self) { return self_tensor(self).is_floating_point(); }));
  add_tensor_method("data_ptr", py::cpp_function([](py::handle self) {
    return reinterpret_cast<uintptr_t>(self_tensor(self).data_ptr());
  }));
  add_tensor_property("dtype", py::cpp_function([](py::handle self) { return self_tensor(self).dtype(); }));
  add_tensor_property("device", py::cpp_function([](py::handle self) { return self_tensor(self).device(); }));
  add_tensor_property("is_meta", py::cpp_function([](py::handle self) { return self_tensor(self).is_meta(); }));
  add_tensor_property("is_cpu", py::cpp_function([](py::handle self) { return self_tensor(self).is_cpu(); }));
  add_tensor_property("is_quantized", py::cpp_function([](py::handle self) { return self_tensor(self).is_quantized(); }));
  add_tensor_property("_version", py::cpp_function([](py::handle self) { return self_tensor(self).version(); }));
  add_tensor_method("_use_count", py::cpp_function([](py::handle self) { return unpack(self.ptr()).use_count(); }));
  add_tensor_method("item", py::cpp_function([](py::handle self) -> py::object {
    Scalar s = self_tensor(self).item();
    if (s.is_bool()) return py::bool_(s.to_bool());
    if (s.is_integral()) return py::int_(s.to_int());
    return py::float_(s.to_double());
  }));

  // ---- autograd ----
  add_tensor_property(
      "requires_grad", py::cpp_function([](py::handle self) { return self_tensor(self).requires_grad(); }),
      py::cpp_function([](py::handle self, bool v) { self_tensor(self).requires_grad_(v); }));
  add_tensor_method("requires_grad_", py::cpp_function([](py::handle self, bool v) {
    self_tensor(self).requires_grad_(v);
    return py::reinterpret_borrow<py::object>(self);
  }, py::arg("self"), py::arg("requires_grad") = true));
  add_tensor_property(
      "grad", py::cpp_function([](py::handle self) { return self_tensor(self).grad(); }),
      py::cpp_function([](py::handle self, py::object g) {
        self_tensor(self).set_grad(g.is_none() ? Tensor() : unpack(g.ptr()));
      }));
  add_tensor_property("is_leaf", py::cpp_function([](py::handle self) { return self_tensor(self).is_leaf(); }));
  add_tensor_property("output_nr", py::cpp_function([](py::handle self) { return self_tensor(self).output_nr(); }));
  add_tensor_property("_base", py::cpp_function([](py::handle self) { return self_tensor(self)._base(); }));
  add_tensor_method("_is_view", py::cpp_function([](py::handle self) { return self_tensor(self).is_view(); }));
  add_tensor_property(
      "data", py::cpp_function([](py::handle self) { return self_tensor(self).variable_data(); }),
      py::cpp_function([](py::handle self, py::handle other) {
        EMBER_CHECK_TYPE(is_tensor(other.ptr()), "data must be a Tensor, not ",
                         Py_TYPE(other.ptr())->tp_name);
        self_tensor(self).set_data(unpack(other.ptr()));
      }));
  add_tensor_method("retain_grad", py::cpp_function([](py::handle self) { self_tensor(self).retain_grad(); }));
  add_tensor_property("retains_grad", py::cpp_function([](py::handle self) { return self_tensor(self).retains_grad(); }));
  add_tensor_method("detach_", py::cpp_function([](py::handle self) {
    self_tensor(self).detach_();
    return py::reinterpret_borrow<py::object>(self);
  }));
  add_tensor_method("_is_parameter", py::cpp_function([](py::handle self) { return self_tensor(self).is_parameter(); }));

  m.def("_tensor_from_base", [](py::handle cls, py::handle data) {
    // Tensor._make_subclass's core: a new object of `cls` over data.detach().
    EMBER_CHECK_TYPE(is_tensor(data.ptr()), "expected a Tensor, got ", Py_TYPE(data.ptr())->tp_name);
    EMBER_CHECK(PyType_Check(cls.ptr()) &&
                    PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()), tensor_base_type()),
                "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                "possible. Make sure your class inherits from Tensor.");
    return py::reinterpret_steal<py::object>(
        wrap_as(reinterpret_cast<PyTypeObject*>(cls.ptr()), unpack(data.ptr()).detach()));
  });
}

}  // namespace ember::python
