// Process-wide settings exposed to Python (ember's one intra-op thread pool), and the C++
// functions that return Python bools rather than tensors (ember/_predicates.py wraps them).
#include "common.h"
#include "ember/ops/pointwise.h"
#include "ember/parallel.h"

namespace ember::python {

void init_runtime(py::module_& m) {
  m.def("set_num_threads", [](int n) {
    EMBER_CHECK(n > 0, "set_num_threads expects a positive integer, got ", n);
    set_num_threads(n);
  });
  m.def("get_num_threads", [] { return get_num_threads(); });
  m.def("_allclose", [](const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
    return allclose(a, b, rtol, atol, equal_nan);
  });
  m.def("_equal", [](const Tensor& a, const Tensor& b) { return equal(a, b); });
}

}  // namespace ember::python
