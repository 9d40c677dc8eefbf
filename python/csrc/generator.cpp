// ember.Generator: the C++ ember::Generator as a Python object (torch.Generator's methods), and
// ember.default_generator, the object of ember::default_generator().
//
// Python owns the generators it constructs (a shared_ptr holder); the default generator's object
// holds it without owning it. Ops receive the generator as a borrowed `Generator*` inside their
// boxed arguments (ember::Value), and an override handler that is given one gets back the very
// Python object (pybind11 finds the instance registered for that pointer), so
// `generator is ember.default_generator` holds in a __torch_dispatch__ handler too.
#include "ember/generator.h"

#include "common.h"

namespace ember::python {

namespace {

// A seed as PyTorch's Generator.manual_seed takes it: an int (or numpy integer), not a bool, a
// float or a tensor, in [-2**63, 2**64); negatives wrap around.
uint64_t unpack_seed(py::handle seed) {
  PyObject* obj = seed.ptr();
  const bool int_like = !PyBool_Check(obj) && !is_tensor(obj) &&
                        (PyLong_Check(obj) || (PyIndex_Check(obj) && !PyFloat_Check(obj)));
  EMBER_CHECK(int_like, "manual_seed expected a long, but got ", Py_TYPE(obj)->tp_name);
  py::object as_int = py::reinterpret_steal<py::object>(PyNumber_Index(obj));
  if (!as_int) throw py::error_already_set();
  unsigned long long v = PyLong_AsUnsignedLongLong(as_int.ptr());
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    int overflow = 0;
    long long s = PyLong_AsLongLongAndOverflow(as_int.ptr(), &overflow);
    EMBER_CHECK(!overflow && !(s == -1 && PyErr_Occurred()), "Overflow when unpacking long");
    v = static_cast<unsigned long long>(s);
  }
  return v;
}

// torch.Generator(device): only the CPU has generators. Devices PyTorch knows but ember cannot
// hold data on are refused with PyTorch's text.
void check_generator_device(py::handle device) {
  if (device.is_none()) return;
  std::string type;
  if (PyLong_Check(device.ptr()) && !PyBool_Check(device.ptr())) {
    type = "cuda";  // an int is a CUDA device index, as in PyTorch
  } else {
    py::object parsed = py::module_::import("ember").attr("device")(device);
    type = py::str(parsed.attr("type"));
  }
  if (type == "cpu") return;
  for (auto& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EMBER_FAIL("Device type ", type, " is not supported for ember.Generator() api.");
}

Tensor unpack_state(py::handle state) {
  EMBER_CHECK_TYPE(is_tensor(state.ptr()), "expected a ember.ByteTensor, but got ",
                   Py_TYPE(state.ptr())->tp_name);
  return unpack(state.ptr());
}

PyTypeObject* g_generator_type = nullptr;

}  // namespace

Generator* unpack_generator(PyObject* obj) {
  if (!g_generator_type || !PyObject_TypeCheck(obj, g_generator_type)) return nullptr;
  return py::handle(obj).cast<Generator*>();
}

py::object generator_object(Generator* g) {
  if (!g) return py::none();
  return py::cast(g, py::return_value_policy::reference);
}

void init_generator(py::module_& m) {
  auto cls = py::class_<Generator, std::shared_ptr<Generator>>(m, "Generator")
      .def(py::init([](py::object device) {
             check_generator_device(device);
             return std::make_shared<Generator>();
           }),
           py::arg("device") = py::none())
      .def("manual_seed", [](py::object self, py::handle seed) {
        self.cast<Generator&>().manual_seed(unpack_seed(seed));
        return self;
      }, py::arg("seed"))
      .def("initial_seed", &Generator::initial_seed)
      .def("seed", &Generator::seed)
      .def("get_state", &Generator::get_state)
      .def("set_state", [](py::object self, py::handle state) {
        self.cast<Generator&>().set_state(unpack_state(state));
        return self;
      }, py::arg("new_state"))
      .def_property_readonly("device", [](const Generator& g) { return g.device(); })
      .def("__reduce__", [](py::handle self) -> py::object {
        EMBER_FAIL_KIND(ErrorKind::Type, "cannot pickle '", Py_TYPE(self.ptr())->tp_name, "' object");
      });
  g_generator_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  // The default generator lives as long as the process: its object does not own it.
  m.attr("default_generator") = py::cast(std::shared_ptr<Generator>(&default_generator(), [](Generator*) {}));
}

}  // namespace ember::python
