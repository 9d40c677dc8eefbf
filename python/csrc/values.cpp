// Boxed values (ember::Value) as Python objects: what ops return to Python and what override
// handlers receive.
#include <cstdio>

#include "common.h"

namespace ember::python {

namespace {

// Note [Python objects in Values]: state_dict entries and metadata are Values while C++ runs the
// state_dict algorithm, but a Python module's extra state (get_extra_state) or a hook's entry may
// be any object. It travels as this holder and comes back out unchanged, never converted.
class PyObjectHolder final : public CustomClassHolder {
 public:
  explicit PyObjectHolder(py::handle obj) : obj_(py::reinterpret_borrow<py::object>(obj)) {}
  ~PyObjectHolder() override {
    py::gil_scoped_acquire gil;  // the last Value may die in C++ without the GIL
    obj_ = py::object();
  }
  const char* class_name() const override { return "object"; }
  const py::object& object() const { return obj_; }

 private:
  py::object obj_;
};

}  // namespace

Value opaque_py_value(py::handle obj) {
  return Value(intrusive_ptr<CustomClassHolder>(make_intrusive<PyObjectHolder>(obj)));
}

py::object value_to_py(const Value& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return py::none();
        } else if constexpr (std::is_same_v<T, Tensor>) {
          return py::reinterpret_steal<py::object>(wrap(x));
        } else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
          py::tuple t(x.size());  // PyTorch returns Tensor[] results as tuples
          for (size_t i = 0; i < x.size(); ++i)
            t[i] = py::reinterpret_steal<py::object>(wrap(x[i]));
          return t;
        } else if constexpr (std::is_same_v<T, Value::OptionalTensorList>) {
          py::list l;
          for (const auto& t : x) {
            if (t) l.append(py::reinterpret_steal<py::object>(wrap(*t)));
            else l.append(py::none());
          }
          return l;
        } else if constexpr (std::is_same_v<T, ScalarType>) {
          return py::reinterpret_borrow<py::object>(dtype_object(x));
        } else if constexpr (std::is_same_v<T, Device>) {
          return py::reinterpret_steal<py::object>(device_object(x));
        } else if constexpr (std::is_same_v<T, Generator*>) {
          return generator_object(x);
        } else if constexpr (std::is_same_v<T, intrusive_ptr<CustomClassHolder>>) {
          if (const auto* held = dynamic_cast<const PyObjectHolder*>(x.get())) return held->object();
          return object_to_py(x);
        } else if constexpr (std::is_same_v<T, std::complex<double>>) {
          return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(x.real(), x.imag()));
        } else {
          return py::cast(x);  // int, float, bool, str, lists of numbers
        }
      },
      v.storage());
}

// Note [Objects across the boundary]
// An object of a C++ class (CustomClassHolder: packed weights) is an `ember.ScriptObject` in
// Python, as PyTorch's custom classes are torch.ScriptObject instances: a pybind11 instance that
// holds a reference (intrusive_ptr). pybind11 keeps a registry of live instances by C++ address,
// so while the Python object lives, every crossing of the same C++ object (an op's result, a
// __torch_dispatch__ argument, a module attribute) gives back that very object, and `is` holds.
// The Python object keeps no state of its own (no __dict__), so when only C++ holds the object
// a later crossing may make a new Python object without anything being lost. Each class binds
// as a subclass of ScriptObject with its methods (python/csrc/quantized_ops_conv.cpp).
bool is_script_object(PyObject* obj) { return py::isinstance<CustomClassHolder>(obj); }

intrusive_ptr<CustomClassHolder> unpack_object(PyObject* obj) {
  return intrusive_ptr<CustomClassHolder>(py::handle(obj).cast<CustomClassHolder*>());
}

py::object object_to_py(const intrusive_ptr<CustomClassHolder>& obj) {
  // take_ownership: a new instance adopts the object into its intrusive holder (a reference,
  // never a copy); an existing instance is returned as it is (the polymorphic type hook finds
  // the most derived bound class, the registry the instance).
  return py::cast(obj.get(), py::return_value_policy::take_ownership);
}

void init_script_object(py::module_& m) {
  py::class_<CustomClassHolder, intrusive_ptr<CustomClassHolder>> cls(m, "ScriptObject");
  cls.attr("__module__") = "ember";  // ember.ScriptObject, as torch.ScriptObject
  cls
      .def("__repr__",
           [](py::handle self) {
             char buf[64];
             std::snprintf(buf, sizeof buf, "<ember.ScriptObject object at %p>",
                           static_cast<void*>(self.ptr()));
             return std::string(buf);
           })
      .def("_type_name", [](const CustomClassHolder& self) { return std::string(self.class_name()); });
}

}  // namespace ember::python
