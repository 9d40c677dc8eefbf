// Shared memory as Python sees it: Tensor.share_memory_() / Tensor.is_shared(), and the private
// pieces ember.multiprocessing's reducers are built on (Note [Shared memory segments] in
// ember/shared_memory.h). A tensor crosses processes as (fd of its storage's segment, bytes,
// geometry); the receiver maps the segment once and builds views over it.
#include <unistd.h>

#include "common.h"
#include "ember/ops/index_ops.h"
#include "ember/shared_memory.h"
#include "ember/tensor_impl.h"
#include "torch_function.h"

namespace ember::python {

namespace {

// A unary Tensor method that honours __torch_function__ as torch/_tensor.py's do
// (has_torch_function_unary → handle_torch_function(Tensor.<name>, (self,), self)).
void add_unary_method(const char* name, py::cpp_function impl_fn) {
  std::string n = name;
  py::object impl = impl_fn;
  py::cpp_function outer(
      [impl, n](py::handle self) -> py::object {
        if (torch_function_enabled() && (is_overloaded(self.ptr()) || torch_function_mode_active())) {
          std::vector<PyObject*> overloaded;
          collect_overloaded(self.ptr(), overloaded);
          py::object api = py::reinterpret_borrow<py::object>(tensor_base_type()->tp_dict)[py::str(n)]
                               .attr("__func__");
          py::tuple args = py::make_tuple(self);
          PyObject* r = dispatch_torch_function(api.ptr(), overloaded, args.ptr(), nullptr);
          if (!r) throw py::error_already_set();
          return py::reinterpret_steal<py::object>(r);
        }
        return impl(self);
      },
      py::name(name));
  add_tensor_method(name, outer);
}

const Tensor& checked_tensor(py::handle obj, const char* what) {
  EMBER_CHECK_TYPE(is_tensor(obj.ptr()), what, ": expected a Tensor, got ", Py_TYPE(obj.ptr())->tp_name);
  return unpack(obj.ptr());
}

}  // namespace

void init_shared_memory(py::module_& m) {
  add_unary_method("share_memory_", py::cpp_function([](py::handle self) {
    shared_memory::share_(unpack(self.ptr()));
    return py::reinterpret_borrow<py::object>(self);
  }));
  add_unary_method("is_shared", py::cpp_function([](py::handle self) {
    const Tensor& t = unpack(self.ptr());
    return !t.is_meta() && shared_memory::is_shared(*t.impl()->storage());
  }));

  // (fd, nbytes) of the tensor's storage, moved into shared memory first (as PyTorch's reducer
  // does with _share_fd_cpu_). The fd stays owned by the storage: senders dup it.
  m.def("_share_fd_cpu", [](py::handle obj) {
    const Tensor& t = checked_tensor(obj, "_share_fd_cpu");
    shared_memory::share_(t);
    const Storage& s = *t.impl()->storage();
    return py::make_tuple(shared_memory::fd_of(s), s.nbytes());
  });
  // A 1-d uint8 tensor over a received segment (takes ownership of fd).
  m.def("_new_shared_fd_cpu", [](int fd, size_t nbytes) {
    auto storage = shared_memory::map_fd(fd, nbytes);
    const int64_t n = static_cast<int64_t>(nbytes);
    return Tensor(make_intrusive<TensorImpl>(std::move(storage), kUInt8, IntArrayRef{n},
                                             IntArrayRef{1}, 0));
  }, py::arg("fd"), py::arg("nbytes"));
  m.def("_empty_shared", [](std::vector<int64_t> sizes, ScalarType dtype) {
    return shared_memory::empty_shared(sizes, dtype);
  }, py::arg("size"), py::arg("dtype"));
  // A tensor of the given geometry over `base`'s storage (PyTorch's _rebuild_tensor over a
  // storage); the geometry is checked against the storage's size.
  m.def("_tensor_over_storage", [](py::handle base_obj, ScalarType dtype, std::vector<int64_t> sizes,
                                   std::vector<int64_t> strides, int64_t offset) {
    const Tensor& base = checked_tensor(base_obj, "_tensor_over_storage");
    EMBER_CHECK_VALUE(sizes.size() == strides.size(), "_tensor_over_storage: ", sizes.size(),
                      " sizes but ", strides.size(), " strides");
    EMBER_CHECK_VALUE(offset >= 0, "_tensor_over_storage: negative storage offset ", offset);
    const auto& storage = base.impl()->storage();
    const int64_t need = storage_nbytes(sizes, strides, element_size(dtype), offset);
    EMBER_CHECK(static_cast<size_t>(need) <= storage->nbytes(), "setStorage: sizes ",
                IntArrayRef(sizes), ", strides ", IntArrayRef(strides), ", storage offset ", offset,
                ", and itemsize ", element_size(dtype), " requiring a storage size of ", need,
                " are out of bounds for storage of size ", storage->nbytes());
    return Tensor(make_intrusive<TensorImpl>(storage, dtype, sizes, strides, offset));
  });
  // stack(tensors, 0) into a new shared segment: a DataLoader worker's default_collate, so the
  // batch leaves the worker as a file descriptor. Mixed dtypes or sizes go through stack itself
  // (its type promotion, its size error), then move into shared memory.
  m.def("_stack_shared", [](std::vector<Tensor> tensors) {
    EMBER_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
    const Tensor& first = tensors.front();
    bool uniform = !first.is_meta();
    for (const Tensor& t : tensors)
      uniform = uniform && t.dtype() == first.dtype() && t.sizes() == first.sizes() && !t.is_meta() &&
                !t.requires_grad();
    if (!uniform) {
      Tensor out = stack(tensors, 0);
      shared_memory::share_(out);
      return out;
    }
    std::vector<int64_t> sizes{static_cast<int64_t>(tensors.size())};
    for (int64_t s : first.sizes()) sizes.push_back(s);
    Tensor out = shared_memory::empty_shared(sizes, first.dtype());
    for (size_t i = 0; i < tensors.size(); ++i) {
      Tensor row = out.select(0, static_cast<int64_t>(i));
      row.copy_(tensors[i]);
    }
    return out;
  });
  // Whether two tensors use one storage (the receiver's cache and tests compare with it).
  m.def("_same_storage", [](py::handle a, py::handle b) {
    return checked_tensor(a, "_same_storage").impl()->storage().get() ==
           checked_tensor(b, "_same_storage").impl()->storage().get();
  });
}

}  // namespace ember::python
