// Grad mode as Python sees it: the raw switches that ember.no_grad / enable_grad /
// set_grad_enabled (ember/_grad_mode.py) are built on. (The generators are in generator.cpp.)
#include "ember/grad_mode.h"
#include "tensor_api.h"

namespace ember::python {

void init_grad_mode(py::module_& m) {
  m.def("is_grad_enabled", []() { return GradMode::is_enabled(); });
  m.def("_set_grad_enabled", [](bool enabled) { GradMode::set_enabled(enabled); }, py::arg("mode"));
}

}  // namespace ember::python
