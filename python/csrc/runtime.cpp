// Process-wide settings exposed to Python: ember's one intra-op thread pool.
#include "common.h"
#include "ember/parallel.h"

namespace ember::python {

void init_runtime(py::module_& m) {
  m.def("set_num_threads", [](int n) {
    EMBER_CHECK(n > 0, "set_num_threads expects a positive integer, got ", n);
    set_num_threads(n);
  });
  m.def("get_num_threads", [] { return get_num_threads(); });
}

}  // namespace ember::python
