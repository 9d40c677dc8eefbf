// Process-wide settings exposed to Python (ember's one intra-op thread pool, the deterministic
// algorithms flag), and the C++
// functions that return Python bools rather than tensors (ember/_predicates.py wraps them).
#include "common.h"
#include "ember/deterministic.h"
#include "ember/ops/pointwise.h"
#include "ember/parallel.h"

namespace ember::python {

void init_runtime(py::module_& m) {
  m.def("set_num_threads", [](int n) {
    EMBER_CHECK(n > 0, "set_num_threads expects a positive integer, got ", n);
    set_num_threads(n);
  });
  m.def("get_num_threads", [] { return get_num_threads(); });
  // torch._C._set_deterministic_algorithms: the mode must be a bool (not 0 / 1), as torch's
  // argument parser requires.
  m.def(
      "_set_deterministic_algorithms",
      [](py::handle mode, py::handle warn_only) {
        EMBER_CHECK_TYPE(PyBool_Check(mode.ptr()),
                         "_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                         "bool, not ",
                         Py_TYPE(mode.ptr())->tp_name);
        EMBER_CHECK_TYPE(PyBool_Check(warn_only.ptr()),
                         "_set_deterministic_algorithms(): argument 'warn_only' must be bool, not ",
                         Py_TYPE(warn_only.ptr())->tp_name);
        use_deterministic_algorithms(mode.ptr() == Py_True, warn_only.ptr() == Py_True);
      },
      py::arg("mode"), py::kw_only(), py::arg("warn_only") = false);
  m.def("_get_deterministic_algorithms", [] { return deterministic_algorithms_enabled(); });
  m.def("_get_deterministic_algorithms_warn_only",
        [] { return deterministic_algorithms_warn_only(); });
  m.def("_allclose", [](const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
    return allclose(a, b, rtol, atol, equal_nan);
  });
  m.def("_equal", [](const Tensor& a, const Tensor& b) { return equal(a, b); });
}

}  // namespace ember::python
