// The Tensor methods and properties that are not ops of the table: metadata (shape, dtype,
// device), the autograd flags and fields, item/tolist, and the private hooks the Python package
// builds on (_use_count, _set_python_class). Ops (add, view, sum, ...) come from ops.cpp.
//
// Each of them honours __torch_function__ as ops do (Note [Function overrides at the Python
// boundary]): a method's handler gets `ember.Tensor.<name>` and the call's arguments, a property
// get `ember.Tensor.<name>.__get__` with (self,), a set `ember.Tensor.<name>.__set__` with
// (self, value), as PyTorch's handlers see them.
#include <algorithm>

#include "common.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/node.h"
#include "torch_function.h"

namespace ember::python {

namespace {

// A handle (aliasing) to the object's tensor: methods that mutate it need a non-const one.
Tensor self_tensor(py::handle self) { return unpack(self.ptr()); }

// The overloaded arguments of a call, or nothing when it goes straight to the implementation.
bool collect(py::handle args, py::handle kwargs, std::vector<PyObject*>& out) {
  if (!torch_function_enabled()) return false;
  collect_overloaded(args.ptr(), out);
  if (kwargs && kwargs.ptr() != Py_None)
    for (auto item : py::reinterpret_borrow<py::dict>(kwargs)) collect_overloaded(item.second.ptr(), out);
  if (out.empty() && !torch_function_mode_active()) return false;
  // These methods hand `self` to the handlers even when it is a plain Tensor, as PyTorch's
  // hand-written ones do (a mode sees types=(Tensor,) for `x.dim()`, () for `x.add(1)`).
  PyObject* self = PyTuple_GET_ITEM(args.ptr(), 0);
  if (std::find(out.begin(), out.end(), self) == out.end() &&
      std::none_of(out.begin(), out.end(), [&](PyObject* o) { return Py_TYPE(o) == Py_TYPE(self); }))
    // NEP-18: after the subclasses of its type, before the rest (self is the first argument).
    out.insert(std::find_if(out.begin(), out.end(), [&](PyObject* o) {
                 return !PyType_IsSubtype(Py_TYPE(o), Py_TYPE(self));
               }),
               self);
  return true;
}

py::object dispatch(py::handle api, const std::vector<PyObject*>& overloaded, py::handle args,
                    py::handle kwargs) {
  PyObject* kw = kwargs && kwargs.ptr() != Py_None && PyDict_GET_SIZE(kwargs.ptr()) ? kwargs.ptr() : nullptr;
  PyObject* r = dispatch_torch_function(api.ptr(), overloaded, args.ptr(), kw);
  if (!r) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}

py::object tensor_base_attr(const std::string& name) {
  return py::reinterpret_borrow<py::object>(tensor_base_type()->tp_dict)[py::str(name)];
}

// A method whose calls check for overrides first; the handler's func is `Tensor.<name>`.
void add_method(const char* name, const py::cpp_function& impl_fn) {
  std::string n = name;
  py::object impl = impl_fn;  // (a captured cpp_function would be re-wrapped, not copied)
  py::cpp_function outer(
      [impl, n](py::args args, py::kwargs kwargs) -> py::object {
        std::vector<PyObject*> overloaded;
        if (collect(args, kwargs, overloaded)) {
          // Tensor.<name> on the class is this function itself (an instancemethod's __func__).
          py::object api = tensor_base_attr(n).attr("__func__");
          return dispatch(api, overloaded, args, kwargs);
        }
        return impl(*args, **kwargs);
      },
      py::name(name));
  add_tensor_method(name, outer);
}

// A property whose get and set check for overrides first (func: the property's __get__/__set__).
void add_property(const char* name, const py::cpp_function& get_fn,
                  py::object set = py::none()) {
  std::string n = name;
  py::object get = get_fn;
  py::cpp_function outer_get(
      [get, n](py::handle self) -> py::object {
        std::vector<PyObject*> overloaded;
        py::tuple args = py::make_tuple(self);
        if (collect(args, py::none(), overloaded))
          return dispatch(tensor_base_attr(n).attr("__get__"), overloaded, args, py::none());
        return get(self);
      },
      py::name(name));
  py::object outer_set = py::none();
  if (!set.is_none()) {
    outer_set = py::cpp_function(
        [set, n](py::handle self, py::handle value) {
          std::vector<PyObject*> overloaded;
          py::tuple args = py::make_tuple(self, value);
          if (collect(args, py::none(), overloaded)) {
            dispatch(tensor_base_attr(n).attr("__set__"), overloaded, args, py::none());
            return;
          }
          set(self, value);
        },
        py::name(name));
  }
  add_tensor_property(name, outer_get, outer_set);
}

}  // namespace

void init_tensor_methods(py::module_& m) {
  add_property("shape", py::cpp_function([](py::handle self) {
    return py::reinterpret_steal<py::object>(size_object(self_tensor(self).sizes()));
  }));
  add_method("size", py::cpp_function([](py::handle self, std::optional<int64_t> dim) -> py::object {
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
  add_method("stride", py::cpp_function([](py::handle self, std::optional<int64_t> dim) -> py::object {
    const Tensor& t = self_tensor(self);
    if (dim) return py::int_(t.stride(*dim));
    return py::tuple(py::cast(t.strides().vec()));
  }, py::arg("self"), py::arg("dim") = py::none()));
  add_method("dim", py::cpp_function([](py::handle self) { return self_tensor(self).dim(); }));
  add_property("ndim", py::cpp_function([](py::handle self) { return self_tensor(self).dim(); }));
  add_method("numel", py::cpp_function([](py::handle self) { return self_tensor(self).numel(); }));
  add_method("element_size", py::cpp_function([](py::handle self) { return self_tensor(self).element_size(); }));
  add_method("storage_offset", py::cpp_function([](py::handle self) { return self_tensor(self).storage_offset(); }));
  add_method("is_contiguous", py::cpp_function([](py::handle self, py::handle memory_format) {
    if (memory_format.is_none()) return self_tensor(self).is_contiguous();
    EMBER_CHECK_TYPE(is_memory_format(memory_format.ptr()), "is_contiguous(): argument 'memory_format' must be ember.memory_format, not ", Py_TYPE(memory_format.ptr())->tp_name);
    return self_tensor(self).is_contiguous(static_cast<MemoryFormat>(unpack_memory_format(memory_format.ptr())));
  }, py::arg("self"), py::kw_only(), py::arg("memory_format") = py::none()));
  add_method("is_floating_point", py::cpp_function([](py::handle self) { return self_tensor(self).is_floating_point(); }));
  add_method("data_ptr", py::cpp_function([](py::handle self) {
    return reinterpret_cast<uintptr_t>(self_tensor(self).data_ptr());
  }));
  add_property("dtype", py::cpp_function([](py::handle self) { return self_tensor(self).dtype(); }));
  add_property("device", py::cpp_function([](py::handle self) { return self_tensor(self).device(); }));
  add_property("is_meta", py::cpp_function([](py::handle self) { return self_tensor(self).is_meta(); }));
  add_property("is_cpu", py::cpp_function([](py::handle self) { return self_tensor(self).is_cpu(); }));
  add_property("is_quantized", py::cpp_function([](py::handle self) { return self_tensor(self).is_quantized(); }));
  add_property("_version", py::cpp_function([](py::handle self) { return self_tensor(self).version(); }));
  add_method("_use_count", py::cpp_function([](py::handle self) { return unpack(self.ptr()).use_count(); }));
  add_method("item", py::cpp_function([](py::handle self) -> py::object {
    EMBER_CHECK_VALUE(self_tensor(self).numel() == 1,
                      "only one element tensors can be converted to Python scalars");
    Scalar s = self_tensor(self).item();
    // A quantized tensor's value, converted as PyTorch converts it: its dtype is not a floating
    // one, so item() gives an int (0.5 -> 0); float(t) keeps 0.5.
    if (self_tensor(self).is_quantized()) return py::int_(s.to<int64_t>());
    if (s.is_bool()) return py::bool_(s.to_bool());
    if (s.is_integral()) return py::int_(s.to_int());
    if (s.is_complex()) {
      const std::complex<double> c = s.to_complex();
      return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(c.real(), c.imag()));
    }
    return py::float_(s.to_double());
  }));

  // ---- autograd ----
  add_property(
      "requires_grad", py::cpp_function([](py::handle self) { return self_tensor(self).requires_grad(); }),
      py::cpp_function([](py::handle self, bool v) {
        // The property's own text in PyTorch (requires_grad_() says "floating point dtype").
        EMBER_CHECK(!v || is_floating(self_tensor(self).dtype()) || is_complex(self_tensor(self).dtype()),
                    "only Tensors of floating point and complex dtype can require gradients");
        self_tensor(self).requires_grad_(v);
      }));
  add_method("requires_grad_", py::cpp_function([](py::handle self, bool v) {
    self_tensor(self).requires_grad_(v);
    return py::reinterpret_borrow<py::object>(self);
  }, py::arg("self"), py::arg("requires_grad") = true));
  add_property(
      "grad", py::cpp_function([](py::handle self) { return self_tensor(self).grad(); }),
      py::cpp_function([](py::handle self, py::object g) {
        self_tensor(self).set_grad(g.is_none() ? Tensor() : unpack(g.ptr()));
      }));
  add_property("is_leaf", py::cpp_function([](py::handle self) { return self_tensor(self).is_leaf(); }));
  add_property("output_nr", py::cpp_function([](py::handle self) { return self_tensor(self).output_nr(); }));
  add_property("_base", py::cpp_function([](py::handle self) { return self_tensor(self)._base(); }));
  add_method("_is_view", py::cpp_function([](py::handle self) { return self_tensor(self).is_view(); }));
  add_property(
      "data", py::cpp_function([](py::handle self) { return self_tensor(self).variable_data(); }),
      py::cpp_function([](py::handle self, py::handle other) {
        EMBER_CHECK_TYPE(is_tensor(other.ptr()), "Variable data has to be a tensor, but got ",
                         Py_TYPE(other.ptr())->tp_name);
        self_tensor(self).set_data(unpack(other.ptr()));
      }));
  add_method("retain_grad", py::cpp_function([](py::handle self) { self_tensor(self).retain_grad(); }));
  add_property("retains_grad", py::cpp_function([](py::handle self) { return self_tensor(self).retains_grad(); }));
  add_method("detach_", py::cpp_function([](py::handle self) {
    self_tensor(self).detach_();
    return py::reinterpret_borrow<py::object>(self);
  }));
  add_method("_is_parameter", py::cpp_function([](py::handle self) { return self_tensor(self).is_parameter(); }));

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
