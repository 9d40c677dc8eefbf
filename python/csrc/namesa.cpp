// Tensor facts the Python front end reads and the op table has no row for (python/ember/_namesa.py):
// the TensorImpl's address (Tensor._cdata) and is_set_to (same storage, offset, sizes and strides).
#include "common.h"

#include "ember/storage.h"
#include "ember/tensor_impl.h"

namespace ember::python {

void init_namesa(py::module_& m) {
  m.def("_tensor_cdata", [](py::handle t) {
    return reinterpret_cast<intptr_t>(unpack(t.ptr()).impl());
  });
  m.def("_is_set_to", [](py::handle a_, py::handle b_) {
    const Tensor& a = unpack(a_.ptr());
    const Tensor& b = unpack(b_.ptr());
    return a.impl()->storage().get() == b.impl()->storage().get() && a.storage_offset() == b.storage_offset() &&
           a.sizes().equals(b.sizes()) && a.strides().equals(b.strides());
  });
}

}  // namespace ember::python
