// What a CPU-only PyTorch answers about CUDA, on tensors: `Tensor.is_cuda` is False and
// `Tensor.cuda()` raises its AssertionError ("... not compiled with CUDA enabled"), as
// `.to("cuda")` and `device="cuda"` do through parse_device (types.cpp). ember.cuda (Python)
// answers the module-level questions.
#include "tensor_api.h"

namespace ember::python {

void init_cuda(py::module_&) {
  add_tensor_property("is_cuda", py::cpp_function([](py::handle) { return false; }));
  def_overridable_method("cuda", [](const py::args&, const py::kwargs&) -> py::object { raise_no_cuda(); });
}

}  // namespace ember::python
