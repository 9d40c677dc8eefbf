// Grad mode and the random generator as Python sees them: the raw switches that ember.no_grad /
// enable_grad / set_grad_enabled (ember/_grad_mode.py) are built on, and ember.manual_seed over
// the C++ default generator.
//
// Only the default generator is bound: ops take it implicitly (boxed calls carry no generator),
// so a free-standing Python Generator could not reach them. `ember.Generator` is its type, without
// a constructor.
#include <random>

#include "ember/generator.h"
#include "ember/grad_mode.h"
#include "tensor_api.h"

namespace ember::python {

namespace {

struct DefaultGenerator {};  // the Python face of ember::default_generator()

// A seed as PyTorch takes it: any Python int in [-2**63, 2**64), negatives wrapping around.
uint64_t unpack_seed(py::handle seed) {
  py::object as_int = py::reinterpret_steal<py::object>(PyNumber_Long(seed.ptr()));
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

uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace

void init_grad_mode(py::module_& m) {
  m.def("is_grad_enabled", []() { return GradMode::is_enabled(); });
  m.def("_set_grad_enabled", [](bool enabled) { GradMode::set_enabled(enabled); }, py::arg("mode"));

  auto gen = py::class_<DefaultGenerator>(m, "Generator")
      .def("manual_seed", [](py::object self, py::handle seed) {
        default_generator().manual_seed(unpack_seed(seed));
        return self;
      }, py::arg("seed"))
      .def("initial_seed", [](const DefaultGenerator&) { return default_generator().initial_seed(); })
      .def("seed", [](const DefaultGenerator&) {
        uint64_t s = fresh_seed();
        default_generator().manual_seed(s);
        return s;
      })
      .def_property_readonly("device", [](const DefaultGenerator&) { return Device(kCPU); });
  py::object default_gen = py::cast(DefaultGenerator{});
  m.attr("default_generator") = default_gen;
  m.def("manual_seed", [default_gen](py::handle seed) {
    default_generator().manual_seed(unpack_seed(seed));
    return default_gen;
  }, py::arg("seed"));
  m.def("initial_seed", []() { return default_generator().initial_seed(); });
  m.def("seed", []() {
    uint64_t s = fresh_seed();
    default_generator().manual_seed(s);
    return s;
  });
}

}  // namespace ember::python
