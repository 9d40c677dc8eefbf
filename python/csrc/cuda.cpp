// What a CPU-only PyTorch answers about CUDA, on tensors: `Tensor.is_cuda` is False and
// `Tensor.cuda()` raises its AssertionError ("... not compiled with CUDA enabled"), as
// `.to("cuda")` and `device="cuda"` do through parse_device (types.cpp); no tensor is pinned and
// pinning raises its RuntimeError (NotImplementedError for Tensor.pin_memory()). ember.cuda (Python) answers the module-level questions.
#include "tensor_api.h"

namespace ember::python {

void refuse_pinned_memory() {
  EMBER_FAIL("Pinned memory requires CUDA. ember has no CUDA device (its devices are cpu and "
             "meta), so a tensor cannot be pinned");
}

void init_cuda(py::module_&) {
  add_tensor_property("is_cuda", py::cpp_function([](py::handle) { return false; }));
  def_overridable_method("cuda", [](const py::args&, const py::kwargs&) -> py::object { raise_no_cuda(); });
  // is_pinned(device=None) / pin_memory(device=None), device as torch takes it.
  def_overridable_method("is_pinned", [](const py::args&, const py::kwargs&) -> py::object {
    return py::bool_(false);
  });
  // torch's Tensor.pin_memory() finds no kernel for the CUDA backend it pins for.
  def_overridable_method("pin_memory", [](const py::args&, const py::kwargs&) -> py::object {
    EMBER_FAIL_KIND(ErrorKind::NotImplemented,
                    "Could not run 'aten::_pin_memory' with arguments from the 'CUDA' backend. "
                    "Pinned memory requires CUDA, and ember has no CUDA device (its devices are "
                    "cpu and meta)");
  });
}

}  // namespace ember::python
